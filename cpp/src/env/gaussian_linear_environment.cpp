#include "sublinear/env/gaussian_linear_environment.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/env/change_options.hpp"
#include "sublinear/env/environment_factory.hpp"

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
  const auto users = static_cast<std::size_t>(readIntegerOption(option_groups::linearEnvironment(), options, "users"));
  spread_ = readOption(option_groups::linearEnvironment(), options, "spread");
  if (users > 1) {
    require(static_cast<double>(users) * d <= 2.5e8, ErrorCode::InvalidArgument,
            "users * dim must be at most 2.5e8 (every user's theta must fit in memory)");
    constexpr std::uint64_t kUsersPurpose = 11;
    Random userStream(deriveSeed(instanceSeed, kUsersPurpose));
    const double scale = spread_ * thetaStar_.norm() / std::sqrt(static_cast<double>(d));
    userThetas_.assign(users, thetaStar_);
    Vector z(d);
    for (Vector& theta : userThetas_) {
      userStream.fillNormal(z.data(), static_cast<std::size_t>(d));
      theta += scale * z;
    }
    userBest_.assign(users, NAN);
  }
}

void GaussianLinearEnvironment::setUser(std::size_t user) {
  if (user >= userCount()) fail(ErrorCode::InvalidArgument, "user " + std::to_string(user) + " is out of range");
  user_ = user;
}

double GaussianLinearEnvironment::userMean(Id arm) const {
  if (userThetas_.empty()) return arms_.expectedReward(arm);
  return dot(userThetas_[user_].data(), arms_.features(arm), arms_.dim());
}

double GaussianLinearEnvironment::regret(Id arm) const {
  if (userThetas_.empty()) return LinearEnvironment::regret(arm);
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the environment's set");
  double& best = userBest_[user_];
  if (std::isnan(best)) {
    best = -INFINITY;
    for (const Id id : arms_.ids()) best = std::max(best, dot(userThetas_[user_].data(), arms_.features(id), arms_.dim()));
  }
  // The best is the same dot product of the same doubles as the arm's mean: the difference is >= 0.
  return best - userMean(arm);
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
  const double mean = userMean(arm);
  return noiseDeviation_ > 0.0 ? mean + noiseDeviation_ * noise_.normal() : mean;
}

ArmChange GaussianLinearEnvironment::changeAfterRound(std::int64_t t) {
  ArmChange change;
  if (changeEvery_ <= 0 || t % changeEvery_ != 0) return change;
  std::fill(userBest_.begin(), userBest_.end(), NAN);
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
  Json description{{"type", type()},
              {"dim", arms_.dim()},
              {"initialArms", initialArms_},
              {"arms", arms_.size()},
              {"noise", noiseDeviation_},
              {"normalize", normalize_}};
  if (!userThetas_.empty()) {
    description["users"] = userThetas_.size();
    description["spread"] = spread_;
  }
  return description;
}

}  // namespace sublinear
