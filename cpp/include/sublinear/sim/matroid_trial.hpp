#pragma once

#include <cstdint>
#include <memory>

#include "sublinear/matroid/matroid_environment.hpp"
#include "sublinear/matroid/semi_bandit_policy.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// One run of a matroid semi-bandit policy on a MatroidEnvironment. Regret per round is the optimal
// basis's expected reward minus the played basis's; the reward is the sum of the observed rewards.
// The policy's a and b default to the environment's; its seed defaults to one drawn from `seed`.
class MatroidTrial : public Trial {
 public:
  MatroidTrial(const Json& environment, const Json& policy, std::uint64_t seed);
  void setup(TrialClock& clock) override;
  RoundOutcome playRound(std::int64_t t, TrialClock& clock) override;
  std::uint64_t innerProducts() const override { return 0; }

  const MatroidEnvironment& environment() const { return *environment_; }
  const SemiBanditPolicy& policy() const { return *policy_; }

 private:
  Json environmentOptions_;
  Json policyOptions_;
  std::uint64_t seed_;
  Random rewards_;
  std::unique_ptr<MatroidEnvironment> environment_;
  std::unique_ptr<SemiBanditPolicy> policy_;
  std::vector<double> observed_;
};

// The TrialFactory for environment type "matroid" (policy types cucb, faster-cucb, cts).
std::unique_ptr<Trial> makeMatroidTrial(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
