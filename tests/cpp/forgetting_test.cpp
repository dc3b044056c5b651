// Forgetting (option `forgetting`, forget(f); API.md v3) in every linear policy:
// - the model after forget(f), a discount or a window is the ridge regression of the observations
//   with their weights, computed here directly from the observations (the oracle);
// - forget(0) is a fresh model with the same prior, bit for bit, and LinUCB then chooses as a fresh one;
// - 'auto' finds an abrupt change of theta* within some tens of observations, and no change in
//   stationary problems of several dimensions, noise levels and seeds;
// - snapshots taken before and after a change reload and continue exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "linear_test_problem.hpp"
#include "persistence_checks.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/sim/simulate.hpp"

namespace sublinear::testing {
namespace forgetting_test {

constexpr int kDim = 5;

Json specOf(const std::string& type, Json forgetting, int dim = kDim) {
  Json spec{{"type", type}, {"dim", dim}, {"seed", 3}, {"forgetting", std::move(forgetting)}};
  if (type == "sub-ts" || type == "sub-elim") spec["index"] = Json{{"type", "hnsw"}, {"build", "immediate"}};
  return spec;
}

bool takesPrior(const std::string& type) { return type == "lin-ucb" || type == "lin-ts" || type == "sub-ts"; }

// Observations with their weights, and the weighted ridge they make: V = c P I + sum w x x^T,
// b = c w0 theta0 + sum w r x.
struct WeightedRidge {
  int dim;
  double precision;
  Vector priorResponses;
  double priorShare = 1.0;
  std::vector<Vector> xs;
  std::vector<double> rewards;
  std::vector<double> weights;

  WeightedRidge(int d, double lambda, double priorWeight, const Vector& priorMean)
      : dim(d), precision(lambda + priorWeight), priorResponses(priorWeight * priorMean) {}

