// simulate() with many users (issue 31, item 5): the linear environment's `users` share one
// catalogue, each with a theta of their own around a shared mean; every user learns; the result
// reports per-user regret bands and what the users cost; one user is exactly the old simulation.
#include <gtest/gtest.h>

#include <string>

#include "sublinear/env/environment_factory.hpp"
#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace {

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
  for (const std::string policy : {"lin-ts", "lin-ucb", "sub-ts"}) {
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
  for (const std::string policy : {"linear-elim", "sub-elim"}) {
    expectError(ErrorCode::InvalidArgument, "not yet supported over a catalogue", [&] { simulate(usersConfig(policy, 3, 10)); });
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

}  // namespace
}  // namespace sublinear::testing
