#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/sim/linear_trial.hpp"
#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

using sublinear::testing::expectError;

using namespace sublinear;

namespace simulate_test {
// A policy that plays a uniformly random arm and mirrors the arm set it is told about, so the test
// can compare it with the environment's.
class MirrorPolicy : public LinearPolicy {
 public:
  explicit MirrorPolicy(int dim) : dim_(dim), random_(1), zeros_(static_cast<std::size_t>(dim), 0.0) {}
  std::string type() const override { return "mirror"; }
  int dim() const override { return dim_; }
  std::size_t armCount() const override { return arms_.size(); }
  bool hasArm(Id id) const override { return arms_.count(id) != 0; }
  // The trial never asks for features; zeros of the right length keep the contract.
  const double* featuresOf(Id) const override { return zeros_.data(); }
  void addArms(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes*) override {
    EXPECT_EQ(features.length(), count * static_cast<std::size_t>(dim_));
    for (std::size_t i = 0; i < count; ++i) EXPECT_TRUE(arms_.insert(ids[i]).second);
  }
  void removeArms(const Id* ids, std::size_t count) override {
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(arms_.erase(ids[i]), 1u);
  }
  Id select(const ArmFilter&) override {
    auto it = arms_.begin();
    std::advance(it, static_cast<long>(random_.uniformInt(arms_.size())));
    return *it;
  }
  std::vector<Id> selectSlate(std::size_t, const ArmFilter& filter) override { return {select(filter)}; }
  void update(Id arm, double) override { EXPECT_TRUE(arms_.count(arm)); }
  // simulate() never decides: these only complete the interface.
  Decision decide(std::size_t, const ArmFilter& filter, bool) override { return Decision{1, {select(filter)}, {1.0}, {0.0}}; }
  void reward(std::uint64_t, const double*, std::size_t) override {}
  std::vector<std::pair<Id, double>> choiceDistribution(std::size_t, const ArmFilter& filter, std::size_t) override {
    return {{select(filter), 1.0}};
  }
  std::size_t eligibleCount(const ArmFilter&) const override { return arms_.size(); }
  Vector theta() const override { return Vector::Zero(dim_); }
  Json stats() const override { return Json{{"innerProducts", 7}}; }
  void forget(double /*factor*/) override {}
  void save(StateWriter&) const override {}
  void load(StateReader&) override {}
  const std::set<Id>& arms() const { return arms_; }

 private:
  int dim_;
  Random random_;
  std::vector<double> zeros_;
  std::set<Id> arms_;
};

Json linearConfig() {
  return Json::parse(R"({
    "environment": {"type": "linear", "dim": 4, "arms": 100, "change": {"every": 5, "add": 2, "remove": 1}},
    "policy": {"type": "lin-ucb"}, "horizon": 503, "seed": 4, "recordEvery": 50})");
}

TEST(LinearTrial, ThePolicyAlwaysHoldsTheEnvironmentsArms) {
  MirrorPolicy* policy = nullptr;
  const Json environmentOptions = Json::parse(R"({"type": "linear", "dim": 3, "arms": 30, "change": {"every": 2, "add": 1, "remove": 2}})");
  LinearTrial trial([&] { return makeLinearEnvironment(environmentOptions, 100, 9); },
                    [&](int dim) {
                      auto made = std::make_unique<MirrorPolicy>(dim);
                      policy = made.get();
                      return made;
                    });
  TrialClock clock;
  trial.setup(clock);
  ASSERT_NE(policy, nullptr);
  for (std::int64_t t = 1; t <= 100; ++t) {
    const RoundOutcome outcome = trial.playRound(t, clock);
    EXPECT_GE(outcome.regret, 0.0);
    const auto& ids = trial.environment().arms().ids();
    ASSERT_EQ(std::set<Id>(ids.begin(), ids.end()), policy->arms()) << "round " << t;
  }
  EXPECT_EQ(trial.innerProducts(), 7u);
  EXPECT_GE(clock.select, 0.0);
  EXPECT_GT(clock.setup + clock.select + clock.update, 0.0);
}

