#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sublinear/linear/approximation_audit.hpp"
#include "sublinear/linear/policy_index.hpp"
#include "sublinear/linear/ridge_policy.hpp"
#include "sublinear/linear/symmetric_lift.hpp"
#include "sublinear/linear/uncertainty_bounds.hpp"

namespace sublinear {

// Staged elimination (Yang et al., arXiv:2103.02729, Algorithm 3 over the heap-augmented arm sets of
// Algorithm 2): Sub-Elim over an approximate MIPS index, Linear Elim over an exact scan (SubElim and
// LinearElim name the two).
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
// Upkeep is sliced so that no select() stalls a page: the reviews of every arm (see review below)
// and the eliminations a rising threshold brings spend at most kUpkeepWork units per call (an
// examined arm costs 1, an arm moved between stages or eliminated kMoveWork) and go on at the next
// call. Arms left below the threshold by a spent budget are eliminated by the next calls.
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
//   eta           MIPS accuracy eta(T); smax = max(0, ceil(log2(1/(8 eta)))); default: the elimination
//                 group's (cpp/src/linear/linear_option_tables.cpp)
//   featureBound  1                L in the fixed radius beta(delta/2) of RidgePolicy::horizonRadius
//   shortlist     30               candidates retrieved before exact ranking          (integer >= 1)
//   index         { type: "hnsw" } (LinearElim: { type: "exact" })
//   boundsFirst   true             search each stage through its bounds before its index (SubElim only)
//
// Bounds first (Sub-Elim's default, option boundsFirst): V only grows, so ||x||_{V^-1} never
// increases, and an arm's value when it was last computed bounds its value now. Each stage keeps
// those bounds (UncertaintyBounds); a search takes the largest, recomputes it and puts it back,
// until the best recomputed value reaches the largest bound left: that arm is the stage's most
// uncertain one, exactly (Linear Elim's scan finds the same arm up to float rounding), after some
// hundreds of recomputations at K = 10^5 instead of K. A search recomputes at most boundsBudget(n)
// bounds of a stage of n arms.
// A search that runs out of its budget scans the stage exactly when the stage is small enough
// (kLargestScannedStage; stats().boundFallbacks). Over a larger stage it plays its best arm
// if that passes the acceptance test (Algorithm 2 accepts any such arm); if not, the index answers
// when a graph built by buildIndex() makes that cheap, and otherwise the best arm is played anyway
// and the search goes on from tighter bounds at the next call (stats().uncertifiedPlays). Linear
// Elim, the linear-time baseline, scans its index at every step.
//
// Over an approximate index the stage searches are audited as Sub-TS's are (ApproximationAudit:
// auditBudget, targetMissRate, maxShortlist, auditSlice: the exact scan of the audited stage runs a
// slice per later selection, advanceAudit): a miss is a stage arm of larger uncertainty than the
// answer. An answer that passes the acceptance test is played even when it is not the most
// uncertain arm, which Algorithm 2 allows but which explores less per step; when such misses are
// frequent the shortlist doubles. stats().approximation reports them (meanGap in lifted score,
// ||x||^2_{V^-1} / d^2).
class StagedElimination : public RidgePolicy {
 public:
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
  // Whether every arm in play has an entry with its key in its stage's heap (and, during a review,
  // every arm the review has examined one in the next heap): without it a rising threshold could
  // not eliminate the arm. With boundsFirst, also a bound in its stage's bounds: without it a search
  // could miss the arm. O(K log K), for tests.
  bool heapsCoverEveryArm() const;

  // The upkeep one call may spend, in examined arms; moving an arm between stages or eliminating it
  // costs kMoveWork (index removal and insertion of a lift, about eight examinations in time). A
  // review of 10^6 arms then spreads over some 10 steps instead of stalling one, and one of 10^5 fits
  // in a call (figures: bench/results/design-measurements.md).
  static constexpr std::size_t kUpkeepWork = 100000;
  static constexpr std::size_t kMoveWork = 8;
  // Skipping a stale heap entry: a pop from a heap of up to 10^6 entries and a hash lookup, both at
  // random places in memory. At one unit the stale entries a review leaves behind made selects at
  // 10^6 arms slow; each unit more delays eliminations and costs regret
  // (bench/results/design-measurements.md).
  static constexpr std::size_t kStaleWork = 2;
  // The bounds one stage search may recompute or drop as stale (each reads the arm and its
  // membership at random), so that a call with its upkeep stays within some tens of ms at K = 10^6.
  // At 10^5 arms a search needs some hundreds; at 10^6 the first 100 steps or so run out now and then.
  static constexpr std::size_t kSearchWork = 10000;
  // A recomputation reads an arm and its membership at random; a scan reads a stage's lifted rows in
  // order (d(d+1)/2 floats): in wasm at d = 16 one recomputation costs about 25 scan rows
  // (bench/results/design-measurements.md). So a search through the bounds of a stage of n arms
  // recomputes at most n / 25 of them (boundsBudget, within [kMinimumSearchWork, kSearchWork]), and one
  // that runs out scans the stage exactly when that scan costs no more than a full budget (n <= 25
  // kSearchWork): no search costs much more than Linear Elim's scan of the same stage. Larger stages
  // play the best arm found (uncertified). Small stages keep kMinimumSearchWork (under 1 ms): their
  // bounds need some hundreds to certify an answer, and a scan of them is cheap anyway.
  static constexpr std::size_t kScanRowsPerRecomputation = 25;
  static constexpr std::size_t kMinimumSearchWork = 1000;
  static constexpr std::size_t kLargestScannedStage = kScanRowsPerRecomputation * kSearchWork;
  // The recomputations a bounds search of a stage of `stageSize` arms may spend.
  static std::size_t boundsBudget(std::size_t stageSize);
  // A review examines the arms ahead of its cursor in blocks of this many (at most what the call's
  // work can reach), and examine() hands them to its threads in grains of kExamineGrain.
  static constexpr std::size_t kReviewBlock = 8192;
  static constexpr std::size_t kExamineGrain = 1024;

