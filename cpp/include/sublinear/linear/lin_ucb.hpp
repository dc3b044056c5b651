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
// Widths at scan cost: over its own arms the policy keeps w_a = ||x_a||^2_{V^-1} per arm by
// rank-one corrections (KeptWidths), O(K d) per observation instead of the O(K d^2) of recomputing
// every width. Over a
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
  // Whether the policy keeps widths (its own arms).
  bool keepsWidths() const { return catalogue_ == nullptr; }

  double lastRadius_ = 0.0;
  // ||x_row||^2_{V^-1} per row of its own arms (never over a catalogue).
  KeptWidths widths_;
};

}  // namespace sublinear