TEST(Simulate, RecordsEveryRecordEveryStepsAndTheHorizon) {
  const SimulationResult result = simulate(linearConfig());
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_FALSE(result.multipleSeeds);
  const SimulationRun& run = result.runs[0];
  std::vector<std::uint32_t> expected;
  for (std::uint32_t t = 50; t <= 503; t += 50) expected.push_back(t);
  expected.push_back(503);
  EXPECT_EQ(run.t, expected);
  EXPECT_EQ(run.cumulativeRegret.size(), expected.size());
  EXPECT_EQ(run.cumulativeReward.size(), expected.size());
  EXPECT_GT(run.innerProducts, 0u);
  EXPECT_GE(run.totalSeconds, run.clock.setup + run.clock.select + run.clock.update);
  const Json json = result.toJson();
  for (const char* key : {"t", "cumulativeRegret", "cumulativeReward", "seconds", "innerProducts", "seed"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  for (const char* key : {"setup", "select", "update", "total"}) EXPECT_TRUE(json["seconds"].contains(key)) << key;
}

TEST(Simulate, CumulativeRegretIsMonotoneAndRunsAreReproducible) {
  Json config = linearConfig();
  config["recordEvery"] = 1;
  const SimulationResult first = simulate(config);
  const SimulationResult second = simulate(config);
  const auto& regret = first.runs[0].cumulativeRegret;
  ASSERT_EQ(regret.size(), 503u);
  EXPECT_GE(regret[0], 0.0);
  for (std::size_t i = 1; i < regret.size(); ++i) ASSERT_GE(regret[i], regret[i - 1]) << "step " << i + 1;
  EXPECT_EQ(regret, second.runs[0].cumulativeRegret);
  EXPECT_EQ(first.runs[0].cumulativeReward, second.runs[0].cumulativeReward);
}

TEST(Simulate, ManySeedsGiveRunsWithMeanAndStandardDeviation) {
  Json config = linearConfig();
  config.erase("seed");
  config["seeds"] = {1, 2, 3};
  const SimulationResult result = simulate(config);
  ASSERT_EQ(result.runs.size(), 3u);
  EXPECT_TRUE(result.multipleSeeds);
  EXPECT_EQ(result.runs[1].seed, 2u);
  EXPECT_NE(result.runs[0].cumulativeRegret.back(), result.runs[1].cumulativeRegret.back());
  const auto mean = result.meanOf(&SimulationRun::cumulativeRegret);
  const auto deviation = result.standardDeviationOf(&SimulationRun::cumulativeRegret);
  const double a = result.runs[0].cumulativeRegret.back();
  const double b = result.runs[1].cumulativeRegret.back();
  const double c = result.runs[2].cumulativeRegret.back();
  const double m = (a + b + c) / 3;
  EXPECT_DOUBLE_EQ(mean.back(), m);
  EXPECT_DOUBLE_EQ(deviation.back(), std::sqrt(((a - m) * (a - m) + (b - m) * (b - m) + (c - m) * (c - m)) / 2));
  const Json json = result.toJson();
  EXPECT_EQ(json["runs"].size(), 3u);
  EXPECT_EQ(json["t"], json["runs"][0]["t"]);
  EXPECT_TRUE(json["mean"].contains("cumulativeRegret"));
  EXPECT_TRUE(json["std"].contains("cumulativeReward"));
}

TEST(Simulate, ReportsProgressAtMostAHundredTimesEndingAtOne) {
  Json config = linearConfig();
  config.erase("seed");
  config["seeds"] = {1, 2};
  config["horizon"] = 1000;
  std::vector<double> calls;
  simulate(config, [&](double fraction) { calls.push_back(fraction); });
  ASSERT_FALSE(calls.empty());
  EXPECT_LE(calls.size(), 101u);
  EXPECT_GE(calls.size(), 50u);
  EXPECT_EQ(calls.back(), 1.0);
  for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i] - calls[i - 1], 0.0099);
}

TEST(Simulate, LinUcbLearns) {
  const Json config = Json::parse(R"({
    "environment": {"type": "linear", "dim": 6, "arms": 300, "seed": 5},
    "policy": {"type": "lin-ucb"}, "horizon": 2000, "seed": 1, "recordEvery": 200})");
  const SimulationResult result = simulate(config);
  const auto& regret = result.runs[0].cumulativeRegret;
  const double firstWindow = regret[0] / 200.0;
  const double lastWindow = (regret[9] - regret[8]) / 200.0;
  EXPECT_LT(lastWindow, 0.5 * firstWindow) << firstWindow << " -> " << lastWindow;
}

TEST(Simulate, ValidatesTheConfigNamingTheProblem) {
  Json config = linearConfig();
  config["environment"]["type"] = "galaxy";
  expectError(ErrorCode::InvalidArgument, "known: linear, ratings", [&] { simulate(config); });
  config = linearConfig();
  config["seeds"] = {1};
  expectError(ErrorCode::InvalidArgument, "either 'seed' or 'seeds'", [&] { simulate(config); });
  config = linearConfig();
  config.erase("seed");
  config["seeds"] = Json::array();
  expectError(ErrorCode::InvalidArgument, "'seeds'", [&] { simulate(config); });
  config = linearConfig();
  config.erase("horizon");
  expectError(ErrorCode::InvalidArgument, "'horizon'", [&] { simulate(config); });
  config = linearConfig();
  config["horizon"] = 0;
  expectError(ErrorCode::InvalidArgument, "'horizon'", [&] { simulate(config); });
  config = linearConfig();
  config["recordEvery"] = 0;
  expectError(ErrorCode::InvalidArgument, "'recordEvery'", [&] { simulate(config); });
  config = linearConfig();
  config["horizn"] = 10;
  expectError(ErrorCode::InvalidArgument, "'horizn'", [&] { simulate(config); });
  expectError(ErrorCode::InvalidArgument, "object", [&] { simulate(Json::array()); });
}
}  // namespace simulate_test
