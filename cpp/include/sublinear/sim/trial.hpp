#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/options.hpp"

namespace sublinear {

// Wall-clock seconds spent in the policy, split the way the papers report them.
struct TrialClock {
  double setup = 0.0;   // preprocessing: building indexes over the initial arms
  double select = 0.0;  // choosing arms
  double update = 0.0;  // learning from the feedback
};

inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one round produced: the reward observed and the (expected) regret against the best choice
// available in that round.
struct RoundOutcome {
  double reward = 0.0;
  double regret = 0.0;
};

// One run of one policy on one environment, for one seed: the unit simulate() drives. Each
// problem family (linear, matroid, combinatorial linear, MAB-BP) implements it; the runner in
// sim/simulate records, times the whole loop and reports progress.
class Trial {
 public:
  virtual ~Trial() = default;
  // Builds the environment's initial state and the policy (timed into clock.setup).
  virtual void setup(TrialClock& clock) = 0;
  // Plays round t (1-based): select (timed into clock.select), environment feedback, update
  // (timed into clock.update), and any arm-set change the environment makes at this round.
  virtual RoundOutcome playRound(std::int64_t t, TrialClock& clock) = 0;
  // Inner products computed by the policy and its index so far.
  virtual std::uint64_t innerProducts() const = 0;
  // A trial of many users (one catalogue, a model per user): each user's cumulative regret so far,
  // or null for a trial of one policy.
  virtual const std::vector<double>* userRegrets() const { return nullptr; }
  // What the users cost, for the result's `users.memory` (null for a trial of one policy).
  virtual Json usersMemory() const { return nullptr; }
};

}  // namespace sublinear

namespace sublinear {

// Each problem family provides one of these; simulate() picks the family from the environment's
// `type` (linear/ratings -> linear, matroid -> matroid, clustered/promotion -> combinatorial linear).
// `environment` and `policy` are the objects of simulate()'s config; `seed` is the run's seed.
using TrialFactory = std::unique_ptr<Trial> (*)(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
