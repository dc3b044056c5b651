#include "sublinear/sim/cls_trial.hpp"

#include <chrono>

#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/cls/clustered_environment.hpp"
#include "sublinear/cls/promotion_environment.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/type_registry.hpp"

namespace sublinear {

namespace {
using Clock = std::chrono::steady_clock;

// Derived seeds so that the environment and the policy draw from independent streams.
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t salt) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (salt + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) & 0x1fffffffffffffULL;  // JSON-safe
}

// The combinatorial linear environments, one entry a type (its options are the "environment" table
// of that type).
struct ClsEnvironmentType {
  std::string type;
  std::unique_ptr<ClsEnvironment> (*make)(const Json& options, std::uint64_t seed);
};

template <class Environment>
std::unique_ptr<ClsEnvironment> makeClsEnvironment(const Json& options, std::uint64_t seed) {
  return std::make_unique<Environment>(options, seed);
}

const TypeRegistry<ClsEnvironmentType>& clsEnvironments() {
  static const TypeRegistry<ClsEnvironmentType> registry("environment", "not a combinatorial linear environment type", {
      {"clustered", &makeClsEnvironment<ClusteredEnvironment>},
      {"promotion", &makeClsEnvironment<PromotionEnvironment>},
  });
  return registry;
}

std::unique_ptr<ClsEnvironment> makeEnvironment(const Json& options, std::uint64_t seed) {
  requireObject(options, "environment");
  return clsEnvironments().at(readString(options, "type", "")).make(options, seed);
}

double bestExpected(const ClsEnvironment& environment) {
  const ArmFeatures arms = environment.arms();
  std::vector<double> means(arms.count());
  for (std::size_t row = 0; row < means.size(); ++row) means[row] = environment.expectedReward(static_cast<Id>(row));
  double best = 0.0;
  for (const Id row : SuperArmOracle::select(means, environment.constraint())) best += means[row];
  return best;
}
}  // namespace

ClsTrial::ClsTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  requireObject(policy, "policy");
  // Both built here, so that a bad config fails before the runner starts; setup() only does the
  // policy's timed preprocessing (registering fixed arms, building the index).
  environment_ = makeEnvironment(environment, mixSeed(seed, 1));
  SuperArmOracle::validate(environment_->constraint(), environment_->arms().count());
  Json options = policy.is_object() ? policy : Json::object();
  options["dim"] = environment_->dim();
  if (!options.contains("seed")) options["seed"] = mixSeed(seed, 2);
  // Block features (promotion): keep V as its diagonal blocks, O(d^2) per observation instead of O((dM)^2).
  if (!options.contains("blocks")) options["blocks"] = environment_->arms().blockCount();
  policy_ = makeClsPolicy(options);
  useFixedArms_ = environment_->fixedArms() && options.contains("index") && !options["index"].is_null();
}

void ClsTrial::setup(TrialClock& clock) {
  const auto start = Clock::now();
  if (useFixedArms_) {
    const ArmFeatures arms = environment_->arms();
    std::vector<double> dense(arms.count() * arms.dim());
    for (std::size_t row = 0; row < arms.count(); ++row) {
      const Vector x = arms.vector(row);
      std::copy(x.data(), x.data() + x.size(), dense.data() + row * arms.dim());
    }
    policy_->setArms(dense.data(), dense.size());
  }
  clock.setup += secondsSince(start);
  if (environment_->fixedArms()) fixedBest_ = bestExpected(*environment_);
}

RoundOutcome ClsTrial::playRound(std::int64_t, TrialClock& clock) {
  environment_->beginRound();
  const SuperArmConstraint& constraint = environment_->constraint();
  auto start = Clock::now();
  const std::vector<Id> chosen =
      useFixedArms_ ? policy_->selectFromArms(constraint) : policy_->select(environment_->arms(), constraint);
  clock.select += secondsSince(start);

  RoundOutcome outcome;
  std::vector<double> rewards(chosen.size());
  double chosenExpected = 0.0;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    rewards[i] = environment_->drawReward(chosen[i]);
    outcome.reward += rewards[i];
    chosenExpected += environment_->expectedReward(chosen[i]);
  }
  if (environment_->fixedArms() && environment_->meanChanges() != bestAtChanges_) {
    // The means moved (a drifting environment): regret is against the round's best super arm.
    fixedBest_ = bestExpected(*environment_);
    bestAtChanges_ = environment_->meanChanges();
  }
  const double best = environment_->fixedArms() ? fixedBest_ : bestExpected(*environment_);
  outcome.regret = best - chosenExpected;

  start = Clock::now();
  policy_->update(chosen.data(), chosen.size(), rewards.data(), rewards.size());
  clock.update += secondsSince(start);
  return outcome;
}

std::uint64_t ClsTrial::innerProducts() const {
  return policy_ ? policy_->stats()["innerProducts"].get<std::uint64_t>() : 0;
}

std::unique_ptr<Trial> makeClsTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  return std::make_unique<ClsTrial>(environment, policy, seed);
}

}  // namespace sublinear
