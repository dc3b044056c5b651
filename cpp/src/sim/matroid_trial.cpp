#include "sublinear/sim/matroid_trial.hpp"

#include <chrono>

#include "sublinear/core/error.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"

namespace sublinear {

MatroidTrial::MatroidTrial(const Json& environment, const Json& policy, std::uint64_t seed)
    : environmentOptions_(environment.is_null() ? Json::object() : environment),
      policyOptions_(policy.is_null() ? Json::object() : policy),
      seed_(seed),
      rewards_(seed) {
  requireObject(environmentOptions_, "environment");
  requireObject(policyOptions_, "policy");
}

void MatroidTrial::setup(TrialClock& clock) {
  environment_ = std::make_unique<MatroidEnvironment>(environmentOptions_, seed_);
  Random seeds = rewards_.split();
  Json options = policyOptions_;
  const std::string type = readString(options, "type", "cucb");
  options.erase("type");
  if (!options.contains("a")) options["a"] = environment_->rewardLow();
  if (!options.contains("b")) options["b"] = environment_->rewardHigh();
  if (!options.contains("seed")) options["seed"] = seeds.nextU64() >> 11;  // within 2^53
  const auto start = std::chrono::steady_clock::now();
  policy_ = makeSemiBanditPolicy(type, environment_->matroid(), options);
  clock.setup += secondsSince(start);
}

RoundOutcome MatroidTrial::playRound(std::int64_t round, TrialClock& clock) {
  require(policy_ != nullptr, ErrorCode::InvalidArgument, "setup() must run before playRound()");
  environment_->atRound(round);
  auto start = std::chrono::steady_clock::now();
  const std::vector<Id> basis = policy_->select();
  clock.select += secondsSince(start);
  observed_.resize(basis.size());
  RoundOutcome outcome;
  for (std::size_t i = 0; i < basis.size(); ++i) {
    observed_[i] = environment_->draw(basis[i], rewards_);
    outcome.reward += observed_[i];
  }
  outcome.regret = environment_->optimalValue() - environment_->expectedValue(basis);
  start = std::chrono::steady_clock::now();
  policy_->update(basis.data(), basis.size(), observed_.data(), observed_.size());
  clock.update += secondsSince(start);
  return outcome;
}

std::unique_ptr<Trial> makeMatroidTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  return std::make_unique<MatroidTrial>(environment, policy, seed);
}

}  // namespace sublinear
