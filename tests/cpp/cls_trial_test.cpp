#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "sublinear/cls/promotion_environment.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/sim/cls_trial.hpp"
#include "planted_ratings.hpp"
#include "test_support.hpp"

using sublinear::testing::codeOf;

using namespace sublinear;

namespace cls_trial_test {
struct Totals {
  double reward = 0.0;
  double regret = 0.0;
  TrialClock clock;
};

Totals run(const Json& environment, const Json& policy, std::uint64_t seed, int rounds) {
  auto trial = makeClsTrial(environment, policy, seed);
  Totals totals;
  trial->setup(totals.clock);
  for (int t = 1; t <= rounds; ++t) {
    const RoundOutcome outcome = trial->playRound(t, totals.clock);
    EXPECT_GE(outcome.regret, -1e-9);
    EXPECT_TRUE(std::isfinite(outcome.reward));
    totals.reward += outcome.reward;
    totals.regret += outcome.regret;
  }
  EXPECT_GT(trial->innerProducts(), 0u);
  return totals;
}

TEST(ClsTrial, ClusteredRegretFallsWithLearningAndSeedsRepeat) {
  const Json environment = {{"type", "clustered"}, {"dim", 11}, {"arms", 2000}, {"k", 100}, {"angle", 1.0}};
  const Json policy = {{"type", "pc2ucb"}, {"lambda", 1.0}, {"alpha", 0.3}};
  const Totals a = run(environment, policy, 4, 30);
  const Totals b = run(environment, policy, 4, 30);
  EXPECT_EQ(a.reward, b.reward);
  EXPECT_EQ(a.regret, b.regret);
  // A policy that learns: the last rounds' regret is far below the first round's.
  auto trial = makeClsTrial(environment, policy, 9);
  TrialClock clock;
  trial->setup(clock);
  const double first = trial->playRound(1, clock).regret;
  double last = 0.0;
  for (int t = 2; t <= 30; ++t) last = trial->playRound(t, clock).regret;
  EXPECT_LT(last, 0.5 * first);
  EXPECT_GE(clock.select, 0.0);
  EXPECT_GE(clock.update, 0.0);
}

TEST(ClsTrial, FixedArmsWithAnIndexPlayLikeFullScoring) {
  const Json environment = {{"type", "clustered"}, {"dim", 6}, {"arms", 4000}, {"k", 20}, {"angle", 1.0}, {"jitter", 0.2}};
  const Json plain = {{"type", "comb-ts"}, {"randomization", "round"}, {"v", 0.3}};
  Json indexed = plain;
  indexed["index"] = {{"type", "exact"}, {"shortlist", 50}};
  const Totals a = run(environment, plain, 2, 10);
  const Totals b = run(environment, indexed, 2, 10);
  // Round-wise TS draws the same theta~ and the shortlist is certified: identical play.
  EXPECT_EQ(a.regret, b.regret);
}

TEST(ClsTrial, PromotionRespectsQuotasAndLearns) {
  const Json environment = {{"type", "promotion"}, {"promotions", 4}, {"k", 5}, {"users", 300}, {"population", 2000}, {"rank", 5}};
  const Totals greedy = run(environment, {{"type", "greedy-cls"}}, 3, 30);
  const Totals armWise = run(environment, {{"type", "comb-ts"}, {"v", 0.2}}, 3, 30);
  // Random selection's expected total: the mean response over all (user, promotion) pairs.
  PromotionEnvironment sample(environment, 77);
  double mean = 0.0;
  for (int round = 0; round < 10; ++round) {
    sample.beginRound();
    for (Id row = 0; row < 1200; ++row) mean += sample.expectedReward(row) / 12000.0;
  }
  const double random = 30 * 20 * mean;
  std::printf("promotion totals over 30 rounds: greedy %.0f, arm-wise TS %.0f, random %.0f\n", greedy.reward, armWise.reward, random);
  EXPECT_GT(greedy.reward, 1.3 * random);
  EXPECT_GT(armWise.reward, 1.3 * random);
  PromotionEnvironment probe(environment, 1);
  EXPECT_EQ(probe.constraint().k, 20u);
  EXPECT_EQ(probe.constraint().perGroup, 5u);
  EXPECT_EQ(probe.dim(), 24u);
}

TEST(ClsTrial, RejectsBadConfigs) {
  EXPECT_EQ(codeOf([] { makeClsTrial({{"type", "linear"}}, {{"type", "c2ucb"}}, 1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { makeClsTrial({{"type", "clustered"}}, {{"type", "nope"}}, 1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { makeClsTrial({{"type", "clustered"}, {"angle", 2.0}}, {{"type", "c2ucb"}}, 1); }),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { makeClsTrial({{"type", "clustered"}, {"arms", 10}, {"k", 11}}, {{"type", "c2ucb"}}, 1); }),
            ErrorCode::InvalidArgument);
  // A ratings file without enough movies in the promotions' rater range says which options to change.
  sublinear::testing::expectError(ErrorCode::InvalidArgument, "testMinRaters", [] {
    makeClsTrial({{"type", "promotion"}, {"ratings", "1::2::5::0"}}, {{"type", "c2ucb"}}, 1);
  });
}

TEST(ClsTrial, PromotionFromARatingsFileRewardsRatingsAndLearns) {
  // 600 users, 40 movies of a planted rank-3 model, each rated by about 40% of the users.
  const auto planted = sublinear::testing::plantedRatings(600, 40, 3, 0.4, false, 21);
  const Json environment = {{"type", "promotion"}, {"ratings", planted.text}, {"promotions", 3}, {"k", 5}, {"users", 200},
                            {"rank", 3}, {"testMinRaters", 100}, {"testMaxRaters", 600}};
  PromotionEnvironment sample(environment, 5);
  EXPECT_EQ(sample.dim(), 12u);  // (rank + 1) per promotion
  sample.beginRound();
  // Rewards are ratings (0 when the user did not rate the movie) and deterministic.
  std::size_t rated = 0;
  for (Id row = 0; row < 600; ++row) {
    const double value = sample.expectedReward(row);
    EXPECT_TRUE(value == 0.0 || (value >= 1.0 && value <= 5.0)) << value;
    EXPECT_EQ(sample.drawReward(row), value);
    rated += value > 0.0 ? 1 : 0;
  }
  EXPECT_GT(rated, 150u);
  EXPECT_LT(rated, 330u);
  // A learner does better than the mean reward of a random super arm.
  const Totals learned = run(environment, {{"type", "pc2ucb"}, {"alpha", 0.3}}, 3, 20);
  double mean = 0.0;
  for (int round = 0; round < 10; ++round) {
    sample.beginRound();
    for (Id row = 0; row < 600; ++row) mean += sample.expectedReward(row) / 6000.0;
  }
  EXPECT_GT(learned.reward, 1.2 * 20 * 15 * mean);
}
}  // namespace cls_trial_test