  void add(const Vector& x, double reward) {
    xs.push_back(x);
    rewards.push_back(reward);
    weights.push_back(1.0);
  }
  void weigh(double factor) {
    for (double& w : weights) w *= factor;
  }
  Vector theta() const {
    Matrix gram = priorShare * precision * Matrix::Identity(dim, dim);
    Vector responses = priorShare * priorResponses;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      gram += weights[i] * xs[i] * xs[i].transpose();
      responses += weights[i] * rewards[i] * xs[i];
    }
    return gram.llt().solve(responses);
  }
};

double relativeDistance(const Vector& a, const Vector& b) { return (a - b).norm() / std::max(1e-12, b.norm()); }

// Feeds `steps` observations of the policy's own choices on `problem`; records them in `oracle`.
void drive(LinearPolicy& policy, GaussianProblem& problem, int steps, WeightedRidge* oracle = nullptr,
           const std::function<void()>& beforeEach = nullptr) {
  for (int t = 0; t < steps; ++t) {
    if (beforeEach) beforeEach();
    const Id arm = policy.select();
    const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
    policy.update(arm, reward);
    if (oracle) oracle->add(problem.arms.at(arm), reward);
  }
}

class Forgetting : public ::testing::TestWithParam<std::string> {};

TEST_P(Forgetting, ForgetIsTheWeightedRidgeOfThePast) {
  for (const bool prior : {false, true}) {
    if (prior && !takesPrior(GetParam())) continue;
    Json spec = specOf(GetParam(), "none");
    Vector priorMean = Vector::Zero(kDim);
    if (prior) {
      priorMean = Vector::LinSpaced(kDim, -0.5, 0.7);
      spec["prior"] = Json{{"theta", std::vector<double>(priorMean.data(), priorMean.data() + kDim)}, {"weight", 3.0}};
    }
    GaussianProblem problem(kDim, 21, 0.3);
    auto policy = makeLinearPolicy(kDim, spec);
    problem.addArms(*policy, 40);
    WeightedRidge oracle(kDim, 1.0, prior ? 3.0 : 0.0, priorMean);
    drive(*policy, problem, 60, &oracle);
    policy->forget(0.3);
    oracle.weigh(0.3);
    EXPECT_LT(relativeDistance(policy->theta(), oracle.theta()), 1e-9) << GetParam() << " prior " << prior;
    drive(*policy, problem, 40, &oracle);
    policy->forget(0.5);
    oracle.weigh(0.5);
    drive(*policy, problem, 10, &oracle);
    EXPECT_LT(relativeDistance(policy->theta(), oracle.theta()), 1e-9) << GetParam() << " prior " << prior;
    const Json stats = policy->stats()["forgetting"];
    EXPECT_EQ(stats["forgets"], 2);
    EXPECT_EQ(stats["lastChange"], 100);
    EXPECT_NEAR(stats["effectiveMemory"].get<double>(), 60 * 0.15 + 40 * 0.5 + 10, 1e-9);
  }
}

TEST_P(Forgetting, ForgetZeroIsAFreshModelWithTheSamePrior) {
  Json spec = specOf(GetParam(), "none");
  if (takesPrior(GetParam())) spec["prior"] = Json{{"theta", {0.1, -0.2, 0.3, 0.0, 0.5}}, {"weight", 2.0}};
  GaussianProblem problem(kDim, 22, 0.3);
  auto policy = makeLinearPolicy(kDim, spec);
  auto fresh = makeLinearPolicy(kDim, spec);
  std::vector<double> features;
  const std::vector<Id> ids = problem.newArms(30, features);
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  fresh->addArms(ids.data(), ids.size(), features.data(), features.size());
  drive(*policy, problem, 50);
  policy->forget(0.0);
  EXPECT_EQ(policy->theta(), fresh->theta()) << GetParam();
  EXPECT_EQ(policy->stats()["noise"], fresh->stats()["noise"]);
  EXPECT_EQ(policy->stats()["forgetting"]["effectiveMemory"], 0.0);
  if (GetParam() != "lin-ucb") return;
  // LinUCB draws nothing at random: from here on it chooses as the fresh model does.
  for (int t = 0; t < 40; ++t) {
    const Id arm = fresh->select();
    ASSERT_EQ(policy->select(), arm) << "step " << t;
    const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
    fresh->update(arm, reward);
    policy->update(arm, reward);
  }
  EXPECT_EQ(policy->theta(), fresh->theta());
}

TEST_P(Forgetting, DiscountIsTheWeightedRidgeWithDecayingRegulariser) {
  const double g = 0.93;
  GaussianProblem problem(kDim, 23, 0.3);
  auto policy = makeLinearPolicy(kDim, specOf(GetParam(), Json{{"discount", g}}));
  problem.addArms(*policy, 40);
  WeightedRidge oracle(kDim, 1.0, 0.0, Vector::Zero(kDim));
  // Each observation first weighs the past (and the regulariser) by g; the regulariser is topped up
  // to its whole weight whenever its share falls below one half.
  drive(*policy, problem, 150, &oracle, [&] {
    oracle.weigh(g);
    oracle.priorShare *= g;
    if (oracle.priorShare < 0.5) oracle.priorShare = 1.0;
  });
  EXPECT_LT(relativeDistance(policy->theta(), oracle.theta()), 1e-8) << GetParam();
  double memory = 0.0;
  for (const double w : oracle.weights) memory += w;
  EXPECT_NEAR(policy->stats()["forgetting"]["effectiveMemory"].get<double>(), memory, 1e-9);
  EXPECT_NEAR(memory, (1.0 - std::pow(g, 150)) / (1.0 - g), 1e-9);
}

TEST_P(Forgetting, WindowIsTheRidgeOfTheLastObservations) {
  const std::size_t window = 25;
  GaussianProblem problem(kDim, 24, 0.3);
  auto policy = makeLinearPolicy(kDim, specOf(GetParam(), Json{{"window", window}}));
  problem.addArms(*policy, 40);
  WeightedRidge oracle(kDim, 1.0, 0.0, Vector::Zero(kDim));
  for (const int steps : {10, 30, 37}) {
    drive(*policy, problem, steps, &oracle);
    WeightedRidge last = oracle;
    for (std::size_t i = 0; i + window < last.weights.size(); ++i) last.weights[i] = 0.0;
    EXPECT_LT(relativeDistance(policy->theta(), last.theta()), 1e-8) << GetParam() << " after " << oracle.xs.size();
    EXPECT_NEAR(policy->stats()["forgetting"]["effectiveMemory"].get<double>(),
                static_cast<double>(std::min(window, oracle.xs.size())), 1e-9);
  }
}

TEST_P(Forgetting, SnapshotsBeforeAndAfterAChangeContinueExactly) {
  for (const Json& forgetting : {Json("auto"), Json{{"discount", 0.95}}, Json{{"window", 30}}}) {
    GaussianProblem problem(kDim, 25, 0.2);
    PersistentLinearPolicy original(specOf(GetParam(), forgetting));
    problem.addArms(*original, 50);
    // The taste turns around at step 120: 'auto' forgets at some step after it.
    std::vector<std::vector<std::uint8_t>> snapshots;
    for (int t = 0; t < 300; ++t) {
      if (t == 120) problem.thetaStar = -problem.thetaStar;
      if (t == 100 || t == 250) snapshots.push_back(original.toBytes());
      const Id arm = original->select();
      original->update(arm, problem.mean(arm) + problem.noise * problem.random.normal());
    }
    if (forgetting == Json("auto")) {
      EXPECT_GE(original->stats()["forgetting"]["changes"].get<int>(), 1) << GetParam();
    }
    for (const auto& bytes : snapshots) {
      auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
      PersistentLinearPolicy again = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
      GaussianProblem replay(kDim, 26, 0.2);
      replay.thetaStar = problem.thetaStar;
      for (int t = 0; t < 150; ++t) {
        const Id arm = restored->select();
        ASSERT_EQ(again->select(), arm) << GetParam() << " " << forgetting.dump() << " step " << t;
        const double reward = 0.3 * std::sin(0.1 * t) + replay.noise * replay.random.normal();
        restored->update(arm, reward);
        again->update(arm, reward);
        if (t == 70) {
          restored->forget(0.25);
          again->forget(0.25);
        }
      }
      EXPECT_EQ(restored->theta(), again->theta());
      EXPECT_EQ(restored->stats(), again->stats());
      EXPECT_EQ(restored.toBytes(), again.toBytes());
    }
  }
}

// A window's downdates keep V^-1 symmetric bit for bit, as a restore checks: a state saved at any
// step restores (LinUCB's saved state was refused as damaged once its window began to slide).
TEST_P(Forgetting, AWindowsStateRestoresAtEveryStep) {
  GaussianProblem problem(kDim, 25, 0.2);
  PersistentLinearPolicy policy(specOf(GetParam(), Json{{"window", 30}}));
  problem.addArms(*policy, 50);
  for (int t = 0; t < 120; ++t) {
    const std::vector<std::uint8_t> bytes = policy.toBytes();
    ASSERT_NO_THROW(PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam())) << GetParam() << " step " << t;
    const Id arm = policy->select();
    policy->update(arm, problem.mean(arm) + problem.noise * problem.random.normal());
  }
}

