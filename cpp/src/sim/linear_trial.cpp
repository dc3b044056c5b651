#include "sublinear/sim/linear_trial.hpp"

#include <chrono>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {

namespace {
using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

constexpr std::uint64_t kPolicyPurpose = 3;
}  // namespace

LinearTrial::LinearTrial(EnvironmentMaker makeEnvironment, PolicyMaker makePolicy)
    : makeEnvironment_(std::move(makeEnvironment)), makePolicy_(std::move(makePolicy)) {}

void LinearTrial::setup(TrialClock& clock) {
  environment_ = makeEnvironment_();
  const auto start = Clock::now();
  policy_ = makePolicy_(environment_->dim());
  const EnvironmentArms& arms = environment_->arms();
  if (!arms.empty()) {
    // The rows are contiguous in the environment, so they go to the policy in one call.
    const std::vector<Id>& ids = arms.ids();
    policy_->addArms(ids.data(), ids.size(), arms.features(ids.front()), ids.size() * static_cast<std::size_t>(arms.dim()));
  }
  clock.setup += secondsBetween(start, Clock::now());
}

RoundOutcome LinearTrial::playRound(std::int64_t t, TrialClock& clock) {
  const auto beforeSelect = Clock::now();
  const Id arm = policy_->select();
  const auto afterSelect = Clock::now();
  clock.select += secondsBetween(beforeSelect, afterSelect);
  RoundOutcome outcome;
  outcome.regret = environment_->regret(arm);
  outcome.reward = environment_->drawReward(arm);
  const auto beforeUpdate = Clock::now();
  policy_->update(arm, outcome.reward);
  const auto afterUpdate = Clock::now();
  clock.update += secondsBetween(beforeUpdate, afterUpdate);
  ArmChange change = environment_->changeAfterRound(t);
  if (!change.empty()) {
    const auto beforeChange = Clock::now();
    if (!change.removed.empty()) policy_->removeArms(change.removed.data(), change.removed.size());
    if (!change.added.empty()) {
      policy_->addArms(change.added.data(), change.added.size(), change.addedFeatures.data(), change.addedFeatures.size());
    }
    clock.update += secondsBetween(beforeChange, Clock::now());
  }
  return outcome;
}

std::uint64_t LinearTrial::innerProducts() const {
  if (!policy_) return 0;
  const Json stats = policy_->stats();
  const auto found = stats.find("innerProducts");
  return found != stats.end() && found->is_number() ? found->get<std::uint64_t>() : 0;
}

std::unique_ptr<Trial> makeLinearTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  requireObject(environment, "environment");
  requireObject(policy, "policy");
  const std::int64_t horizon = readInteger(policy, "horizon", readInteger(environment, "horizon", 0, 0, 1000000000000LL),
                                           0, 1000000000000LL);
  Json policyOptions = policy.is_object() ? policy : Json::object();
  if (!policyOptions.contains("seed") || policyOptions["seed"].is_null()) {
    // Keep the derived seed inside 2^53 so that it survives a trip through JavaScript numbers.
    policyOptions["seed"] = deriveSeed(seed, kPolicyPurpose) >> 11;
  }
  if (horizon > 0 && !policyOptions.contains("horizon")) policyOptions["horizon"] = horizon;
  return std::make_unique<LinearTrial>(
      [environment, horizon, seed] { return makeLinearEnvironment(environment, horizon, seed); },
      [policyOptions](int dim) {
        Json options = policyOptions;
        options["dim"] = dim;
        return makeLinearPolicy(dim, options);
      });
}

}  // namespace sublinear
