#include "sublinear/matroid/cucb.hpp"

#include <cmath>

namespace sublinear {

Cucb::Cucb(const Matroid& matroid, const Json& options) : SemiBanditPolicy(matroid, options), indices_(matroid.groundSetSize()) {}

std::vector<Id> Cucb::chooseBasis(std::int64_t t) {
  const double lambda = confidenceWidth(t);
  for (Id arm = 0; arm < armCount(); ++arm) {
    // Loops are never pulled (N = 0); they are in no basis, so their index does not matter. Every
    // other arm has a count here (the arms without one are covered first).
    const double n = count(arm);
    indices_[arm] = n > 0.0 ? empiricalMean(arm) + lambda / std::sqrt(n) : empiricalMean(arm);
  }
  armsScanned_ += armCount();
  return matroid().maxWeightBasis(indices_.data(), indices_.size());
}

}  // namespace sublinear
