#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/type_registry.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// One run (one seed) of simulate(): the cumulative sums at the recorded steps, the timings and
// the work counter.
struct SimulationRun {
  std::uint64_t seed = 0;
  std::vector<std::uint32_t> t;            // recorded steps: recordEvery, 2 recordEvery, ..., and the horizon
  std::vector<double> cumulativeRegret;    // aligned with t
  std::vector<double> cumulativeReward;
  TrialClock clock;                        // setup, select, update seconds
  double totalSeconds = 0.0;               // the whole run, environment included
  std::uint64_t innerProducts = 0;
  // Many users (environment.users > 1): at each recorded step, the median and quartiles over users
  // of each user's cumulative regret so far; and what the users cost. Empty / null for one user.
  std::vector<double> userRegretMedian;
  std::vector<double> userRegretLowerQuartile;
  std::vector<double> userRegretUpperQuartile;
  Json users;
};

struct SimulationResult {
  // Whether the config gave `seeds` (an array): then the JS result is { runs, t, mean, std }.
  bool multipleSeeds = false;
  std::vector<SimulationRun> runs;

  // Mean and sample standard deviation over the runs, at each recorded step (0 for one run).
  std::vector<double> meanOf(std::vector<double> SimulationRun::*series) const;
  std::vector<double> standardDeviationOf(std::vector<double> SimulationRun::*series) const;
  // The JSON the native CLI prints: one run's fields at the top level for `seed`; for `seeds`
  // { runs: [...], t, mean: { cumulativeRegret, cumulativeReward }, std: { ... } }.
  Json toJson() const;
};

// One environment type of simulate(): its name (its option table is optionTable("environment",
// type)) and the TrialFactory that serves it.
struct TrialFamily {
  std::string type;
  TrialFactory factory;
  // Whether the family's policies read a horizon: simulate() gives them its own unless the policy
  // config has one. Others (combinatorial linear policies, BoundedME, MIPS indexes) get none, since
  // options are strict and they would refuse the key.
  bool policyTakesHorizon;
};
// Every environment type simulate() runs.
TypeRegistry<TrialFamily>& environmentRegistry();

// Runs simulate()'s config { environment, policy, horizon, seed | seeds, recordEvery }
// (validated before anything runs). onProgress receives the fraction of all rounds of all runs
// done, at most about 100 times (each time it advanced by >= 1%), ending with exactly 1.
// recordEvery defaults to max(1, horizon / 1000).
SimulationResult simulate(const Json& config, const std::function<void(double)>& onProgress = {});

}  // namespace sublinear