 protected:
  // `defaultIndex` unless the options name one; boundsFirst: whether the option boundsFirst is read
  // (Sub-Elim's), or every search goes to the stage's index (Linear Elim, the baseline, scans).
  StagedElimination(std::string type, const std::string& defaultIndex, bool boundsFirst, int dim, const Json& options);

  void onAddArms(const Id* ids, std::size_t count) override;
  void onRemoveArms(const Id* ids, std::size_t count) override;
  // With `restart` (forget(), a detected change, a discount's top-up, a window's refactoring): every
  // eliminated arm back in play and the threshold derived afresh, as when the witness leaves.
  void onForget(bool restart) override {
    if (restart) readmitEliminated(nullptr, 0);
  }
  Id chooseArm() override;
  // A filtered selection or a slate: the most uncertain eligible arms of the first stage holding
  // one (Algorithm 2's acceptance test re-partitions it once if its answer fails), then of the next
  // stages while fewer than `count` were found, then eliminated eligible arms by upper bound
  // (fillFromEliminated). The stage searches are bounds first (skipping ineligible arms) or the
  // stage index's filtered search; see chooseArms in staged_elimination.cpp for the cost.
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) override;
  Json extraStats() const override;
  std::uint64_t indexInnerProducts() const override;
  // The radius, the threshold and its witness, the review schedule and cursor, the counters, the
  // shortlist and the audits, then every stage: its index (over the lifts), its members' keys in
  // the index's row order, its heap and next heap entry for entry, and its bounds.
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  using HeapEntry = std::pair<double, Id>;
  // A min-heap of keys x^T theta^ + width whose entries, stale ones included, can be saved and
  // restored as they are: what a call pops, and so the work it spends, must not change when a
  // policy is saved and loaded.
  struct Heap : std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>> {
    using priority_queue::priority_queue;
    const std::vector<HeapEntry>& entries() const { return c; }
    void restore(std::vector<HeapEntry> entries) { c = std::move(entries); }
  };
  struct Stage {
    std::unique_ptr<MipsIndex> index;
    Heap heap;
    // While a review is under way: the entries of the arms it has examined (and of every arm placed
    // since it began), which replace the heap when it ends. The old heap keeps serving meanwhile, so
    // no call pays for dropping its stale entries at once.
    Heap nextHeap;
    // With boundsFirst: an entry for every member (entries of arms that left are stale).
    UncertaintyBounds bounds;
  };
  // What a stage search through the bounds found: the arm of largest ||x||_{V^-1} among those it
  // recomputed, and whether no other member can exceed it.
  struct BoundAnswer {
    bool found = false;
    bool certified = false;
    Id id = 0;
    double inverseNorm = -1.0;
  };
  // Where an arm is: its stage (-1 once eliminated) and the key of its heap entry. Entries of
  // another stage or key are stale -- left behind when the arm moved, was re-keyed, eliminated or
  // removed -- and skipped when popped.
  struct Membership {
    int stage;
    double key;
  };
  // An arm about to enter a stage, with its current mean estimate x^T theta^ and ||x||_{V^-1}.
  struct Placement {
    Id id;
    double mean;
    double inverseNorm;
  };

  // An arm's mean estimate x^T theta^ and ||x||_{V^-1}, computed ahead of the loop that uses them.
  struct Examined {
    Id id = 0;
    // Its entry in membership_ (null once eliminated or gone): valid until membership_ changes.
    Membership* where = nullptr;
    double mean = 0.0;
    double inverseNorm = 0.0;
  };
  // Examines the arms ids[0 .. count) on parallelism() threads (an arm eliminated is
  // only marked: where null). Reads only: theta^, V^-1, the arms and their memberships. The
  // reviews and re-partitions spend most of a call here (an arm's features and membership are read
  // at random); the values are those one thread computes.
  std::vector<Examined> examine(const Id* ids, std::size_t count);

