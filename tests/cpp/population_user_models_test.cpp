#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/eval/population_evaluation.hpp"
#include "sublinear/eval/reward_model.hpp"
#include "taste_shop.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::expectError;
using sublinear::testing::favouriteLoggerLog;
using sublinear::testing::trainedLinUcbStates;
using sublinear::testing::UsersLog;

// A population's per-user reward models (rewardModelScope 'per-user'; 'auto', the default, takes them
// for dm and the pooled ones for dr) against the one pooled model, on shops whose users click differently on the same items.
namespace population_user_models_test {
constexpr int kDim = 3;

// Items with features in [0, 1]^3; users with tastes in [-1, 1]^3 (tastes that disagree: what one
// user clicks another passes by), or every user the first user's taste. A click is Bernoulli of
// sigma(-1 + 3 x^T taste): logistic in the item's features with the user's own parameters, the
// per-user model's assumption.
struct UserModelsShop : sublinear::testing::TasteShop {
  UserModelsShop(std::size_t armCount, std::size_t userCount, std::uint64_t seed, bool ownTastes)
      : TasteShop(kDim, armCount, userCount, seed, 0.0, 1.0, -1.0, 1.0) {
    if (!ownTastes) std::fill(tastes.begin(), tastes.end(), tastes[0]);
  }
  double clickRate(std::size_t user, Id arm) const { return 1.0 / (1.0 + std::exp(1.0 - 3.0 * score(user, arm))); }
};

// Coverage and mean width of dm and dr under each scope, over `seeds` generated shops (12 items,
// `users` users, `records` logged decisions each), the candidate each user's LinUCB frozen.
struct UserModelsCoverage {
  std::map<std::string, int> covered;
  std::map<std::string, double> width;
  std::map<std::string, double> bias;
  std::map<std::string, double> seconds;
  double userLambda = 0.0;
};
UserModelsCoverage userModelsCoverage(int seeds, bool ownTastes, double favourite, std::size_t users, std::size_t records) {
  UserModelsCoverage result;
  for (int seed = 1; seed <= seeds; ++seed) {
    UserModelsShop shop(12, users, 900 + static_cast<std::uint64_t>(seed), ownTastes);
    const UsersLog logged = favouriteLoggerLog(shop, records, favourite);
    const auto states = trainedLinUcbStates(shop, 40);
    // The truth: the click rate of each record's user's choice, averaged over the records.
    std::unordered_map<Id, double> value;
    for (const auto& [user, bytes] : states) {
      PersistentLinearPolicy model = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "", shop.catalogue);
      value[user] = shop.clickRate(user, model->select());
    }
    double truth = 0.0;
    for (const Id user : logged.users) truth += value[user] / static_cast<double>(logged.users.size());
    const UserModels frozen = UserModels::frozen(shop.catalogue, states);
    std::unordered_map<std::string, Json> reports;
    for (const char* scope : {"pooled", "per-user"}) {
      const auto start = std::chrono::steady_clock::now();
      const Json report =
          PopulationEvaluation(Json{{"estimators", {"dm", "dr"}}, {"rewardModelScope", scope}}).run(frozen, nullptr, logged.log, logged.users);
      reports[scope] = report;
      result.seconds[scope] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / seeds;
      EXPECT_EQ(report["rewardModelScope"], scope);
      if (std::string(scope) == "per-user") result.userLambda += report["userLambda"].get<double>() / seeds;
      for (const char* name : {"dm", "dr"}) {
        const std::string key = std::string(name) + " " + scope;
        const Json& estimate = report[name];
        const double low = estimate["low"].get<double>();
        const double high = estimate["high"].get<double>();
        if (low <= truth && truth <= high) ++result.covered[key];
        result.width[key] += (high - low) / seeds;
        result.bias[key] += (estimate["value"].get<double>() - truth) / seeds;
      }
    }
    // The default, 'auto': dm as 'per-user' gives it, dr as 'pooled' does, to the bit.
    const Json automatic = PopulationEvaluation(Json{{"estimators", {"dm", "dr"}}}).run(frozen, nullptr, logged.log, logged.users);
    EXPECT_EQ(automatic["rewardModelScope"], "auto");
    EXPECT_EQ(automatic["dm"], reports["per-user"]["dm"]);
    EXPECT_EQ(automatic["dr"], reports["pooled"]["dr"]);
    EXPECT_EQ(automatic["userLambda"], reports["per-user"]["userLambda"]);
  }
  return result;
}

void printUserModelsCoverage(const std::string& label, int seeds, const UserModelsCoverage& result) {
  for (const auto& [key, count] : result.covered) {
    std::cout << label << ", " << key << ": covered " << count << " of " << seeds << ", mean width " << result.width.at(key)
              << ", mean error " << result.bias.at(key) << "\n";
  }
  std::cout << label << ": mean userLambda " << result.userLambda << ", seconds an evaluation: pooled " << result.seconds.at("pooled")
            << ", per-user " << result.seconds.at("per-user") << "\n";
}

