#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "sublinear/env/linear_environment.hpp"
#include "sublinear/linear/linear_policy.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// One run of a linear policy (LinUCB, LinTS, LinearElim, SubElim, SubTS) on a linear-family
// environment ('linear', 'ratings'). Setup builds the environment (not timed: it is the world, not
// the learner), then the policy and its indexes over the initial arms (timed: preprocessing).
// A round times select and update separately; the arm changes the environment makes after the
// round are passed to the policy (removeArms, then addArms) and timed into update, since keeping
// the indexes current is the policy's maintenance work.
class LinearTrial : public Trial {
 public:
  using EnvironmentMaker = std::function<std::unique_ptr<LinearEnvironment>()>;
  using PolicyMaker = std::function<std::unique_ptr<LinearPolicy>(int dim)>;

  LinearTrial(EnvironmentMaker makeEnvironment, PolicyMaker makePolicy);

  void setup(TrialClock& clock) override;
  RoundOutcome playRound(std::int64_t t, TrialClock& clock) override;
  std::uint64_t innerProducts() const override;

  const LinearEnvironment& environment() const { return *environment_; }
  const LinearPolicy& policy() const { return *policy_; }

 private:
  EnvironmentMaker makeEnvironment_;
  PolicyMaker makePolicy_;
  std::unique_ptr<LinearEnvironment> environment_;
  std::unique_ptr<LinearPolicy> policy_;
};

// The TrialFactory of the linear family: the environment from makeLinearEnvironment, the policy
// from makeLinearPolicy(dim, policy + { horizon, seed }) where the policy's seed defaults to one
// derived from `seed`. The config's `horizon` must be present in `environment["horizon"]` or
// `policy["horizon"]` (simulate() puts it in both).
std::unique_ptr<Trial> makeLinearTrial(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