  // beta: fixed for the run under the theoretical rule; under the practical one it follows the
  // noise estimate and the arm count, and is refreshed before arms are placed or chosen.
  void refreshRadius();
  double inverseNorm(const double* x) const;
  double uncertainty(const double* x) const { return beta_ * inverseNorm(x); }
  int stageFor(double uncertainty) const;
  double acceptance(int stage) const;
  // Adds the arms to stage s (index and heap).
  void place(int stage, const std::vector<Placement>& arms);
  void pushEntry(Stage& stage, double key, Id id);
  // Entries (a heap's, or the bounds') as their keys and ids, in their order.
  static void saveEntries(const std::vector<HeapEntry>& entries, StateWriter& out);
  // The same back, every key checked finite (CORRUPT_STATE).
  static std::vector<HeapEntry> loadEntries(StateReader& in);
  void loadHeap(Heap& heap, StateReader& in) const;
  // The stage's most uncertain arm through its bounds (see boundsFirst above).
  BoundAnswer searchBounds(int stage);
  // chooseArm's search of a non-empty stage below smax: its bounds, then the fallbacks (a scan, an
  // uncertified play, the index with its audits). The arm to play, or none when no arm found passes
  // the acceptance test (the caller re-partitions the stage). Raises the shortlist of
  // `searchOptions` when an audit raises the policy's.
  std::optional<Id> answerStage(int stage, const std::vector<float>& query, SearchOptions& searchOptions);
  // The `count` most uncertain arms of a stage that `eligible` admits, through its bounds: the ids
  // by ||x||_{V^-1} descending (at most count), and whether no other eligible member can exceed the
  // last of them. Ineligible members popped are put back with their bounds, and count as work.
  std::vector<UncertaintyBounds::Entry> searchBounds(int stage, std::size_t count, const Eligibility& eligible, bool& certified);
  // The `count` most uncertain eligible arms of a stage (bounds first, else the stage index).
  std::vector<Id> mostUncertain(int stage, std::size_t count, const std::vector<float>& query, const SearchOptions& filters,
                                const Eligibility& eligible);
  // Up to `count` eligible eliminated arms, by upper bound x^T theta^ + beta ||x||_{V^-1}, appended
  // to `chosen`: a filter that admits no arm in play still gets arms.
  void fillFromEliminated(std::size_t count, const Eligibility& eligible, std::vector<Id>& chosen);
  // What every selection does first: pending eliminations and a slice of the review under way.
  void upkeep(std::size_t& work);
  // Whether the stage's index holds a graph over every item (built by buildIndex(), in a Worker
  // say): then a search of it costs no more than a bounds search may.
  static bool graphOverEveryItem(MipsIndex& index);
  // Rebuilds the heap of stage s from its members' keys once stale entries make up most of it, so
  // that the heaps do not grow with arms coming and going.
  void dropStaleEntries(int stage);
  // Raises the threshold to `candidate` if higher, then eliminates arms whose key is below it.
  void raiseThreshold(double candidate, Id witness, std::size_t& work);
  // Eliminates arms whose key is below the threshold (never the witness) while `work` lasts.
  void eliminate(std::size_t& work);
  // Moves the arms of `stage` whose stage rose; returns the arm of largest uncertainty found.
  std::pair<Id, double> repartition(int stage, std::size_t& work);
  Id randomArmOf(int stage);
  // Re-examines every arm still in play with the current estimate: moves arms whose stage rose,
  // re-keys every heap and raises the threshold from the best lower bound of all. Algorithm 2
  // re-keys an arm only when a failed query re-partitions its stage, and Psi_0's arms are all
  // queried first, so with a radius that has to be valid for a whole run they keep their entry
  // keys (mean 0, uncertainty 1/sqrt(lambda)) and nothing is eliminated for thousands of steps.
  // Begun whenever the observations grow by a quarter: O(K d^2) each time, O(K d^2 log T) in a run,
  // carried out a slice per call in the arm set's row order (reviewCursor_).
  void review(std::size_t& work);
  bool reviewing() const { return reviewCursor_ != kNotReviewing; }
  // Arm removal moves the set's last rows into the holes: an arm moved from beyond the review's
  // cursor to before it would be skipped, so its entry goes to the next heap now.
  void keepReviewWhole(const Id* leaving, std::size_t count);
  // An audit in one call (auditSlice 0): checks a stage's answer against its exact answer and
  // raises the shortlist when misses are too frequent.
  void audit(MipsIndex& index, const std::vector<float>& query, const SearchResult& answer);
  // A slice of the pending audit's scan of its stage, once a selection (before its searches).
  void advanceAudit();
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
  static constexpr std::size_t kNotReviewing = static_cast<std::size_t>(-1);
  // The next row of the arm set the review under way examines, or kNotReviewing.
  std::size_t reviewCursor_ = kNotReviewing;
  std::uint64_t eliminated_ = 0;
  std::uint64_t randomPlays_ = 0;
  bool boundsFirst_;
  std::uint64_t boundRecomputations_ = 0;
  std::uint64_t certifiedAnswers_ = 0;
  std::uint64_t boundFallbacks_ = 0;
  std::uint64_t uncertifiedPlays_ = 0;
  std::uint64_t eliminatedPlays_ = 0;
};

}  // namespace sublinear
