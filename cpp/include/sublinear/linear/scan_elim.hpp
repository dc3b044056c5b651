#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/linear/kept_widths.hpp"
#include "sublinear/linear/ridge_policy.hpp"

namespace sublinear {

// Linear Elim and Sub-Elim at scan cost (search "widths"): Algorithm 3 of Yang et al.
// (arXiv:2103.02729) with every stage search answered exactly from kept widths
// ||x||^2_{V^-1} (KeptWidths, O(K d) an observation) instead of a MIPS index over the lifts
// vec(x x^T / d). The lift costs d(d+1)/2 floats an arm (2.47 GB at 60,000 x 128, out of memory at
// 60,000 x 784) and one copy per user over a catalogue; these widths cost 8 bytes an arm and need no
// index, so they are what the elimination policies run over a catalogue and, by default, at high d
// (policy_factory.cpp decides).
//
// Every select makes one pass over the arms in play (eliminated arms cost one byte read; their
// widths go stale and are computed afresh if they come back): the widths catch up, each arm gets its
// uncertainty u = beta ||x||_{V^-1} and moves up to the stage u gives (stages only rise, as
// Algorithm 2's re-partitions move them), the elimination threshold rises to the best lower bound
// x^T theta^ - u of the arms in play (its arm the witness), and every arm in play but the witness
// whose upper bound x^T theta^ + u is below the threshold is eliminated. Since the stages are exact
// at every step, the first stage holding an arm always passes Algorithm 2's acceptance test and no
// re-partition is needed. The arm played is the one of largest upper bound x^T theta^ + u among the
// arms in play of the window of kStageWindow stages from that first one (ties to the smaller id),
// and in the last stage a uniformly random member. A filtered selection or a slate takes the eligible
// arms in play in that order (the window's by upper bound, then each later stage's), then eliminated
// eligible arms by upper bound (as StagedElimination).
// Linear Elim and Sub-Elim are the same algorithm here, at the same cost: O(n d) a step for n arms
// in play, plus one byte read per arm. The pass reads the arms' float copy (ArmSet::keepFloatRows,
// as LinUCB), and the regression keeps V^-1 alone (RidgeRegression::Form::InverseOnly).
//
// Per arm the policy keeps its id (the arm set's row order as last seen), its stage byte (-1 once
// eliminated) and its width: 13 bytes. The arm set may change between calls without notice (a
// catalogue's add, remove and setFeatures): each call first compares the row order it saw with the
// set's and, when they differ, moves its per-arm state with the arms. An arm whose row a catalogue
// stamped since (ArmSet::stampOf: added, or given other features) or an own arm added since is a new
// arm, also under an id the policy knew in the same row. Arms that arrived join at once, in the
// stage their uncertainty gives (the current stage structure: a new arm is explored before older,
// better-known ones); arms that left are forgotten; when the witness left, every eliminated arm is
// readmitted and the threshold is derived afresh (as StagedElimination does on removal).
//
// Over a catalogue a user may learn in the catalogue's subspace (option `subspace`, as LinUCB): its
// model is in modelDim dimensions and every row it reads is the catalogue's projected row z = B^T x
// (means, widths, stages and elimination all over z). After a refit the model moves through the
// catalogue's transitions and the elimination starts afresh (onModelMoved): the widths are computed
// again, every eliminated arm comes back and every stage is 0 again (the comparisons that placed and
// eliminated arms were made in the old coordinates, and an arm's uncertainty may have grown in
// directions new to the basis, where stages, which only rise, could not follow).
//
// Options: RidgePolicy's, eta and featureBound (StagedElimination's). shortlist, boundsFirst and the audit
// options concern the lifted search and are accepted and unused here; `index` is refused over a
// catalogue.
class ScanElim final : public RidgePolicy {
 public:
  // Which arm of the first stage s to play: Theorem 5.2's proof needs only that the played arm's
  // uncertainty is a fixed fraction of 2^-s (any arm in play has a gap of at most 2u + 2 2^-s, and
  // the paper's approximate search already returns arms of uncertainty down to 2^-s / 4), so every
  // arm of stages s to s + 4 (u > 2^-s / 32) keeps the bound, with 66 in place of its 16. Among them
  // the arm of largest upper bound costs the least regret, where the most uncertain one (the lifted
  // search's answer) is often a poor arm. Measured on the high-dimensional battery's low-rank
  // embeddings (T = 4,000, last quarter against uniform play's, tests/battery), with the model in
  // the arms' subspace of 0.8 of their energy (LinUCB's default): the most uncertain arm of stage s
  // 0.000 / 0.055 / 0.19 / 0.55 at d = 128 / 384 / 768 / 1,536; a window of 4 stages missed 0.2 on
  // 2 of 14 embeddings at d = 1,536 (0.22, 0.28), a window of 5 at most 0.12 on all 20 tried.
  static constexpr int kStageWindow = 5;
  ScanElim(std::string type, int dim, const Json& options);
  ScanElim(std::string type, std::shared_ptr<Catalogue> catalogue, const Json& options);
  std::string type() const override { return type_; }

