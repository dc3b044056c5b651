// simulate() with many users (issue 31, item 5): the linear environment's `users` share one
// catalogue, each with a theta of their own around a shared mean; every user learns; the result
// reports per-user regret bands and what the users cost; one user is exactly the old simulation.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "sublinear/env/environment_factory.hpp"
#include "sublinear/env/ratings_environment.hpp"
#include "sublinear/sim/simulate.hpp"
#include "planted_ratings.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace simulate_users_test {

Json usersConfig(const std::string& policy, std::size_t users, std::int64_t horizon, std::size_t arms = 200) {
  return Json{{"environment", {{"type", "linear"}, {"dim", 8}, {"arms", arms}, {"noise", 1.0}, {"users", users}, {"spread", 0.5}}},
              {"policy", {{"type", policy}}},
              {"horizon", horizon},
              {"recordEvery", users},
              {"seed", 4}};
}

// The expected regret per step of uniform play, averaged over the users of that instance.
double uniformRegretPerStep(const Json& config) {
  const auto environment = makeLinearEnvironment(config["environment"], config["horizon"].get<std::int64_t>(), 4);
  double total = 0.0;
  for (std::size_t user = 0; user < environment->userCount(); ++user) {
    environment->setUser(user);
    double sum = 0.0;
    for (const Id arm : environment->arms().ids()) sum += environment->regret(arm);
    total += sum / static_cast<double>(environment->arms().size());
  }
  return total / static_cast<double>(environment->userCount());
}

TEST(SimulateUsers, TwentyUsersOverOneCatalogueEachLearnTheirTaste) {
  for (const std::string policy : {"lin-ts", "lin-ucb", "sub-ts", "linear-elim", "sub-elim"}) {
    const Json config = usersConfig(policy, 20, 20 * 200);
    const Json result = simulate(config).toJson();
    ASSERT_TRUE(result.contains("users")) << policy;
    const Json& users = result["users"];
    EXPECT_EQ(users["count"], 20);
    const auto& median = users["regret"]["median"];
    const auto& q1 = users["regret"]["q1"];
    const auto& q3 = users["regret"]["q3"];
    ASSERT_EQ(median.size(), result["t"].size());
    for (std::size_t i = 0; i < median.size(); ++i) {
      EXPECT_LE(q1[i].get<double>(), median[i].get<double>());
      EXPECT_LE(median[i].get<double>(), q3[i].get<double>());
    }
    // Each user played 200 steps: against uniform play's 200 x its expected regret per step.
    const double uniform = 200.0 * uniformRegretPerStep(config);
    const double final = median.back().get<double>();
    std::printf("  %s, 20 users x 200 steps: final per-user regret median %.1f (q1 %.1f, q3 %.1f), uniform play %.1f; "
                "catalogue %zu bytes, %zu per user\n",
                policy.c_str(), final, q1.back().get<double>(), q3.back().get<double>(), uniform,
                users["memory"]["catalogueBytes"].get<std::size_t>(), users["memory"]["perUserBytes"].get<std::size_t>());
    EXPECT_LT(final, 0.2 * uniform) << policy;
    // The run's regret is the users' together: at least 20 x the lower quartile, at most 20 x the largest.
    EXPECT_GE(result["cumulativeRegret"].back().get<double>(), 20 * q1.back().get<double>() * 0.25);
  }
}

TEST(SimulateUsers, WhatAUserCostsDoesNotGrowWithTheCatalogue) {
  const Json small = simulate(usersConfig("lin-ts", 5, 50, 200)).toJson();
  const Json large = simulate(usersConfig("lin-ts", 5, 50, 5000)).toJson();
  EXPECT_EQ(small["users"]["memory"]["perUserBytes"], large["users"]["memory"]["perUserBytes"]);
  EXPECT_GT(large["users"]["memory"]["catalogueBytes"].get<std::size_t>(), 20 * small["users"]["memory"]["catalogueBytes"].get<std::size_t>());
  EXPECT_LT(small["users"]["memory"]["perUserBytes"].get<std::size_t>(), 64u * 1024u);
}

