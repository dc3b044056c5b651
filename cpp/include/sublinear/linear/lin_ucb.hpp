#pragma once

#include "sublinear/linear/ridge_policy.hpp"

namespace sublinear {

// OFUL (Abbasi-Yadkori, Pal and Szepesvari 2011): play argmax_a x_a^T theta^ + beta_t ||x_a||_{V^-1}
// with beta_t = R sqrt(2 log(1/delta) + log(det V / lambda^d)) + sqrt(lambda) S.
// The linear-time baseline: every select() scores every arm (counted as one inner product per arm).
// Options: the common ones of RidgePolicy (lambda, delta, noise, bound, beta, seed).
// Ties go to the smaller arm id. A slate is the k arms of largest index, largest first.
//
// Widths at scan cost: over its own arms the policy keeps w_a = ||x_a||^2_{V^-1} per arm. An
// observation x turns V^-1 into V^-1 - c c^T with c = V^-1 x / sqrt(1 + x^T V^-1 x)
// (Sherman-Morrison), so w_a drops by (x_a^T c)^2: a select applies the corrections of the
// observations since the last one in its pass over the arms, O(K d) per observation instead of the
// O(K d^2) of recomputing every width. Every `dim` corrections the widths are recomputed exactly,
// which bounds the rounding the corrections accumulate at the same amortised O(K d). Over a
// catalogue (whose rows change without telling its users, and whose size must not grow a user's
// memory) the widths are computed directly at every select.
class LinUCB final : public RidgePolicy {
 public:
  LinUCB(int dim, const Json& options);
  // A user over a catalogue: scores the catalogue's arms as it would score its own.
  LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options);
  std::string type() const override { return "lin-ucb"; }

 protected:
  void onAddArms(const Id* ids, std::size_t count) override;
  void onRemoveArms(const Id* ids, std::size_t count) override;
  void beforeObservation(const Vector& x) override;
  Id chooseArm() override;
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) override;
  Json extraStats() const override;
  // The radius of the last selection (for stats()), then the kept widths with their pending
  // corrections (a restored policy continues with the same bits).
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  // Whether the policy keeps widths (its own arms) and they are current up to `corrections_`.
  bool keepsWidths() const { return catalogue_ == nullptr; }
  // Every width recomputed exactly: O(K d^2).
  void recomputeWidths();
  // The pending corrections applied to every width: O(K d m).
  void applyCorrections();

  double lastRadius_ = 0.0;
  // widths_[row] = ||x_row||^2_{V^-1} before the pending corrections (own arms, when widthsValid_).
  std::vector<double> widths_;
  bool widthsValid_ = false;
  // Pending Sherman-Morrison vectors c, one column each, and the corrections applied since the
  // last exact recomputation.
  Matrix corrections_;
  std::size_t correctionsSinceExact_ = 0;
};

}  // namespace sublinear
