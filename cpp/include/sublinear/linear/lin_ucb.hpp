#pragma once

#include "sublinear/linear/ridge_policy.hpp"

namespace sublinear {

// OFUL (Abbasi-Yadkori, Pal and Szepesvari 2011): play argmax_a x_a^T theta^ + beta_t ||x_a||_{V^-1}
// with beta_t = R sqrt(2 log(1/delta) + log(det V / lambda^d)) + sqrt(lambda) S.
// The linear-time baseline: every select() scores every arm (counted as one inner product per arm).
// Options: the common ones of RidgePolicy (lambda, delta, noise, bound, beta, seed).
// Ties go to the smaller arm id. A slate is the k arms of largest index, largest first.
class LinUCB final : public RidgePolicy {
 public:
  LinUCB(int dim, const Json& options);
  // A user over a catalogue: scores the catalogue's arms as it would score its own.
  LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options);
  std::string type() const override { return "lin-ucb"; }

 protected:
  void onAddArms(const Id*, std::size_t) override {}
  void onRemoveArms(const Id*, std::size_t) override {}
  Id chooseArm() override;
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) override;
  Json extraStats() const override;
  // The radius of the last selection (for stats()).
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  double lastRadius_ = 0.0;
};

}  // namespace sublinear
