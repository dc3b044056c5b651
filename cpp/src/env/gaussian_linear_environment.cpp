#include "sublinear/env/gaussian_linear_environment.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {

double dot(const double* a, const double* b, int dim) {
  double sum = 0.0;
  for (int i = 0; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

void scaleToUnitNorm(double* x, int dim) {
  const double norm = std::sqrt(dot(x, x, dim));
  if (norm > 0.0) {
    for (int i = 0; i < dim; ++i) x[i] /= norm;
  }
}

const Json& changeOptions(const Json& options) {
  static const Json none = Json::object();
  if (!options.is_object() || !options.contains("change") || options["change"].is_null()) return none;
  const Json& change = options["change"];
  require(change.is_object(), ErrorCode::InvalidArgument, "option 'change' must be an object { every, add, remove }");
  return change;
}
}  // namespace

GaussianLinearEnvironment::GaussianLinearEnvironment(const Json& options, std::uint64_t instanceSeed,
                                                     std::uint64_t noiseSeed)
    : instance_(instanceSeed),
      noise_(noiseSeed),
      noiseDeviation_(readOption(option_groups::linearEnvironment(), options, "noise")),
      normalize_(readBoolOption(option_groups::linearEnvironment(), options, "normalize")),
      changeEvery_(readIntegerOption(option_groups::linearChange(), changeOptions(options), "every")),
      changeAdd_(static_cast<std::size_t>(readIntegerOption(option_groups::linearChange(), changeOptions(options), "add"))),
      changeRemove_(static_cast<std::size_t>(readIntegerOption(option_groups::linearChange(), changeOptions(options), "remove"))),
      initialArms_(static_cast<std::size_t>(readIntegerOption(option_groups::linearEnvironment(), options, "arms"))),
      arms_(static_cast<int>(readIntegerOption(option_groups::linearEnvironment(), options, "dim"))) {
  const int d = arms_.dim();
  // The features live in one dense block: keep it well inside the 4 GiB a wasm instance can address.
  require(static_cast<double>(initialArms_) * d <= 2.5e8, ErrorCode::InvalidArgument,
          "arms * dim must be at most 2.5e8 (the features of the arm set must fit in memory)");
  thetaStar_.resize(d);
  instance_.fillNormal(thetaStar_.data(), static_cast<std::size_t>(d));
  if (normalize_) scaleToUnitNorm(thetaStar_.data(), d);
  std::vector<double> x(static_cast<std::size_t>(d));
  for (std::size_t i = 0; i < initialArms_; ++i) {
    drawArm(x.data());
    addArm(x.data());
  }
}

void GaussianLinearEnvironment::drawArm(double* out) {
  instance_.fillNormal(out, static_cast<std::size_t>(arms_.dim()));
  if (normalize_) scaleToUnitNorm(out, arms_.dim());
}

void GaussianLinearEnvironment::addArm(const double* features) {
  arms_.add(nextId_++, features, dot(thetaStar_.data(), features, arms_.dim()));
}

double GaussianLinearEnvironment::drawReward(Id arm) {
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the environment's set");
  const double mean = arms_.expectedReward(arm);
  return noiseDeviation_ > 0.0 ? mean + noiseDeviation_ * noise_.normal() : mean;
}

ArmChange GaussianLinearEnvironment::changeAfterRound(std::int64_t t) {
  ArmChange change;
  if (changeEvery_ <= 0 || t % changeEvery_ != 0) return change;
  // Removal first, among the arms that were there, and never down to an empty set.
  change.removed = arms_.removeRandom(changeRemove_, changeAdd_ > 0 ? 0 : 1, instance_);
  const auto d = static_cast<std::size_t>(arms_.dim());
  change.addedFeatures.resize(changeAdd_ * d);
  for (std::size_t i = 0; i < changeAdd_; ++i) {
    double* x = change.addedFeatures.data() + i * d;
    drawArm(x);
    change.added.push_back(nextId_);
    addArm(x);
  }
  return change;
}

Json GaussianLinearEnvironment::describe() const {
  return Json{{"type", type()},
              {"dim", arms_.dim()},
              {"initialArms", initialArms_},
              {"arms", arms_.size()},
              {"noise", noiseDeviation_},
              {"normalize", normalize_}};
}

}  // namespace sublinear
