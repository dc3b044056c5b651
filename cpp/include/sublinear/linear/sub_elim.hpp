#pragma once

#include <functional>
#include <memory>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sublinear/linear/approximation_audit.hpp"
#include "sublinear/linear/policy_index.hpp"
#include "sublinear/linear/ridge_policy.hpp"
#include "sublinear/linear/symmetric_lift.hpp"

namespace sublinear {

// Sub-Elim (paper 000, Algorithm 3 over the heap-augmented arm sets of Algorithm 2).
//
// The arms are partitioned into stages Psi_0 .. Psi_smax; an arm enters Psi_s with
// beta ||x||_{V^-1} <= 2^-s (s = floor(-log2(beta ||x||_{V^-1})) clamped to [0, smax]; Psi_0 takes
// every arm whose uncertainty exceeds 1). Each stage owns
//   - a MIPS index over the lifts vec(x x^T / d) (SymmetricLift, d(d+1)/2 dims), queried with
//     vec(V^-1 / d): the inner product is ||x||^2_{V^-1} / d^2, so the top answer is the arm of
//     largest uncertainty;
//   - a min-heap keyed by x^T theta^ + 2^-s (theta^ when the arm entered the stage; for arms of Psi_0
//     whose uncertainty exceeds 1 the key is their actual upper bound x^T theta^ + beta ||x||_{V^-1},
//     since 2^-0 would not bound them -- Algorithm 2 leaves this case open): whenever the
//     elimination threshold r = max (x^T theta^ - beta ||x||_{V^-1}) over newly placed arms rises,
//     every stage pops the arms whose key fell below it and deletes them from its index.
// select() queries the first non-empty stage s < smax; the answer counts only if
// beta ||x||_{V^-1} >= 2^-(s+2) sqrt(1 - eta^2) (Algorithm 2's (c, r) = (1/4, 2^-2s-2 (1-eta^2)/(d^2 beta^2))
// acceptance test); otherwise the stage is re-partitioned by exact uncertainties (amortised: an arm
// advances at most smax times), the threshold is raised from the re-partitioned arms and the loop
// repeats. At s = smax a uniformly random arm of the stage is played. Nothing is O(K) per step.
//
// The arm that set the current threshold (its "witness") is never eliminated, even when a
// re-partition re-keys it below the threshold (possible only with a radius below the theoretical
// one), so some stage always holds an arm.
//
// Arm removals always work. Removing arms other than the witness changes nothing else: every
// eliminated arm is still worse than the witness with high probability. Removing the witness
// brings every eliminated arm back (readmitEliminated) and derives the threshold afresh, since the
// comparison that eliminated them is gone.
//
// Options (besides RidgePolicy's lambda, delta, noise, bound, horizon, beta, seed):
//   eta           1/sqrt(horizon)  MIPS accuracy eta(T); smax = max(0, ceil(log2(1/(8 eta))))  (in (0, 1))
//   featureBound  1                L in the fixed radius beta(delta/2) of RidgePolicy::horizonRadius
//   shortlist     30               candidates retrieved before exact ranking          (integer >= 1)
//   index         { type: "hnsw" } (LinearElim: { type: "exact" })
//
// Over an approximate index the stage searches are audited as Sub-TS's are (ApproximationAudit:
// auditBudget, targetMissRate, maxShortlist): a miss is a stage arm of larger uncertainty than the
// answer. An answer that passes the acceptance test is played even when it is not the most
// uncertain arm, which Algorithm 2 allows but which explores less per step; when such misses are
// frequent the shortlist doubles. stats().approximation reports them (meanGap in lifted score,
// ||x||^2_{V^-1} / d^2).
class SubElim : public RidgePolicy {
 public:
  SubElim(int dim, const Json& options) : SubElim("sub-elim", "hnsw", dim, options) {}
  std::string type() const override { return type_; }

  int maxStage() const { return maxStage_; }
  double radius() const { return beta_; }
  // The stage of an arm, or -1 once it is eliminated (precondition: hasArm(id)).
  int stageOf(Id id) const { return membership_.at(id).stage; }
  std::size_t stageSize(int stage) const { return stages_[static_cast<std::size_t>(stage)].index->size(); }
  std::uint64_t mipsQueries() const { return queries_; }
  // The arm whose lower bound set the current elimination threshold, if any.
  bool hasWitness() const { return hasWitness_; }
  Id witness() const { return witness_; }