TEST_P(Forgetting, BadFactorsAndOptionsAreRefusedWithNothingChanged) {
  GaussianProblem problem(kDim, 27, 0.3);
  auto policy = makeLinearPolicy(kDim, specOf(GetParam(), "auto"));
  problem.addArms(*policy, 20);
  drive(*policy, problem, 20);
  const Vector before = policy->theta();
  for (const double factor : {-0.1, 1.5, std::nan(""), HUGE_VAL}) {
    EXPECT_THROW(policy->forget(factor), Error) << factor;
  }
  EXPECT_EQ(policy->theta(), before);
  EXPECT_EQ(policy->stats()["forgetting"]["forgets"], 0);
  for (const Json& bad : {Json("sometimes"), Json(3), Json::object(), Json{{"discount", 0.9}, {"window", 10}},
                          Json{{"discount", 1.0}}, Json{{"discount", 0.0}}, Json{{"window", 0}}, Json{{"windw", 10}}}) {
    try {
      makeLinearPolicy(kDim, specOf(GetParam(), bad));
      ADD_FAILURE() << bad.dump() << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidArgument) << bad.dump();
    }
  }
}

// 'auto' with default options: an abrupt change of theta* is found, and after it the policy earns
// more than with 'none'; with nothing changing, nothing is found.
TEST_P(Forgetting, AutoFindsAnAbruptChangeAndRecovers) {
  int found = 0, better = 0;
  const int seeds = 4;
  for (int seed = 0; seed < seeds; ++seed) {
    double rewardAfter[2] = {0.0, 0.0};
    Json stats;
    for (const bool automatic : {false, true}) {
      GaussianProblem problem(8, 100 + static_cast<std::uint64_t>(seed), 0.3);
      Json spec = specOf(GetParam(), automatic ? Json("auto") : Json("none"), 8);
      spec["seed"] = seed;
      auto policy = makeLinearPolicy(8, spec);
      problem.addArms(*policy, 300);
      for (int t = 0; t < 1500; ++t) {
        if (t == 600) {
          // Another taste: a fresh theta* of the same norm.
          problem.thetaStar = problem.gaussian();
        }
        const Id arm = policy->select();
        const double mean = problem.mean(arm);
        policy->update(arm, mean + problem.noise * problem.random.normal());
        if (t >= 1000) rewardAfter[automatic ? 1 : 0] += mean - problem.bestMean();
      }
      if (automatic) stats = policy->stats()["forgetting"];
    }
    const bool detected = stats["changes"].get<int>() >= 1 && stats["lastChange"].get<int>() > 600 && stats["lastChange"].get<int>() < 800;
    found += detected ? 1 : 0;
    better += rewardAfter[1] >= rewardAfter[0] ? 1 : 0;
    std::printf("%s seed %d: %s regret after the change, none %.1f, auto %.1f\n", GetParam().c_str(), seed, stats.dump().c_str(),
                -rewardAfter[0], -rewardAfter[1]);
  }
  EXPECT_GE(found, seeds - 1) << GetParam();
  EXPECT_GE(better, seeds - 1) << GetParam();
}

