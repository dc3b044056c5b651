#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sublinear/env/environment_arms.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// How the arm set changed after a round: what the policy must be told with addArms/removeArms.
struct ArmChange {
  std::vector<Id> added;
  std::vector<double> addedFeatures;  // added.size() * dim, row-major
  std::vector<Id> removed;
  bool empty() const { return added.empty() && removed.empty(); }
};

// A linear-family bandit environment (one arm per step): a changing set of arms with features, an
// expected reward per arm, noisy reward draws and the regret of a choice. The environment owns two
// random streams: the instance (parameter, arms, arm changes) and the feedback noise, so that a
// fixed instance can be replayed with fresh noise.
class LinearEnvironment {
 public:
  virtual ~LinearEnvironment() = default;

  // The `environment.type` of simulate()'s config ("linear", "ratings").
  virtual std::string type() const = 0;
  int dim() const { return arms().dim(); }
  // The current arms (ids, features, expected rewards, best expected reward).
  virtual const EnvironmentArms& arms() const = 0;

  // A reward drawn for pulling `arm` (UNKNOWN_ID if it is not in the set).
  virtual double drawReward(Id arm) = 0;
  // The (expected) regret of choosing `arm` now; >= 0. The default is the best expected reward of
  // the current set minus the arm's expected reward.
  virtual double regret(Id arm) const;
  // The regret of showing the distinct `arms` together (a slate, each one rewarded): the sum of the
  // |arms| best expected rewards minus the shown arms' sum; >= 0 up to rounding. INVALID_ARGUMENT
  // where the environment's regret is not that of expected rewards (ratings' 'paper' regret, many users).
  virtual double slateRegret(const std::vector<Id>& shownArms) const;
  bool supportsSlates() const { return userCount() == 1 && type() == "linear"; }
  // Applies the arm changes scheduled after round t (1-based) and returns them.
  virtual ArmChange changeAfterRound(std::int64_t t) = 0;
  // What the environment is, for the result: type, dim, arm counts, and family-specific facts.
  virtual Json describe() const = 0;

  // Environments with many users (each with their own taste) over the same arms: how many, and
  // which one the next drawReward/regret are for. One user unless the environment says otherwise.
  virtual std::size_t userCount() const { return 1; }
  virtual void setUser(std::size_t /*user*/) {}
};

}  // namespace sublinear