  std::size_t buildIndex(std::size_t maxItems) override;
 protected:
  SubElim(std::string type, const std::string& defaultIndex, int dim, const Json& options);

  void onAddArms(const Id* ids, std::size_t count) override;
  void onRemoveArms(const Id* ids, std::size_t count) override;
  Id chooseArm() override;
  Json extraStats() const override;
  std::uint64_t indexInnerProducts() const override;
  // The radius, the threshold and its witness, the review schedule, the counters, the shortlist
  // and the audits, then every stage:
  // its index (over the lifts) and its members' heap keys in the index's row order.
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  using HeapEntry = std::pair<double, Id>;
  struct Stage {
    std::unique_ptr<MipsIndex> index;
    std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>> heap;
  };
  // Where an arm is: its stage (-1 once eliminated) and the key of its heap entry. Entries of
  // another stage or key are stale -- left behind when the arm moved, was re-keyed, eliminated or
  // removed -- and skipped when popped.
  struct Membership {
    int stage;
    double key;
  };
  // An arm about to enter a stage, with its current mean estimate x^T theta^ and uncertainty
  // beta ||x||_{V^-1}.
  struct Placement {
    Id id;
    double mean;
    double uncertainty;
  };

  // beta: fixed for the run under the theoretical rule; under the practical one it follows the
  // noise estimate and the arm count, and is refreshed before arms are placed or chosen.
  void refreshRadius();
  double uncertainty(const double* x) const;
  int stageFor(double uncertainty) const;
  double acceptance(int stage) const;
  // Adds the arms to stage s (index and heap).
  void place(int stage, const std::vector<Placement>& arms);
  // Rebuilds the heap of stage s from its members' keys once stale entries make up most of it, so
  // that the heaps do not grow with arms coming and going.
  void dropStaleEntries(int stage);
  // Raises the threshold to `candidate` if higher, then eliminates every arm whose key is below it.
  void raiseThreshold(double candidate, Id witness);
  // Moves the arms of `stage` whose stage rose; returns the arm of largest uncertainty found.
  std::pair<Id, double> repartition(int stage);
  Id randomArmOf(int stage);
  // Re-examines every arm still in play with the current estimate: moves arms whose stage rose,
  // re-keys every heap and raises the threshold from the best lower bound of all. Algorithm 2
  // re-keys an arm only when a failed query re-partitions its stage, and Psi_0's arms are all
  // queried first, so with a radius that has to be valid for a whole run they keep their entry
  // keys (mean 0, uncertainty 1/sqrt(lambda)) and nothing is eliminated for thousands of steps.
  // Done whenever the observations grow by a quarter: O(K d^2) each time, O(K d^2 log T) in a run.
  void review();
  // Checks a stage's answer against its exact answer and raises the shortlist when misses are too
  // frequent.
  void audit(MipsIndex& index, const std::vector<float>& query, const SearchResult& answer);
  // Brings every eliminated arm back when the witness of the threshold is removed (the arms in
  // `leaving` are about to go and stay out).
  void readmitEliminated(const Id* leaving, std::size_t count);

  std::string type_;
  SymmetricLift lift_;
  double eta_;
  double featureBound_;
  double beta_ = 0.0;
  int maxStage_;
  std::size_t shortlist_;
  ApproximationAudit audit_;
  std::vector<Stage> stages_;
  std::unordered_map<Id, Membership> membership_;  // lookups only, never iterated
  double threshold_ = -INFINITY;
  bool hasWitness_ = false;
  Id witness_ = 0;
  std::uint64_t queries_ = 0;
  std::uint64_t emptyAnswers_ = 0;
  std::uint64_t repartitions_ = 0;
  std::uint64_t reviews_ = 0;
  std::uint64_t readmissions_ = 0;
  long nextReview_ = 1;
  std::uint64_t eliminated_ = 0;
  std::uint64_t randomPlays_ = 0;
};

}  // namespace sublinear