// The shrunk fit: without records it is the prior's model; with a weight far above the records'
// curvature it stays near the prior; with a small one it follows the records.
TEST(PopulationUserModels, AUsersModelIsShrunkTowardsThePooledOne) {
  const std::vector<std::vector<double>> features{{1.0, 0.0}, {0.0, 1.0}, {0.5, 0.5}};
  const RewardModel::Features featuresOf = [&features](Id arm) { return features[arm].data(); };
  const std::vector<Id> arms{0, 0, 0, 0, 1, 1, 1, 1};
  // The pooled clicks: arm 0 and arm 1 alike; this user's: arm 0 always, arm 1 never.
  const std::vector<double> pooledClicks{1, 0, 1, 0, 1, 0, 1, 0};
  const std::vector<double> userClicks{1, 1, 1, 1, 0, 0, 0, 0};
  const auto every = [](std::size_t) { return true; };
  for (const RewardModel::Kind kind : {RewardModel::Kind::Logistic, RewardModel::Kind::Linear}) {
    SCOPED_TRACE(RewardModel::nameOf(kind));
    const RewardModel pooled = RewardModel::fit(kind, 1.0, 2, featuresOf, arms, pooledClicks, every);
    const RewardModel none = RewardModel::fit(kind, 1.0, 2, featuresOf, arms, userClicks, [](std::size_t) { return false; }, &pooled);
    const RewardModel stiff = RewardModel::fit(kind, 1e6, 2, featuresOf, arms, userClicks, every, &pooled);
    const RewardModel loose = RewardModel::fit(kind, 0.01, 2, featuresOf, arms, userClicks, every, &pooled);
    for (const auto& x : features) {
      EXPECT_NEAR(none.predict(x.data()), pooled.predict(x.data()), 1e-12);
      EXPECT_NEAR(stiff.predict(x.data()), pooled.predict(x.data()), 1e-4);
    }
    EXPECT_GT(loose.predict(features[0].data()), 0.9);
    EXPECT_LT(loose.predict(features[1].data()), 0.1);
    // The held-out loss prefers the model of this user's clicks on them.
    double looseLoss = 0.0;
    double pooledLoss = 0.0;
    for (std::size_t k = 0; k < arms.size(); ++k) {
      looseLoss += loose.loss(features[arms[k]].data(), userClicks[k]);
      pooledLoss += pooled.loss(features[arms[k]].data(), userClicks[k]);
    }
    EXPECT_LT(looseLoss, pooledLoss);
  }
}

// Tastes that disagree, binary clicks, 60 users with 60 logged records each over 12 items, a uniform
// logger and one that plays arm 0 40% of the time, 20 seeds each: the per-user models' dm and dr
// cover the population's true click rate in at least 90% of seeds (measured 19 and 20, 20 and 20 of
// 20); the pooled dm misses (measured 2 and 4 of 20; asserted at most half). Where every user has one
// taste the cross-validated weight comes out large (the pooled model) and the per-user dm covers as
// the pooled one does. With 20 records a user the per-user dm misses too (the sweep below: its
// shrinkage towards the pooled model is a bias its interval does not carry), which is not asserted.
TEST(PopulationUserModels, PerUserModelsCoverWhereThePooledOneMisses) {
  constexpr int kSeeds = 20;
  for (const double favourite : {1.0 / 12.0, 0.4}) {
    const std::string label = "tastes of their own, logger favourite " + std::to_string(favourite);
    const UserModelsCoverage own = userModelsCoverage(kSeeds, true, favourite, 60, 60);
    printUserModelsCoverage(label, kSeeds, own);
    EXPECT_GE(own.covered.at("dm per-user"), kSeeds * 9 / 10) << label;
    EXPECT_GE(own.covered.at("dr per-user"), kSeeds * 9 / 10) << label;
    EXPECT_LE(own.covered.at("dm pooled"), kSeeds / 2) << label;
    EXPECT_LT(own.userLambda, 64.0) << label;
  }
  const UserModelsCoverage one = userModelsCoverage(kSeeds, false, 1.0 / 12.0, 60, 60);
  printUserModelsCoverage("one taste, uniform logger", kSeeds, one);
  EXPECT_GE(one.covered.at("dm per-user"), kSeeds * 9 / 10);
  EXPECT_GE(one.covered.at("dr per-user"), kSeeds * 9 / 10);
  EXPECT_GE(one.userLambda, 256.0);
}

// The measurement of docs/evaluation.md's table (60 seeds, more records and users): run by hand.
TEST(PopulationUserModels, DISABLED_CoverageOverManySeeds) {
  constexpr int kSeeds = 60;
  for (const bool ownTastes : {true, false}) {
    for (const double favourite : {1.0 / 12.0, 0.4}) {
      for (const auto& [users, records] : {std::pair<std::size_t, std::size_t>{60, 60}, {200, 20}, {100, 200}}) {
        const std::string label = std::string(ownTastes ? "tastes of their own" : "one taste") + ", favourite " + std::to_string(favourite) +
                                  ", " + std::to_string(users) + " users x " + std::to_string(records) + " records";
        printUserModelsCoverage(label, kSeeds, userModelsCoverage(kSeeds, ownTastes, favourite, users, records));
      }
    }
  }
}

TEST(PopulationUserModels, RefusesAnUnknownScopeBeforeEvaluating) {
  expectError(ErrorCode::InvalidArgument, "rewardModelScope", [] { PopulationEvaluation(Json{{"rewardModelScope", "per-item"}}); });
  expectError(ErrorCode::InvalidArgument, "rewardModelScope", [] { PopulationEvaluation(Json{{"rewardModelScope", 1}}); });
  // Without dm or dr no reward model is fitted, and the report names none.
  UserModelsShop shop(6, 5, 3, true);
  const UsersLog logged = favouriteLoggerLog(shop, 8, 0.3);
  const Json report = PopulationEvaluation(Json{{"estimators", {"ips"}}})
                          .run(UserModels::frozen(shop.catalogue, trainedLinUcbStates(shop, 5)), nullptr, logged.log, logged.users);
  EXPECT_FALSE(report.contains("rewardModelScope"));
  EXPECT_FALSE(report.contains("userLambda"));
}

}  // namespace population_user_models_test
