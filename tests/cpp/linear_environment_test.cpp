#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/env/environment_arms.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/env/gaussian_linear_environment.hpp"
#include "test_support.hpp"

using sublinear::testing::expectError;

using namespace sublinear;

namespace linear_environment_test {
double dot(const Vector& a, const double* b) {
  double sum = 0.0;
  for (int i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

TEST(EnvironmentArms, BestTracksABruteForceMaxUnderRandomAddsAndRemoves) {
  Random random(5);
  EnvironmentArms arms(3);
  std::map<Id, double> oracle;
  Id next = 0;
  for (int step = 0; step < 3000; ++step) {
    if (oracle.empty() || random.uniform() < 0.55) {
      const double x[3] = {random.normal(), random.normal(), random.normal()};
      // Repeated rewards exercise ties in the ordered set.
      const double reward = static_cast<double>(random.uniformInt(40));
      arms.add(next, x, reward);
      oracle[next++] = reward;
    } else {
      auto it = oracle.begin();
      std::advance(it, static_cast<long>(random.uniformInt(oracle.size())));
      arms.remove(it->first);
      oracle.erase(it);
    }
    ASSERT_EQ(arms.size(), oracle.size());
    if (!oracle.empty()) {
      double best = -INFINITY;
      for (const auto& [id, reward] : oracle) best = std::max(best, reward);
      ASSERT_EQ(arms.bestExpectedReward(), best);
      ASSERT_EQ(oracle.at(arms.bestArm()), best);
    }
  }
  for (const auto& [id, reward] : oracle) EXPECT_EQ(arms.expectedReward(id), reward);
  const double x[3] = {0, 0, 0};
  EXPECT_THROW(arms.add(oracle.begin()->first, x, 0.0), Error);
  EXPECT_THROW(arms.remove(next + 7), Error);
}

TEST(GaussianLinearEnvironment, BestArmAndExpectedRewardsMatchBruteForceThroughChanges) {
  const Json options = Json::parse(R"({"type": "linear", "dim": 5, "arms": 60, "change": {"every": 3, "add": 2, "remove": 3}})");
  GaussianLinearEnvironment environment(options, 11, 12);
  const Vector theta = environment.thetaStar();
  std::map<Id, bool> present;
  for (Id id : environment.arms().ids()) present[id] = true;
  for (std::int64_t t = 1; t <= 200; ++t) {
    const ArmChange change = environment.changeAfterRound(t);
    if (t % 3 == 0) {
      EXPECT_EQ(change.added.size(), 2u);
      EXPECT_EQ(change.addedFeatures.size(), 10u);
    } else {
      EXPECT_TRUE(change.empty());
    }
    for (Id id : change.removed) {
      ASSERT_TRUE(present.count(id)) << "removed an arm that was not there";
      present.erase(id);
    }
    for (std::size_t i = 0; i < change.added.size(); ++i) {
      ASSERT_FALSE(present.count(change.added[i])) << "ids are never reused";
      present[change.added[i]] = true;
      for (int j = 0; j < 5; ++j) EXPECT_EQ(environment.arms().features(change.added[i])[j], change.addedFeatures[i * 5 + j]);
    }
    const EnvironmentArms& arms = environment.arms();
    ASSERT_EQ(arms.size(), present.size());
    ASSERT_GE(arms.size(), 1u);
    double best = -INFINITY;
    for (Id id : arms.ids()) {
      ASSERT_TRUE(present.count(id));
      const double expected = dot(theta, arms.features(id));
      ASSERT_EQ(arms.expectedReward(id), expected);
      best = std::max(best, expected);
    }
    ASSERT_EQ(arms.bestExpectedReward(), best);
    for (Id id : arms.ids()) ASSERT_GE(environment.regret(id), 0.0);
    ASSERT_EQ(environment.regret(arms.bestArm()), 0.0);
  }
}

TEST(GaussianLinearEnvironment, RemovalNeverEmptiesTheSet) {
  GaussianLinearEnvironment environment(Json::parse(R"({"dim": 2, "arms": 4, "change": {"every": 1, "remove": 3}})"), 1, 2);
  for (std::int64_t t = 1; t <= 10; ++t) {
    environment.changeAfterRound(t);
    EXPECT_EQ(environment.arms().size(), t == 1 ? 1u : 1u);
  }
  GaussianLinearEnvironment replaced(Json::parse(R"({"dim": 2, "arms": 2, "change": {"every": 1, "add": 1, "remove": 5}})"), 1, 2);
  for (std::int64_t t = 1; t <= 10; ++t) {
    replaced.changeAfterRound(t);
    EXPECT_EQ(replaced.arms().size(), 1u);
  }
}

TEST(GaussianLinearEnvironment, DrawsGaussianArmsAndUnitGaussianNoise) {
  GaussianLinearEnvironment environment(Json::parse(R"({"dim": 4, "arms": 20000, "noise": 1})"), 3, 4);
  const EnvironmentArms& arms = environment.arms();
  double sum = 0.0;
  double squares = 0.0;
  for (Id id : arms.ids()) {
    for (int j = 0; j < 4; ++j) {
      sum += arms.features(id)[j];
      squares += arms.features(id)[j] * arms.features(id)[j];
    }
  }
  const double n = 80000.0;
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(squares / n, 1.0, 0.03);
  const Id arm = arms.ids()[17];
  double noiseSum = 0.0;
  double noiseSquares = 0.0;
  const int draws = 40000;
  for (int i = 0; i < draws; ++i) {
    const double noise = environment.drawReward(arm) - arms.expectedReward(arm);
    noiseSum += noise;
    noiseSquares += noise * noise;
  }
  EXPECT_NEAR(noiseSum / draws, 0.0, 0.025);  // 5 standard errors
  EXPECT_NEAR(noiseSquares / draws, 1.0, 0.04);

  GaussianLinearEnvironment scaled(Json::parse(R"({"dim": 3, "arms": 5, "noise": 2.5, "normalize": true})"), 3, 4);
  EXPECT_NEAR(scaled.thetaStar().norm(), 1.0, 1e-12);
  for (Id id : scaled.arms().ids()) {
    const double* x = scaled.arms().features(id);
    EXPECT_NEAR(std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), 1.0, 1e-12);
  }
  double scaledSquares = 0.0;
  for (int i = 0; i < draws; ++i) {
    const double noise = scaled.drawReward(0) - scaled.arms().expectedReward(0);
    scaledSquares += noise * noise;
  }
  EXPECT_NEAR(std::sqrt(scaledSquares / draws), 2.5, 0.05);
  GaussianLinearEnvironment silent(Json::parse(R"({"dim": 3, "arms": 5, "noise": 0})"), 3, 4);
  EXPECT_EQ(silent.drawReward(2), silent.arms().expectedReward(2));
  expectError(ErrorCode::UnknownId, "arm 99", [&] { silent.drawReward(99); });
}

TEST(GaussianLinearEnvironment, TheInstanceSeedFixesArmsAndTheRunSeedOnlyTheNoise) {
  const Json seeded = Json::parse(R"({"type": "linear", "dim": 3, "arms": 10, "seed": 42})");
  auto a = makeLinearEnvironment(seeded, 100, 1);
  auto b = makeLinearEnvironment(seeded, 100, 2);
  for (Id id : a->arms().ids()) EXPECT_EQ(a->arms().expectedReward(id), b->arms().expectedReward(id));
  EXPECT_NE(a->drawReward(0), b->drawReward(0));
  const Json unseeded = Json::parse(R"({"type": "linear", "dim": 3, "arms": 10})");
  auto c = makeLinearEnvironment(unseeded, 100, 1);
  auto d = makeLinearEnvironment(unseeded, 100, 2);
  auto e = makeLinearEnvironment(unseeded, 100, 1);
  EXPECT_NE(c->arms().expectedReward(0), d->arms().expectedReward(0));
  EXPECT_EQ(c->arms().expectedReward(0), e->arms().expectedReward(0));
  EXPECT_EQ(c->drawReward(3), e->drawReward(3));
}

TEST(GaussianLinearEnvironment, RejectsBadOptionsNamingThem) {
  expectError(ErrorCode::InvalidArgument, "'arms'", [] { makeLinearEnvironment(Json::parse(R"({"type": "linear", "arms": 0})"), 10, 0); });
  expectError(ErrorCode::InvalidArgument, "'noise'", [] { makeLinearEnvironment(Json::parse(R"({"type": "linear", "noise": -1})"), 10, 0); });
  expectError(ErrorCode::InvalidArgument, "'change'", [] { makeLinearEnvironment(Json::parse(R"({"type": "linear", "change": 3})"), 10, 0); });
  expectError(ErrorCode::InvalidArgument, "'every'", [] {
    makeLinearEnvironment(Json::parse(R"({"type": "linear", "change": {"every": 1.5}})"), 10, 0);
  });
  expectError(ErrorCode::InvalidArgument, "known: linear, ratings", [] { makeLinearEnvironment(Json::parse(R"({"type": "cube"})"), 10, 0); });
}
}  // namespace linear_environment_test
