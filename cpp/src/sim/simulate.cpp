#include "sublinear/sim/simulate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "sublinear/core/error.hpp"
#include "sublinear/core/memory_budget.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/sim/cls_trial.hpp"
#include "sublinear/sim/linear_trial.hpp"
#include "sublinear/sim/mab_bp_trial.hpp"
#include "sublinear/sim/matroid_trial.hpp"
#include "sublinear/sim/mips_trial.hpp"
#include "sublinear/sim/sim_option_tables.hpp"

namespace sublinear {

TypeRegistry<TrialFamily>& environmentRegistry() {
  static TypeRegistry<TrialFamily> families("environment", "unknown or unsupported environment type", {
      {"linear", &makeLinearTrial, true},
      {"ratings", &makeLinearTrial, true},
      {"matroid", &makeMatroidTrial, true},
      {"clustered", &makeClsTrial, false},
      {"promotion", &makeClsTrial, false},
      {"mab-bp", &makeMabBpTrial, false},
      {"mips", &makeMipsTrial, false},
  });
  return families;
}

namespace {
constexpr std::size_t kMaxSeeds = 100000;

// The environment's family, once its keys passed its option table.
const TrialFamily& familyOf(const Json& environment) {
  requireObject(environment, "environment");
  require(environment.is_object() && environment.contains("type"), ErrorCode::InvalidArgument,
          "environment option 'type' is required");
  return environmentRegistry().checked(readString(environment, "type", ""), environment);
}

std::vector<std::uint64_t> seedsOf(const Json& config, bool& multiple) {
  const bool hasSeed = config.contains("seed") && !config["seed"].is_null();
  const bool hasSeeds = config.contains("seeds") && !config["seeds"].is_null();
  require(!(hasSeed && hasSeeds), ErrorCode::InvalidArgument, "give either 'seed' or 'seeds', not both");
  multiple = hasSeeds;
  if (!hasSeeds) return {readSeedOption(option_groups::simulation(), config)};
  const Json& seeds = config["seeds"];
  require(seeds.is_array() && !seeds.empty() && seeds.size() <= kMaxSeeds, ErrorCode::InvalidArgument,
          "option 'seeds' must be a non-empty array of at most 100000 seeds");
  std::vector<std::uint64_t> out;
  for (const Json& seed : seeds) {
    const Json wrapped = {{"seed", seed}};
    require(seed.is_number(), ErrorCode::InvalidArgument, "option 'seeds' must hold integers in [0, 2^53-1]");
    out.push_back(readSeed(wrapped, 0));
  }
  return out;
}

// The p-quantile of `values` (0 <= p <= 1), interpolated linearly between order statistics (the
// usual "type 7" rule of R and NumPy); `values` is reordered.
double quantileOf(std::vector<double>& values, double p) {
  std::sort(values.begin(), values.end());
  const double position = p * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  if (below + 1 >= values.size()) return values.back();
  return values[below] + (position - static_cast<double>(below)) * (values[below + 1] - values[below]);
}

// Reports progress only when it advanced by at least 1% (and always the end), so a callback into
// JavaScript costs nothing measurable.
class ProgressReporter {
 public:
  ProgressReporter(const std::function<void(double)>& callback, double totalRounds)
      : callback_(callback), totalRounds_(totalRounds) {}
  void roundsDone(double done) {
    if (!callback_ || done < nextReport_) return;
    const double fraction = done >= totalRounds_ ? 1.0 : done / totalRounds_;
    callback_(fraction);
    nextReport_ = fraction >= 1.0 ? INFINITY : std::min(done + totalRounds_ / 100.0, totalRounds_);
  }