TEST_P(Forgetting, AutoFindsNoChangeWhereNothingChanges) {
  int falseAlarms = 0, runs = 0;
  for (const int dim : {4, 16}) {
    for (const double noise : {0.1, 1.0}) {
      for (int seed = 0; seed < 3; ++seed) {
        GaussianProblem problem(dim, 300 + static_cast<std::uint64_t>(seed), noise);
        problem.thetaStar *= dim == 4 ? 3.0 : 1.0;
        Json spec = specOf(GetParam(), "auto", dim);
        spec["seed"] = seed;
        auto policy = makeLinearPolicy(dim, spec);
        problem.addArms(*policy, 200);
        drive(*policy, problem, 1500);
        falseAlarms += policy->stats()["forgetting"]["changes"].get<int>();
        ++runs;
      }
    }
  }
  std::printf("%s: %d false alarms in %d stationary runs of 1500 steps\n", GetParam().c_str(), falseAlarms, runs);
  EXPECT_EQ(falseAlarms, 0) << GetParam();
}

// Clicks: arm x = (1, g) with g ~ N(0, I / (d - 1)) (GaussianProblem's arms, first coordinate set to
// 1), click rate base + spread (g . u) sqrt(d - 1) / 3 clamped to [0.001, 0.999], u = thetaStar's
// last d - 1 coordinates, normalised; a switch draws another u.
struct ClickProblem {
  GaussianProblem problem;
  double base, spread;
  ClickProblem(int dim, std::uint64_t seed, double base_, double spread_) : problem(dim, seed), base(base_), spread(spread_) {}
  void addArms(LinearPolicy& policy, std::size_t count) {
    std::vector<double> features;
    std::vector<Id> ids = problem.newArms(count, features);
    const int d = problem.dim;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      features[i * static_cast<std::size_t>(d)] = 1.0;
      problem.arms.at(ids[i])[0] = 1.0;
    }
    policy.addArms(ids.data(), ids.size(), features.data(), features.size());
  }
  double rate(Id arm) const {
    const Vector& x = problem.arms.at(arm);
    const int d = problem.dim;
    const Vector u = problem.thetaStar.tail(d - 1).normalized();
    return std::clamp(base + spread * x.tail(d - 1).dot(u) * std::sqrt(d - 1.0) / 3.0, 0.001, 0.999);
  }
  double click(Id arm) { return problem.random.uniform() < rate(arm) ? 1.0 : 0.0; }
};