TEST(SimulateUsers, ThePolicysSubspaceOptionsAreTheCataloguesAndKeepAUserSmall) {
  // d = 96 > 64: users learn in the catalogue's subspace; the policy's modelDim goes to the catalogue.
  Json config = usersConfig("lin-ts", 4, 4 * 100);
  config["environment"]["dim"] = 96;
  config["policy"]["modelDim"] = 12;
  const Json small = simulate(config).toJson();
  config["policy"]["modelDim"] = 48;
  const Json large = simulate(config).toJson();
  // V, V^-1 and the factor: 3 x (48^2 - 12^2) doubles more.
  EXPECT_EQ(large["users"]["memory"]["perUserBytes"].get<std::size_t>() - small["users"]["memory"]["perUserBytes"].get<std::size_t>(),
            3 * (48 * 48 - 12 * 12) * sizeof(double) + 2 * (48 - 12) * sizeof(double));
}

TEST(SimulateUsers, OneUserIsTheSimulationOfOnePolicyByteForByte) {
  Json config = usersConfig("lin-ts", 1, 300);
  config["recordEvery"] = 7;
  const std::string withUsers = simulate(config).toJson().dump();
  config["environment"].erase("users");
  config["environment"].erase("spread");
  Json plain = simulate(config).toJson();
  // Timings differ from run to run; everything else is the same.
  Json again = Json::parse(withUsers);
  again.erase("seconds");
  plain.erase("seconds");
  EXPECT_EQ(again.dump(), plain.dump());
  EXPECT_FALSE(again.contains("users"));
}

TEST(SimulateUsers, FollowsTheCataloguesChangesAndSeeds) {
  Json config = usersConfig("sub-ts", 4, 400);
  config["environment"]["change"] = Json{{"every", 10}, {"add", 3}, {"remove", 2}};
  config.erase("seed");
  config["seeds"] = Json::array({1, 2});
  const Json result = simulate(config).toJson();
  ASSERT_EQ(result["runs"].size(), 2u);
  for (const Json& run : result["runs"]) {
    EXPECT_EQ(run["users"]["count"], 4);
    EXPECT_EQ(run["users"]["regret"]["median"].size(), run["t"].size());
  }
}

TEST(SimulateUsers, RefusesWhatCannotServeManyUsers) {
  // The elimination policies' users keep widths; a lifted index per user is refused.
  for (const std::string policy : {"linear-elim", "sub-elim"}) {
    Json lifted = usersConfig(policy, 3, 10);
    lifted["policy"]["search"] = "lifted";
    expectError(ErrorCode::InvalidArgument, "'search'", [&] { simulate(lifted); });
  }
  // One user: the elimination policies as always.
  EXPECT_NO_THROW(simulate(usersConfig("linear-elim", 1, 10)));
  Json none = usersConfig("lin-ts", 0, 10);
  none["recordEvery"] = 1;
  expectError(ErrorCode::InvalidArgument, "users", [&] { simulate(none); });
  Json negative = usersConfig("lin-ts", 3, 10);
  negative["environment"]["spread"] = -1;
  expectError(ErrorCode::InvalidArgument, "spread", [&] { simulate(negative); });
  Json misspelt = usersConfig("lin-ts", 3, 10);
  misspelt["environment"]["usres"] = 3;
  expectError(ErrorCode::InvalidArgument, "did you mean 'users'", [&] { simulate(misspelt); });
  // A per-user prior passes through to every user.
  Json prior = usersConfig("lin-ucb", 3, 30);
  prior["policy"]["prior"] = Json{{"theta", std::vector<double>(8, 0.0)}, {"weight", 2.0}};
  EXPECT_NO_THROW(simulate(prior));
}

