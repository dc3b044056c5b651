#pragma once

#include "sublinear/linear/kept_widths.hpp"
#include "sublinear/linear/ridge_policy.hpp"

namespace sublinear {

// OFUL (Abbasi-Yadkori, Pal and Szepesvari 2011): play argmax_a x_a^T theta^ + beta_t ||x_a||_{V^-1}
// with beta_t = R sqrt(2 log(1/delta) + log(det V / lambda^d)) + sqrt(lambda) S.
// The linear-time baseline: every select() scores every arm (counted as one inner product per arm).
// Options: the common ones of RidgePolicy (lambda, delta, noise, bound, beta, seed).
// Ties go to the smaller arm id. A slate is the k arms of largest index, largest first.
//
// Widths at scan cost (option `widths`, default "kept"): the policy keeps w_a = ||x_a||^2_{V^-1} per
// arm by rank-one corrections (KeptWidths), O(K d) per observation instead of the O(K d^2) of
// recomputing every width at every select ("direct"). A slice of K / (8 d) widths is recomputed exactly
// at each select against rounding, so that no select pays O(K d^2) (a whole recomputation every d
// corrections took seconds at 60,000 x 784 in wasm), and the first widths, before any observation,
// are ||x||^2 / lambda, O(K d). The scan reads the arms' float copy (ArmSet::keepFloatRows: 4 more
// bytes a feature, half the bytes a select reads) and the ridge regression keeps V^-1 alone
// (RidgeRegression::Form::InverseOnly: LinUCB never samples). Over its own arms the widths follow addArms and removeArms. Over a
// catalogue (whose rows change without telling its users) the user keeps the row order it last saw
// beside the widths, 12 bytes an arm, and moves them with the arms when the catalogue changed (as
// ScanElim does). "direct" keeps nothing per arm: a catalogue user's memory does not grow with the
// catalogue, at O(K d^2) a select.
//
// Over a catalogue a user may learn in the catalogue's subspace (option `subspace`, the Thompson
// users' rule: RidgePolicy::usesSubspaceOver): its model is in modelDim dimensions, and the rows it
// scores are the catalogue's projected rows z = B^T x (Catalogue::projectedArms), so means, widths
// and choices are those of LinUCB over arms whose features are z. After a refit the model moves
// through the catalogue's transitions (RidgePolicy::syncSubspace) and the widths are computed
// afresh (O(K modelDim^2), once a refit).
//
// Over its own arms LinUCB learns in the arms' principal subspace under the Thompson policies' rule
// (RidgePolicy::usesSubspaceOverOwnArms: above 64 dimensions by default; options subspace, modelDim,
// subspaceEnergy): the policy fits an ArmSubspace B of its arms at the first batch, keeps their
// projected rows z = B^T x (modelDim x 12 bytes an arm beside the arms' own 12 d) and scores them as
// it scores arms of modelDim features; when the arms have doubled or lost half it fits again, moves
// the model through M = B_new^T B_old (as Linear TS does) and computes the widths afresh. In all d
// dimensions, at d = 768 and 1,536, the widths of the directions the arms barely span never shrink
// and LinUCB kept exploring them (last quarter 0.36 and 0.59 of uniform play's regret at T = 4,000
// on the battery's low-rank embeddings).
class LinUCB final : public RidgePolicy {
 public:
  LinUCB(int dim, const Json& options);
  // A user over a catalogue: scores the catalogue's arms as it would score its own.
  LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options);
  std::string type() const override { return "lin-ucb"; }
  // The kept width ||x||^2_{V^-1} of an arm as of the last select (kept widths only, and the arm
  // was in the set then), and the same computed directly from V^-1 now: for tests.
  double width(Id id) const;
  double directWidth(Id id) const;
  // The model's dimension over own arms (the state a saved policy holds).
  static int modelDimension(int dim, const Json& options) { return modelDimensionOverOwnArms(dim, options); }

 protected:
  void onAddArms(const Id* ids, std::size_t count) override;
  void onRemoveArms(const Id* ids, std::size_t count) override;
  void afterObservation() override;
  // In the catalogue's subspace: the projected rows and the model brought to the current basis.
  void prepareChoice() override { syncProjectedSubspace(); }
  void onModelMoved() override { widths_.invalidate(); }
  void onForget(bool /*restart*/) override { widths_.invalidate(); }
  void onModelScaled(double factor) override { widths_.scale(1.0 / factor); }
  Id chooseArm() override;
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) override;
  Json extraStats() const override;
  // In the catalogue's subspace the model's version and lineage first. The radius of the last
  // selection (for stats()), over a catalogue the row order last seen, then
  // the kept widths with their pending corrections (a restored policy continues with the same bits).
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  // Whether the policy keeps widths over its own arms (they follow addArms and removeArms).
  bool keepsWidths() const { return keptWidths_ && catalogue_ == nullptr; }
  // Over a catalogue: the kept widths follow the catalogue's rows (see ScanElim::synchronise).
  void synchronise();

  // The rows this policy scores: RidgePolicy's arms_ (its own or the catalogue's), or in a subspace
  // the projected rows (its own, or the catalogue's: the same ids, labels and row order, modelDim
  // features), so that one scan serves both spaces; RidgePolicy's own functions read arms_, the
  // arms as they are.
  const ArmSet& scanned_;
  bool keptWidths_;
  double lastRadius_ = 0.0;
  // ||x_row||^2_{V^-1} per row of the arms, when kept.
  KeptWidths widths_;
  // Over a catalogue with kept widths: the arm of each row as the user last saw the catalogue.
  std::vector<Id> rowIds_;
  // The revision() of the catalogue's rows read (its arms or projected rows) when the widths last
  // followed them.
  std::uint64_t seenRevision_ = 0;
};

}  // namespace sublinear
