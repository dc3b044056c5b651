#include "sublinear/linear/ridge_policy.hpp"

#include <cmath>
#include <string>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
double readLambda(const Json& options) { return readNumber(options, "lambda", 1.0, 0.0, 1e12, false, true); }
}  // namespace

RidgePolicy::RidgePolicy(int dim, const Json& options, int modelDim)
    : arms_(dim),
      ridge_(modelDim, readLambda(options)),
      random_(readSeed(options)),
      delta_(readNumber(options, "delta", 0.05, 0.0, 1.0, false, false)),
      noise_(readNumber(options, "noise", 1.0, 0.0, 1e12)),
      bound_(readNumber(options, "bound", 1.0, 0.0, 1e12)),
      horizon_(readInteger(options, "horizon", 10000, 1, 1000000000000LL)),
      fixedBeta_(options.is_object() && options.contains("beta") && !options["beta"].is_null()),
      beta_(readNumber(options, "beta", 0.0, 0.0, 1e12)) {}

Vector RidgePolicy::modelFeatures(const double* features) const {
  return Eigen::Map<const Vector>(features, arms_.dim());
}

void RidgePolicy::addArms(const ArmId* ids, std::size_t count, const double* features, std::size_t featureLength) {
  arms_.checkAdd(ids, count, features, featureLength);
  arms_.add(ids, count, features);
  try {
    onAddArms(ids, count);
  } catch (...) {
    arms_.remove(ids, count);
    throw;
  }
}

void RidgePolicy::removeArms(const ArmId* ids, std::size_t count) {
  arms_.checkRemove(ids, count);
  onRemoveArms(ids, count);
  arms_.remove(ids, count);
}

ArmId RidgePolicy::select() {
  require(arms_.size() > 0, ErrorCode::Empty, "the policy has no arms: add arms before select()");
  const ArmId arm = chooseArm();
  ++selections_;
  return arm;
}

void RidgePolicy::update(ArmId arm, double reward) {
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the set");
  require(std::isfinite(reward), ErrorCode::NonFinite, "reward must be a finite number");
  // Like features (ArmSet::kMaxMagnitude): larger rewards would overflow b = sum r x, and the policy
  // could then no longer select.
  require(std::fabs(reward) <= ArmSet::kMaxMagnitude, ErrorCode::InvalidArgument, "reward must be at most 1e15 in magnitude");
  ridge_.update(modelFeatures(arms_.featuresOf(arm)), modelReward(reward));
  ++updates_;
}

Json RidgePolicy::stats() const {
  Json result = extraStats();
  result["type"] = type();
  result["innerProducts"] = innerProducts_ + indexInnerProducts();
  result["policyInnerProducts"] = innerProducts_;
  result["indexInnerProducts"] = indexInnerProducts();
  result["selections"] = selections_;
  result["updates"] = updates_;
  result["arms"] = arms_.size();
  return result;
}

double RidgePolicy::adaptiveRadius(double failure) const {
  if (fixedBeta_) return beta_;
  const double logDetRatio = ridge_.logDetGram() - ridge_.dim() * deterministic::log(ridge_.lambda());
  const double radicand = 2.0 * deterministic::log(1.0 / failure) + std::max(0.0, logDetRatio);
  return noise_ * std::sqrt(radicand) + std::sqrt(ridge_.lambda()) * bound_;
}

double RidgePolicy::horizonRadius(double failure, double featureBound) const {
  if (fixedBeta_) return beta_;
  const double d = ridge_.dim();
  const double growth = static_cast<double>(horizon_) * featureBound * featureBound / (ridge_.lambda() * d);
  const double radicand = 2.0 * deterministic::log(1.0 / failure) + d * deterministic::log(1.0 + growth);
  return noise_ * std::sqrt(radicand) + std::sqrt(ridge_.lambda()) * bound_;
}

}  // namespace sublinear