  int maxStage() const { return maxStage_; }
  double radius() const { return beta_; }
  // The stage of an arm as of the last call, -1 once eliminated, -2 for an arm the policy has not
  // seen yet (precondition: hasArm(id)).
  int stageOf(Id id) const;
  bool hasWitness() const { return hasWitness_; }
  Id witness() const { return witness_; }
  // Bytes of the per-arm state (ids, stages, widths): what a user over a catalogue adds to its model.
  std::size_t perArmBytes() const;

 protected:
  // The arms are read at the next call (synchronise): adding and removing own arms is the same
  // path as a catalogue's changes.
  // Own arms added since the last call are new whatever their ids (an id removed and added again
  // with other features may land in the row it left): synchronise reads them. This is the
  // catalogue's stamps' question asked without them: own arms keep no stamps (keepStamps would cost
  // 8 bytes an arm, in memory and in the saved state, for ever), where this list holds only the
  // arrivals since the last call and is empty after it.
  void onAddArms(const Id* ids, std::size_t count) override { arrived_.insert(arrived_.end(), ids, ids + count); }
  void onRemoveArms(const Id* /*ids*/, std::size_t /*count*/) override {}
  void afterObservation() override { widths_.observe(ridge_); }
  void prepareChoice() override { syncProjectedSubspace(); }
  void onModelMoved() override;
  // Widths stale; with `restart` every arm back in play and the stages started again.
  void onForget(bool restart) override;
  void onModelScaled(double factor) override { widths_.scale(1.0 / factor); }
  Id chooseArm() override;
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) override;
  Json extraStats() const override;
  // The radius, threshold and witness, the counters, the row order last seen with each row's stage,
  // then the widths.
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  // The per-arm state follows the arm set's rows.
  void synchronise();
  // The rows in play at the start of a call, with x^T theta^ and u = beta ||x||_{V^-1} each.
  // (Arrays without zero-filling: prepare writes every entry, 16 bytes an arm in play a select.)
  struct Pass {
    std::vector<std::uint32_t> rows;
    std::unique_ptr<double[]> means;
    std::unique_ptr<double[]> uncertainties;
    // The first stage that holds an arm in play after the pass's eliminations (maxStage + 1: none).
    int first;
  };
  std::vector<std::uint32_t> rowsInPlay() const;
  // The pass every select starts with (see above).
  Pass prepare();

  // The rows this policy reads, as LinUCB's scanned_ (see there): RidgePolicy's arms, or in the
  // catalogue's subspace the catalogue's projected rows.
  const ArmSet& scanned_;
  std::string type_;
  double eta_;
  double featureBound_;
  int maxStage_;
  double beta_ = 0.0;
  double threshold_ = -INFINITY;
  bool hasWitness_ = false;
  Id witness_ = 0;
  // Per row of the arm set as last seen: its id, its stage (-1 eliminated), its width.
  std::vector<Id> rowIds_;
  // Over a catalogue, the revision() of its rows read when they were last followed (0 over own
  // arms), and over own arms the ids added since.
  std::uint64_t seenRevision_ = 0;
  std::vector<Id> arrived_;
  std::vector<std::int8_t> stages_;
  KeptWidths widths_;
  std::uint64_t eliminated_ = 0;
  std::uint64_t readmissions_ = 0;
  std::uint64_t randomPlays_ = 0;
  std::uint64_t eliminatedPlays_ = 0;
  std::uint64_t arrivals_ = 0;
  std::uint64_t departures_ = 0;
};

}  // namespace sublinear