 private:
  const std::function<void(double)>& callback_;
  double totalRounds_;
  double nextReport_ = totalRounds_ / 100.0;
};
}  // namespace

SimulationResult simulate(const Json& config, const std::function<void(double)>& onProgress) {
  using Clock = std::chrono::steady_clock;
  require(config.is_object(), ErrorCode::InvalidArgument, "the simulation config must be an object");
  optionTable("simulation", "simulate").check(config);
  require(config.contains("environment") && config["environment"].is_object(), ErrorCode::InvalidArgument,
          "option 'environment' must be an object with a 'type'");
  require(config.contains("policy") && config["policy"].is_object(), ErrorCode::InvalidArgument,
          "option 'policy' must be an object with a 'type'");
  require(config.contains("horizon"), ErrorCode::InvalidArgument, "option 'horizon' (the number of rounds) is required");
  const OptionGroup& specs = option_groups::simulation();
  const std::int64_t horizon = readIntegerOption(specs, config, "horizon");
  const std::int64_t recordEvery = readIntegerOption(specs, config, "recordEvery", std::max<std::int64_t>(1, horizon / 1000));
  const TrialFamily& family = familyOf(config["environment"]);
  const TrialFactory factory = family.factory;
  SimulationResult result;
  const std::vector<std::uint64_t> seeds = seedsOf(config, result.multipleSeeds);

  // Both configs learn the horizon: policies size confidence radii with it (those of the families
  // whose policies read one), and a ratings environment schedules the movies' arrivals with it.
  Json environment = config["environment"];
  Json policy = config["policy"];
  environment["horizon"] = horizon;
  const std::int64_t slate = readIntegerOption(specs, config, "slate");
  if (slate > 0) {
    require(family.factory == &makeLinearTrial, ErrorCode::InvalidArgument,
            "option 'slate' is for the linear policies (environments 'linear' and 'ratings')");
    environment["slate"] = slate;
  }
  if (family.policyTakesHorizon && !policy.contains("horizon")) policy["horizon"] = horizon;

  const double totalRounds = static_cast<double>(horizon) * static_cast<double>(seeds.size());
  ProgressReporter progress(onProgress, totalRounds);
  const std::uint64_t recordCount = static_cast<std::uint64_t>(horizon / recordEvery) + (horizon % recordEvery != 0 ? 1 : 0);
  // Per record and seed: t (4 bytes), cumulative regret and reward (8 each); the mean and std add more.
  requireAddressable(recordCount * seeds.size(), 20, "recording " + std::to_string(recordCount) + " points for " +
                                                         std::to_string(seeds.size()) + " seed(s) (horizon / recordEvery)");
  const auto records = static_cast<std::size_t>(recordCount);
  double roundsBefore = 0.0;
  for (const std::uint64_t seed : seeds) {
    SimulationRun run;
    run.seed = seed;
    run.t.reserve(records);
    run.cumulativeRegret.reserve(records);
    run.cumulativeReward.reserve(records);
    const auto start = Clock::now();
    std::unique_ptr<Trial> trial = factory(environment, policy, seed);
    trial->setup(run.clock);
    double regret = 0.0;
    double reward = 0.0;
    // Progress is checked every `checkEvery` rounds only: cheaper than a comparison per round.
    const std::int64_t checkEvery = std::max<std::int64_t>(1, static_cast<std::int64_t>(totalRounds / 1000.0));
    for (std::int64_t t = 1; t <= horizon; ++t) {
      const RoundOutcome outcome = trial->playRound(t, run.clock);
      regret += outcome.regret;
      reward += outcome.reward;
      if (t % recordEvery == 0 || t == horizon) {
        run.t.push_back(static_cast<std::uint32_t>(t));
        run.cumulativeRegret.push_back(regret);
        run.cumulativeReward.push_back(reward);
        if (const std::vector<double>* users = trial->userRegrets()) {
          std::vector<double> values(*users);
          run.userRegretLowerQuartile.push_back(quantileOf(values, 0.25));
          run.userRegretMedian.push_back(quantileOf(values, 0.5));
          run.userRegretUpperQuartile.push_back(quantileOf(values, 0.75));
        }
      }
      if (t % checkEvery == 0 || t == horizon) progress.roundsDone(roundsBefore + static_cast<double>(t));
    }
    roundsBefore += static_cast<double>(horizon);
    run.innerProducts = trial->innerProducts();
    if (trial->userRegrets() != nullptr) {
      run.users = Json{{"count", trial->userRegrets()->size()},
                       {"regret", {{"median", run.userRegretMedian}, {"q1", run.userRegretLowerQuartile}, {"q3", run.userRegretUpperQuartile}}},
                       {"memory", trial->usersMemory()}};
    }
    run.totalSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.runs.push_back(std::move(run));
  }
  return result;
}

std::vector<double> SimulationResult::meanOf(std::vector<double> SimulationRun::*series) const {
  std::vector<double> mean;
  if (runs.empty()) return mean;
  mean.assign((runs.front().*series).size(), 0.0);
  for (const SimulationRun& run : runs) {
    for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += (run.*series)[i];
  }
  for (double& value : mean) value /= static_cast<double>(runs.size());
  return mean;
}

std::vector<double> SimulationResult::standardDeviationOf(std::vector<double> SimulationRun::*series) const {
  const std::vector<double> mean = meanOf(series);
  std::vector<double> deviation(mean.size(), 0.0);
  if (runs.size() < 2) return deviation;
  for (const SimulationRun& run : runs) {
    for (std::size_t i = 0; i < mean.size(); ++i) {
      const double difference = (run.*series)[i] - mean[i];
      deviation[i] += difference * difference;
    }
  }
  for (double& value : deviation) value = std::sqrt(value / static_cast<double>(runs.size() - 1));
  return deviation;
}

namespace {
Json runToJson(const SimulationRun& run) {
  return Json{{"seed", run.seed},
              {"t", run.t},
              {"cumulativeRegret", run.cumulativeRegret},
              {"cumulativeReward", run.cumulativeReward},
              {"seconds",
               {{"setup", run.clock.setup}, {"select", run.clock.select}, {"update", run.clock.update}, {"total", run.totalSeconds}}},
              {"innerProducts", run.innerProducts}};
}

Json runToJsonWithUsers(const SimulationRun& run) {
  Json out = runToJson(run);
  if (!run.users.is_null()) out["users"] = run.users;
  return out;
}
}  // namespace

Json SimulationResult::toJson() const {
  if (!multipleSeeds && runs.size() == 1) return runToJsonWithUsers(runs.front());
  Json out;
  out["runs"] = Json::array();
  for (const SimulationRun& run : runs) out["runs"].push_back(runToJsonWithUsers(run));
  out["t"] = runs.empty() ? std::vector<std::uint32_t>{} : runs.front().t;
  out["mean"] = {{"cumulativeRegret", meanOf(&SimulationRun::cumulativeRegret)},
                 {"cumulativeReward", meanOf(&SimulationRun::cumulativeReward)}};
  out["std"] = {{"cumulativeRegret", standardDeviationOf(&SimulationRun::cumulativeRegret)},
                {"cumulativeReward", standardDeviationOf(&SimulationRun::cumulativeReward)}};
  return out;
}

}  // namespace sublinear
