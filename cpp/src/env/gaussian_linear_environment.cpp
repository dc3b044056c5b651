#include "sublinear/env/gaussian_linear_environment.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/env/change_options.hpp"
#include "sublinear/env/env_option_tables.hpp"
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
  setUpDrift(options, instanceSeed);
}

void GaussianLinearEnvironment::setUpDrift(const Json& options, std::uint64_t instanceSeed) {
  if (!isGiven(options, "drift")) return;
  const Json& drift = options["drift"];
  require(drift.is_object(), ErrorCode::InvalidArgument, "option 'drift' must be an object { kind, every, period }");
  const std::string kind = readStringOption(option_groups::linearDrift(), drift, "kind", "drift.");
  driftKind_ = kind == "rotate" ? DriftKind::Rotate : DriftKind::Switch;
  driftEvery_ = readIntegerOption(option_groups::linearDrift(), drift, "every");
  driftPeriod_ = readIntegerOption(option_groups::linearDrift(), drift, "period");
  // One user: the shared theta* is the user's, so that every round reads the drifting theta.
  if (userThetas_.empty()) {
    userThetas_.assign(1, thetaStar_);
    userBest_.assign(1, NAN);
  }
  const std::size_t users = userThetas_.size();
  require(static_cast<double>(users) * arms_.dim() <= 1.25e8, ErrorCode::InvalidArgument,
          "users * dim must be at most 1.25e8 with drift (two tastes a user must fit in memory)");
  constexpr std::uint64_t kDriftPurpose = 13;
  Random stream(deriveSeed(instanceSeed, kDriftPurpose));
  const int d = arms_.dim();
  userBase_ = userThetas_;
  userAxis_.resize(users);
  userPhase_.resize(users);
  const std::int64_t cycle = driftKind_ == DriftKind::Switch ? driftEvery_ : driftPeriod_;
  for (std::size_t u = 0; u < users; ++u) {
    Vector axis(d);
    stream.fillNormal(axis.data(), static_cast<std::size_t>(d));
    const Vector& base = userBase_[u];
    const double baseNorm = base.norm();
    if (baseNorm > 0.0 && d > 1) axis -= (axis.dot(base) / (baseNorm * baseNorm)) * base;
    const double axisNorm = axis.norm();
    userAxis_[u] = axisNorm > 0.0 ? Vector(axis * (baseNorm / axisNorm)) : Vector(-base);
    userPhase_[u] = users > 1 ? static_cast<std::int64_t>(stream.uniformInt(static_cast<std::uint64_t>(cycle))) : 0;
  }
  driftingThetas_ = userThetas_;
  thetaRound_.assign(users, 0);
  userRounds_.assign(users, 0);
}

const Vector& GaussianLinearEnvironment::thetaOf(std::size_t user) const {
  if (driftKind_ != DriftKind::Rotate) return userThetas_[user];
  const std::int64_t round = userRounds_[user];
  if (thetaRound_[user] == round) return driftingThetas_[user];
  constexpr double kTwoPi = 6.283185307179586;
  const double angle = kTwoPi * static_cast<double>((round + userPhase_[user]) % driftPeriod_) / static_cast<double>(driftPeriod_);
  driftingThetas_[user] = std::cos(angle) * userBase_[user] + std::sin(angle) * userAxis_[user];
  thetaRound_[user] = round;
  userBest_[user] = NAN;
  return driftingThetas_[user];
}

void GaussianLinearEnvironment::setUser(std::size_t user) {
  if (user >= userCount()) fail(ErrorCode::InvalidArgument, "user " + std::to_string(user) + " is out of range");
  user_ = user;
}

double GaussianLinearEnvironment::userMean(Id arm) const {
  if (userThetas_.empty()) return arms_.expectedReward(arm);
  const Vector& theta = driftKind_ == DriftKind::Rotate ? thetaOf(user_) : userThetas_[user_];
  return dot(theta.data(), arms_.features(arm), arms_.dim());
}

double GaussianLinearEnvironment::regret(Id arm) const {
  if (userThetas_.empty()) return LinearEnvironment::regret(arm);
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the environment's set");
  // A rotating theta moves every round: bring it (and its best, now unknown) to this round first.
  if (driftKind_ == DriftKind::Rotate) thetaOf(user_);
  double& best = userBest_[user_];
  if (std::isnan(best)) {
    best = -INFINITY;
    const Vector& theta = driftKind_ == DriftKind::Rotate ? thetaOf(user_) : userThetas_[user_];
    for (const Id id : arms_.ids()) best = std::max(best, dot(theta.data(), arms_.features(id), arms_.dim()));
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
  // The user just served has had one more round of its own: its taste moves on its own schedule.
  if (driftKind_ != DriftKind::None) {
    const std::int64_t local = ++userRounds_[user_] + userPhase_[user_];
    if (driftKind_ == DriftKind::Switch && local % driftEvery_ == 0) {
      userThetas_[user_] = (local / driftEvery_) % 2 == 1 ? userAxis_[user_] : userBase_[user_];
      userBest_[user_] = NAN;
    }
  }
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
  if (userThetas_.size() > 1) {
    description["users"] = userThetas_.size();
    description["spread"] = spread_;
  }
  if (driftKind_ != DriftKind::None) {
    description["drift"] = driftKind_ == DriftKind::Switch ? Json{{"kind", "switch"}, {"every", driftEvery_}}
                                                           : Json{{"kind", "rotate"}, {"period", driftPeriod_}};
  }
  return description;
}

}  // namespace sublinear