// The ratings environment's users (issue 31, item 5): the file's held-out users, each rewarded by
// their own ratings over the same movies.
Json plantedUsersEnvironment(const Planted& planted, std::size_t users) {
  return Json{{"type", "ratings"}, {"ratings", planted.text}, {"dim", 4}, {"iterations", 4}, {"testUsers", 8},
              {"minRatings", 30}, {"users", users}, {"change", {{"every", 0}}}};
}

TEST(SimulateUsers, RatingsUsersAreTheFilesHeldOutUsersEachRewardedByTheirOwnRatings) {
  const Planted planted = plantedRatings(60, 80, 2, 0.5, false, 9);
  std::map<std::uint32_t, std::map<std::uint32_t, double>> ratingOf;
  for (const Rating& rating : planted.ratings) ratingOf[rating.user][rating.item] = rating.value;
  for (const std::uint64_t seed : {0u, 5u}) {
    auto environment = makeLinearEnvironment(plantedUsersEnvironment(planted, 4), 100, seed);
    ASSERT_EQ(environment->userCount(), 4u);
    // User 0 is the one user a run of this seed plays without `users`.
    Json single = plantedUsersEnvironment(planted, 1);
    auto one = makeLinearEnvironment(single, 100, seed);
    EXPECT_EQ(one->userCount(), 1u);
    const auto& ratings = dynamic_cast<RatingsEnvironment&>(*environment);
    std::set<std::uint32_t> ids;
    std::set<std::vector<double>> tastes;
    for (std::size_t u = 0; u < 4; ++u) {
      environment->setUser(u);
      const std::uint32_t id = ratings.user();
      if (u == 0) {
        EXPECT_EQ(id, dynamic_cast<RatingsEnvironment&>(*one).user());
      }
      ids.insert(id);
      EXPECT_GT(ratingOf[id].size(), 30u);
      double best = 0.0;
      std::vector<double> taste;
      for (const Id movie : environment->arms().ids()) {
        const auto found = ratingOf[id].find(static_cast<std::uint32_t>(movie));
        const double expected = found != ratingOf[id].end() && found->second >= 4 ? 1.0 : 0.0;
        ASSERT_EQ(environment->drawReward(movie), expected) << "user " << id << ", movie " << movie;
        ASSERT_EQ(environment->regret(movie), 1.0 - expected);
        best = std::max(best, expected);
        taste.push_back(expected);
      }
      tastes.insert(taste);
      EXPECT_EQ(best, 1.0);
    }
    EXPECT_EQ(ids.size(), 4u);
    // Four different sets of likes: one taste shared by all would make this 1.
    EXPECT_EQ(tastes.size(), 4u);
    const Json description = environment->describe();
    EXPECT_EQ(description["users"], 4);
    EXPECT_EQ(description["userIds"].size(), 4u);
  }
  // Regret 'best': each user's best over the current movies minus the chosen one's.
  Json best = plantedUsersEnvironment(planted, 3);
  best["regret"] = "best";
  auto environment = makeLinearEnvironment(best, 100, 1);
  for (std::size_t u = 0; u < 3; ++u) {
    environment->setUser(u);
    for (const Id movie : environment->arms().ids()) EXPECT_EQ(environment->regret(movie), 1.0 - environment->drawReward(movie));
  }
  expectError(ErrorCode::InvalidArgument, "out of range", [&] { environment->setUser(3); });
  expectError(ErrorCode::InvalidArgument, "raise 'testUsers'", [&] { makeLinearEnvironment(plantedUsersEnvironment(planted, 9), 100, 0); });
  Json named = plantedUsersEnvironment(planted, 2);
  named["user"] = planted.ratings.front().user;
  expectError(ErrorCode::InvalidArgument, "option 'user'", [&] { makeLinearEnvironment(named, 100, 0); });
}