// Over clicks 'auto' tests the Bernoulli likelihood ratio of "the shown items' click rates dropped":
// a switched taste is found, nothing is found where nothing changes, a snapshot taken while the
// evidence gathers continues exactly, and one reward that is not a click turns it to the errors.
TEST_P(Forgetting, AutoFindsASwitchOfClicksAndNoChangeWhereNothingChanges) {
  int found = 0, falseAlarms = 0;
  const int seeds = 4;
  for (int seed = 0; seed < seeds; ++seed) {
    ClickProblem clicks(8, 500 + static_cast<std::uint64_t>(seed), 0.05, 0.5);
    Json spec = specOf(GetParam(), "auto", 8);
    spec["seed"] = seed;
    auto policy = makeLinearPolicy(8, spec);
    clicks.addArms(*policy, 500);
    for (int t = 0; t < 3000; ++t) {
      if (t == 1500) clicks.problem.thetaStar = clicks.problem.gaussian();
      const Id arm = policy->select();
      policy->update(arm, clicks.click(arm));
    }
    const Json stats = policy->stats()["forgetting"];
    found += stats["changes"].get<int>() >= 1 && stats["lastChange"].get<int>() > 1500 && stats["lastChange"].get<int>() < 2000 ? 1 : 0;
    falseAlarms += stats["changes"].get<int>() >= 1 && stats["lastChange"].get<int>() <= 1500 ? 1 : 0;
  }
  for (const int dim : {8, 16, 32}) {
    for (const auto& [base, spread] : {std::pair{0.02, 0.25}, std::pair{0.1, 0.3}}) {
      ClickProblem clicks(dim, 600 + static_cast<std::uint64_t>(dim), base, spread);
      auto policy = makeLinearPolicy(dim, specOf(GetParam(), "auto", dim));
      clicks.addArms(*policy, 1000);
      for (int t = 0; t < 3000; ++t) {
        const Id arm = policy->select();
        policy->update(arm, clicks.click(arm));
      }
      falseAlarms += policy->stats()["forgetting"]["changes"].get<int>();
    }
  }
  std::printf("%s: %d of %d switches of clicks found, %d false alarms\n", GetParam().c_str(), found, seeds, falseAlarms);
  // A policy that chooses by a draw sees runs of misses more often where nothing changed; its model
  // keeps a quarter of its past on a change over clicks, so an alarm costs it little (the JS suite's
  // "a false alarm over clicks costs little"), and it finds a switch later.
  const bool draws = GetParam() == "lin-ts" || GetParam() == "sub-ts";
  EXPECT_GE(found, draws ? 1 : seeds - 1) << GetParam();
  EXPECT_LE(falseAlarms, draws ? 1 : 0) << GetParam();
}

TEST_P(Forgetting, ClickSnapshotsWhileTheEvidenceGathersContinueExactly) {
  ClickProblem clicks(kDim, 31, 0.05, 0.5);
  PersistentLinearPolicy original(specOf(GetParam(), "auto"));
  clicks.addArms(*original, 200);
  std::vector<std::uint8_t> bytes;
  for (int t = 0; t < 3000 && bytes.empty(); ++t) {
    if (t == 500) clicks.problem.thetaStar = clicks.problem.gaussian();
    const Id arm = original->select();
    original->update(arm, clicks.click(arm));
    if (t > 500 && original->stats()["forgetting"]["detector"]["statistic"].get<double>() > 1.0) bytes = original.toBytes();
  }
  ASSERT_FALSE(bytes.empty()) << GetParam() << ": the statistic never rose after the switch";
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  auto again = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  for (int t = 0; t < 400; ++t) {
    const Id arm = restored->select();
    ASSERT_EQ(again->select(), arm) << GetParam() << " step " << t;
    const double click = clicks.click(arm);
    restored->update(arm, click);
    again->update(arm, click);
  }
  EXPECT_EQ(restored->stats(), again->stats());
  EXPECT_EQ(restored.toBytes(), again.toBytes());
  // One reward that is not a click: the standardised errors from then on, after a reload too.
  const double clickLevel = restored->stats()["forgetting"]["detector"]["threshold"].get<double>();
  restored->update(restored->select(), 0.5);
  const Json detector = restored->stats()["forgetting"]["detector"];
  EXPECT_NE(detector["threshold"].get<double>(), clickLevel);
  EXPECT_EQ(detector["statistic"].get<double>(), 0.0);
  const std::vector<std::uint8_t> later = restored.toBytes();
  auto reloaded = PersistentLinearPolicy::fromBytes(later.data(), later.size(), GetParam());
  EXPECT_EQ(reloaded->stats()["forgetting"]["detector"], detector);
}