// Two held-out users of opposite tastes, a lover (every movie 5) and a hater (every movie 1), served
// in turn: whatever the policy plays, the lover's regret is 0 and the hater's 1 a step, so the
// quartiles over the two users are exact. One taste for both would make q1 = q3.
TEST(SimulateUsers, RatingsUsersOfOppositeTastesGetTheirOwnRegret) {
  std::string text;
  Random random(3);
  constexpr int kMovies = 20;
  for (int user = 1; user <= 30; ++user) {
    for (int movie = 1; movie <= kMovies; ++movie) {
      if (random.uniform() < 0.5) text += std::to_string(user) + "::" + std::to_string(movie) + "::" + std::to_string(1 + random.uniformInt(5)) + "::" + std::to_string(1000 * movie + user) + "\n";
    }
  }
  for (int movie = 1; movie <= kMovies; ++movie) {
    text += "100::" + std::to_string(movie) + "::5::" + std::to_string(1000 * movie + 50) + "\n";
    text += "101::" + std::to_string(movie) + "::1::" + std::to_string(1000 * movie + 51) + "\n";
  }
  constexpr std::int64_t kHorizon = 40;
  const Json config{{"environment", {{"type", "ratings"}, {"ratings", text}, {"dim", 2}, {"iterations", 3}, {"testUsers", 2},
                                     {"minRatings", kMovies - 1}, {"users", 2}, {"change", {{"every", 0}}}}},
                    {"policy", {{"type", "lin-ts"}}},
                    {"horizon", kHorizon},
                    {"recordEvery", 2},
                    {"seed", 1}};
  const Json result = simulate(config).toJson();
  const Json& regret = result["users"]["regret"];
  const double hater = kHorizon / 2;
  EXPECT_EQ(result["users"]["count"], 2);
  EXPECT_DOUBLE_EQ(result["cumulativeRegret"].back().get<double>(), hater);
  EXPECT_DOUBLE_EQ(regret["q1"].back().get<double>(), 0.25 * hater);
  EXPECT_DOUBLE_EQ(regret["median"].back().get<double>(), 0.5 * hater);
  EXPECT_DOUBLE_EQ(regret["q3"].back().get<double>(), 0.75 * hater);
  EXPECT_GT(result["users"]["memory"]["perUserBytes"].get<std::size_t>(), 0u);
}

TEST(SimulateUsers, RatingsUsersOverOneCatalogueEachLearnTheirTaste) {
  const Planted planted = plantedRatings(60, 80, 2, 0.5, false, 9);
  constexpr std::size_t kUsers = 8;
  constexpr std::int64_t kSteps = 150;
  Json config{{"environment", plantedUsersEnvironment(planted, kUsers)},
              {"policy", {{"type", "lin-ts"}}},
              {"horizon", static_cast<std::int64_t>(kUsers) * kSteps},
              {"recordEvery", kUsers},
              {"seed", 2}};
  // Uniform play's expected regret per step, per user: the share of the movies the user does not like.
  const auto environment = makeLinearEnvironment(config["environment"], config["horizon"].get<std::int64_t>(), 2);
  std::vector<double> uniform;
  for (std::size_t u = 0; u < kUsers; ++u) {
    environment->setUser(u);
    double sum = 0.0;
    for (const Id movie : environment->arms().ids()) sum += environment->regret(movie);
    uniform.push_back(kSteps * sum / static_cast<double>(environment->arms().size()));
  }
  std::sort(uniform.begin(), uniform.end());
  const double uniformMedian = 0.5 * (uniform[kUsers / 2 - 1] + uniform[kUsers / 2]);
  const Json result = simulate(config).toJson();
  const double median = result["users"]["regret"]["median"].back().get<double>();
  std::printf("  ratings, %zu users x %lld steps: per-user regret median %.1f (q1 %.1f, q3 %.1f), uniform play %.1f\n", kUsers,
              static_cast<long long>(kSteps), median, result["users"]["regret"]["q1"].back().get<double>(),
              result["users"]["regret"]["q3"].back().get<double>(), uniformMedian);
  EXPECT_LT(median, 0.6 * uniformMedian);
}

}  // namespace simulate_users_test
}  // namespace sublinear::testing