INSTANTIATE_TEST_SUITE_P(EveryLinearPolicy, Forgetting, ::testing::ValuesIn(linearPolicyTypes()),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

}  // namespace forgetting_test
}  // namespace sublinear::testing

namespace sublinear::testing {
namespace forgetting_test {

// simulate()'s linear environment with `drift` (tastes that switch or rotate, each user of a
// many-user run on its own schedule): regret is against the theta of the round, and every policy with
// its default forgetting does better than with 'none' once tastes switch.
Json driftConfig(const std::string& policy, const Json& forgetting, const Json& drift, std::size_t users, std::int64_t horizon) {
  Json config{{"environment", {{"type", "linear"}, {"dim", 8}, {"arms", 300}, {"noise", 0.3}, {"users", users}, {"drift", drift}}},
              {"policy", {{"type", policy}}},
              {"horizon", horizon},
              {"recordEvery", horizon},
              {"seed", 4}};
  if (!forgetting.is_null()) config["policy"]["forgetting"] = forgetting;
  return config;
}

TEST(Drift, ASwitchingUserTurnsToAnOrthogonalTasteAndBack) {
  const auto environment = makeLinearEnvironment(driftConfig("lin-ucb", nullptr, Json{{"kind", "switch"}, {"every", 100}}, 1, 1000)["environment"], 1000, 4);
  const Id arm = environment->arms().ids().front();
  auto meanNow = [&] {
    double worst = 0.0;
    for (const Id id : environment->arms().ids()) worst = std::max(worst, environment->regret(id));
    return worst - environment->regret(arm);  // the arm's mean minus the worst arm's
  };
  std::vector<double> means;
  for (std::int64_t t = 1; t <= 400; ++t) {
    environment->setUser(0);
    environment->changeAfterRound(t);
    if (t % 100 == 50) means.push_back(meanNow());
  }
  // Rounds 1-99 and 200-299 under the first taste, 100-199 and 300-399 under the second.
  EXPECT_DOUBLE_EQ(means[0], means[2]);
  EXPECT_DOUBLE_EQ(means[1], means[3]);
  EXPECT_NE(means[0], means[1]);
  EXPECT_EQ(environment->describe()["drift"]["kind"], "switch");
}

TEST(Drift, DefaultForgettingEarnsMoreThanNoneWhenTastesChange) {
  for (const Json& drift : {Json{{"kind", "switch"}, {"every", 1500}}, Json{{"kind", "rotate"}, {"period", 3000}}}) {
    for (const std::string policy : {"lin-ucb", "lin-ts", "linear-elim"}) {
      for (const std::size_t users : {std::size_t{1}, std::size_t{4}}) {
        const std::int64_t horizon = 4500 * static_cast<std::int64_t>(users);
        const double none = simulate(driftConfig(policy, "none", drift, users, horizon)).toJson()["cumulativeRegret"].back().get<double>();
        const Json automatic = simulate(driftConfig(policy, nullptr, drift, users, horizon)).toJson();
        const double regret = automatic["cumulativeRegret"].back().get<double>();
        std::printf("%s %s users %zu: regret none %.0f, auto %.0f\n", drift.dump().c_str(), policy.c_str(), users, none, regret);
        EXPECT_LT(regret, 0.8 * none) << drift.dump() << " " << policy << " users " << users;
      }
    }
  }
}

TEST(Drift, BadDriftIsRefused) {
  for (const Json& bad : {Json(3), Json{{"kind", "jump"}}, Json{{"every", 0}}, Json{{"period", 1}}, Json{{"evry", 10}}}) {
    try {
      simulate(driftConfig("lin-ucb", nullptr, bad, 1, 10));
      ADD_FAILURE() << bad.dump() << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidArgument) << bad.dump();
    }
  }
}

}  // namespace forgetting_test
}  // namespace sublinear::testing
