#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/eval/population_evaluation.hpp"
#include "taste_shop.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::expectError;
using sublinear::testing::favouriteLoggerLog;
using sublinear::testing::trainedLinUcbStates;
using sublinear::testing::UsersLog;

namespace population_evaluation_test {
constexpr int kDim = 3;

// A small shop: arms with features in [0, 1]^3 and users with tastes; a click is Bernoulli of the
// inner product s = x^T taste clipped to [0.02, 0.98] (Linear), of sigma(-3 + 5 s) (Logistic) or of
// 0.6 where s > 0.5 and 0.1 elsewhere (Threshold).
enum class Clicks { Linear, Logistic, Threshold };
struct Shop : sublinear::testing::TasteShop {
  Clicks clicks = Clicks::Linear;

  Shop(std::size_t armCount, std::size_t userCount, std::uint64_t seed) : TasteShop(kDim, armCount, userCount, seed, 0.0, 1.0, 0.0, 0.6) {}
  double clickRate(std::size_t user, Id arm) const {
    const double mean = score(user, arm);
    if (clicks == Clicks::Logistic) return 1.0 / (1.0 + std::exp(3.0 - 5.0 * mean));
    if (clicks == Clicks::Threshold) return mean > 0.5 ? 0.6 : 0.1;
    return std::clamp(mean, 0.02, 0.98);
  }
};

TEST(PopulationEvaluation, PairedDifferenceIsTheDifferenceWithANarrowerInterval) {
  Shop shop(8, 60, 1);
  const UsersLog logged = favouriteLoggerLog(shop, 60, 1.0 / 8.0);
  const UserModels weak = UserModels::frozen(shop.catalogue, trainedLinUcbStates(shop, 10));
  const UserModels strong = UserModels::frozen(shop.catalogue, trainedLinUcbStates(shop, 40));
  const PopulationEvaluation evaluation(Json::object());
  const Json report = evaluation.run(strong, &weak, logged.log, logged.users);
  EXPECT_EQ(report["users"], 60);
  for (const char* name : {"ips", "snips", "dm", "dr"}) {
    SCOPED_TRACE(name);
    const Json& candidate = report[name];
    const Json& baseline = report["baseline"][name];
    const Json& difference = report["difference"][name];
    EXPECT_NEAR(difference["value"].get<double>(), candidate["value"].get<double>() - baseline["value"].get<double>(), 1e-12);
    const double separate = (candidate["high"].get<double>() - candidate["low"].get<double>()) +
                            (baseline["high"].get<double>() - baseline["low"].get<double>());
    const double paired = difference["high"].get<double>() - difference["low"].get<double>();
    // Two separate intervals combined as if independent would be sqrt(2) / 2 of their summed width.
    EXPECT_LT(paired, 0.5 * separate);
  }
  // A population against itself: exactly no difference, with no width (the terms cancel per user).
  const Json self = evaluation.run(weak, &weak, logged.log, logged.users);
  EXPECT_EQ(self["difference"]["ips"]["value"].get<double>(), 0.0);
  EXPECT_EQ(self["difference"]["ips"]["high"].get<double>(), 0.0);
  // The frozen estimates with the diagnostics of their weights.
  const Json& diagnostics = report["diagnostics"];
  EXPECT_EQ(diagnostics["largestWeights"].size(), 5u);
  EXPECT_NEAR(diagnostics["largestWeights"][0].get<double>(), 8.0, 1e-9);  // a deterministic user over a uniform logger
  EXPECT_EQ(diagnostics["clippedShare"].get<double>(), 0.0);
  EXPECT_GT(diagnostics["zeroWeightRecords"].get<std::size_t>(), 0u);
  // Clipped at 4: half of every positive weight is cut.
  const Json clipped = PopulationEvaluation(Json{{"clip", 4}}).run(strong, nullptr, logged.log, logged.users);
  EXPECT_NEAR(clipped["diagnostics"]["clippedShare"].get<double>(), 0.5, 1e-9);
}

// A slate log's record at position j is weighed by what the user would show at j, under the record's
// filter; the report has each position's estimates beside those of every record.
TEST(PopulationEvaluation, ARecordIsWeighedByTheUsersChoiceAtItsPositionUnderItsFilter) {
  Shop shop(8, 10, 4);
  UsersLog logged = favouriteLoggerLog(shop, 40, 1.0 / 8.0);
  const std::unordered_map<Id, std::vector<std::uint8_t>> states = trainedLinUcbStates(shop, 30);
  logged.log.positions.assign(logged.log.size(), 0);
  logged.log.filters.assign(logged.log.size(), ArmFilter{});
  std::size_t expectedZero = 0;
  for (std::size_t i = 0; i < logged.log.size(); ++i) {
    // Positions 0 and 2 (none at 1); every third record was decided without arm 5 (unless it showed arm 5).
    logged.log.positions[i] = i % 2 == 0 ? 0 : 2;
    if (i % 3 == 0 && logged.log.arms[i] != 5) logged.log.filters[i].exclude = {5};
    PersistentLinearPolicy user = PersistentLinearPolicy::fromBytes(states.at(logged.users[i]).data(), states.at(logged.users[i]).size(), "", shop.catalogue);
    const std::uint32_t position = logged.log.positions[i];
    if (user->selectSlate(position + 1, logged.log.filters[i])[position] != logged.log.arms[i]) ++expectedZero;
  }
  const UserModels frozen = UserModels::frozen(shop.catalogue, states);
  const UserModels learning = UserModels::learning(shop.catalogue, Json{{"type", "lin-ucb"}});
  const Json report = PopulationEvaluation(Json::object()).run(frozen, nullptr, logged.log, logged.users);
  EXPECT_EQ(report["diagnostics"]["zeroWeightRecords"].get<std::size_t>(), expectedZero);
  EXPECT_LT(expectedZero, logged.log.size());
  ASSERT_EQ(report["positions"].size(), 3u);
  EXPECT_TRUE(report["positions"][1].is_null());
  for (const char* name : {"ips", "dm", "dr"}) {
    SCOPED_TRACE(name);
    // Half the records at each position: the value of all of them is the mean of the two.
    const double mean = (report["positions"][0][name]["value"].get<double>() + report["positions"][2][name]["value"].get<double>()) / 2;
    EXPECT_NEAR(report[name]["value"].get<double>(), mean, 1e-12);
    EXPECT_EQ(report["positions"][0][name]["n"], logged.log.size() / 2);
  }
  // Against a learning baseline: per position too (no estimator in common, no difference).
  const Json paired = PopulationEvaluation(Json::object()).run(frozen, &learning, logged.log, logged.users);
  EXPECT_TRUE(paired["positions"][2]["baseline"].contains("replay"));
  EXPECT_TRUE(paired["positions"][2]["difference"].empty());
  const Json self = PopulationEvaluation(Json::object()).run(learning, &learning, logged.log, logged.users);
  EXPECT_EQ(self["positions"][0]["difference"]["replay"]["value"].get<double>(), 0.0);
}

TEST(PopulationEvaluation, BootstrapIntervalsAreSeededAndAgreeWithTheNormalOnes) {
  Shop shop(8, 80, 2);
  const UsersLog logged = favouriteLoggerLog(shop, 50, 1.0 / 8.0);
  const UserModels candidate = UserModels::frozen(shop.catalogue, trainedLinUcbStates(shop, 40));
  const UserModels baseline = UserModels::frozen(shop.catalogue, trainedLinUcbStates(shop, 10));
  const Json normal = PopulationEvaluation(Json::object()).run(candidate, &baseline, logged.log, logged.users);
  const Json options{{"interval", "bootstrap"}, {"resamples", 400}, {"seed", 3}};
  const Json boot = PopulationEvaluation(options).run(candidate, &baseline, logged.log, logged.users);
  EXPECT_EQ(boot, PopulationEvaluation(options).run(candidate, &baseline, logged.log, logged.users));
  EXPECT_EQ(boot["interval"], "bootstrap");
  for (const char* name : {"ips", "snips", "dr"}) {
    SCOPED_TRACE(name);
    for (const Json* part : {&normal[name], &normal["difference"][name]}) {
      const Json& other = part == &normal[name] ? boot[name] : boot["difference"][name];
      const double width = (*part)["high"].get<double>() - (*part)["low"].get<double>();
      const double bootWidth = other["high"].get<double>() - other["low"].get<double>();
      EXPECT_EQ(other["value"], (*part)["value"]);
      EXPECT_GT(width, 0.0);
      EXPECT_NEAR(bootWidth / width, 1.0, 0.3) << *part << " " << other;
    }
  }
}

// A learning population replayed from a logger that prefers arm 0 (60% of its picks over 6 arms):
// with rejection by the propensities the estimate covers the population's online value; matching
// without rejection (acceptance 1) leans towards arm 0 and misses.
TEST(PopulationEvaluation, RejectionReplayOfALearningPopulationCoversItsOnlineValue) {
  constexpr int kSeeds = 24;
  constexpr std::size_t kUsers = 60;
  int covered = 0;
  double rejectionError = 0.0;
  double matchingError = 0.0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    Shop shop(6, kUsers, 100 + static_cast<std::uint64_t>(seed));
    // Arm 0, the logger's favourite, is the worst for everyone.
    std::fill(shop.features[0].begin(), shop.features[0].end(), 0.05);
    std::vector<double> rows;
    for (const auto& x : shop.features) rows.insert(rows.end(), x.begin(), x.end());
    shop.catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"index", Json{{"type", "exact"}}}, {"seed", 5}});
    shop.catalogue->add(shop.items.data(), shop.items.size(), rows.data(), rows.size(), nullptr, 0);
    const UsersLog logged = favouriteLoggerLog(shop, 300, 0.6);
    const Json spec{{"type", "lin-ts"}, {"seed", static_cast<std::uint64_t>(seed)}};
    const UserModels learning = UserModels::learning(shop.catalogue, spec);
    const Json report = PopulationEvaluation(Json{{"seed", seed}}).run(learning, nullptr, logged.log, logged.users);
    const Json& replay = report["replay"];
    const double horizon = report["horizon"].get<double>();
    EXPECT_GT(horizon, 15.0);
    EXPECT_EQ(report["diagnostics"]["cappedRecords"], 0);
    // The truth: each user's own LinTS run online for `horizon` steps (the expected click rates of
    // its choices), averaged over replications.
    constexpr int kReplications = 10;
    const auto steps = static_cast<int>(std::lround(horizon));
    double truth = 0.0;
    for (int r = 0; r < kReplications; ++r) {
      for (std::size_t u = 0; u < kUsers; ++u) {
        Json own = spec;
        own["seed"] = 1000 * (r + 1) + static_cast<int>(u);
        PersistentLinearPolicy user(own, shop.catalogue);
        for (int t = 0; t < steps; ++t) {
          const Id arm = user->select();
          truth += shop.clickRate(u, arm);
          user->update(arm, shop.random.bernoulli(shop.clickRate(u, arm)) ? 1.0 : 0.0);
        }
      }
    }
    truth /= static_cast<double>(kReplications * kUsers * steps);
    if (replay["low"].get<double>() <= truth && truth <= replay["high"].get<double>()) ++covered;
    rejectionError += (replay["value"].get<double>() - truth) / kSeeds;
    const Json matching = PopulationEvaluation(Json{{"seed", seed}, {"acceptance", 1}}).run(learning, nullptr, logged.log, logged.users);
    matchingError += (matching["replay"]["value"].get<double>() - truth) / kSeeds;
  }
  std::cout << "rejection replay: " << covered << " of " << kSeeds << " covered, mean error " << rejectionError
            << "; matching without rejection: mean error " << matchingError << "\n";
  EXPECT_GE(covered, kSeeds * 85 / 100);
  EXPECT_LT(std::abs(rejectionError), 0.01);
  EXPECT_LT(matchingError, -0.02);
}

TEST(PopulationEvaluation, RefusesABadPopulationLogBeforeEvaluating) {
  Shop shop(5, 4, 3);
  const UsersLog logged = favouriteLoggerLog(shop, 5, 0.2);
  const UserModels frozen = UserModels::frozen(shop.catalogue, trainedLinUcbStates(shop, 3));
  const UserModels learning = UserModels::learning(shop.catalogue, Json{{"type", "lin-ucb"}});
  const PopulationEvaluation evaluation(Json::object());
  std::vector<Id> shortUsers(logged.users.begin(), logged.users.end() - 1);
  expectError(ErrorCode::InvalidArgument, "users must have one entry per decision", [&] { evaluation.run(frozen, nullptr, logged.log, shortUsers); });
  std::vector<Id> stranger = logged.users;
  stranger[7] = 4000000000U;
  expectError(ErrorCode::UnknownId, "log record 7: user 4000000000 has no saved state in users.states",
              [&] { evaluation.run(frozen, nullptr, logged.log, stranger); });
  expectError(ErrorCode::UnknownId, "in baseline.states", [&] { evaluation.run(learning, &frozen, logged.log, stranger); });
  expectError(ErrorCode::InvalidArgument, "'replay' does not apply to a frozen population",
              [&] { PopulationEvaluation(Json{{"estimators", {"replay"}}}).run(frozen, nullptr, logged.log, logged.users); });
  expectError(ErrorCode::InvalidArgument, "'ips' does not apply to a learning population",
              [&] { PopulationEvaluation(Json{{"estimators", {"ips"}}}).run(learning, nullptr, logged.log, logged.users); });
  expectError(ErrorCode::InvalidArgument, "is the catalogue's", [&] { UserModels::learning(shop.catalogue, Json{{"type", "lin-ucb"}, {"dim", 3}}); });
  // A state that does not restore is refused naming its user; the same states learning on from there.
  std::unordered_map<Id, std::vector<std::uint8_t>> states = trainedLinUcbStates(shop, 3);
  const UserModels learningOn = UserModels::learningFrom(shop.catalogue, states);
  const Json learnedOn = evaluation.run(learningOn, nullptr, logged.log, logged.users);
  EXPECT_TRUE(learnedOn.contains("replay"));
  EXPECT_TRUE(learnedOn.contains("horizon"));
  states[2].resize(states[2].size() - 1);
  const UserModels damaged = UserModels::frozen(shop.catalogue, states);
  expectError(ErrorCode::CorruptState, "the saved state of user 2: ", [&] { evaluation.run(damaged, nullptr, logged.log, logged.users); });
  // Two learning populations: paired on the same acceptance draws, so a population against itself
  // differs by exactly nothing, and another one by the difference of the two values.
  const UserModels thompson = UserModels::learning(shop.catalogue, Json{{"type", "lin-ts"}});
  const Json same = evaluation.run(learning, &learning, logged.log, logged.users);
  EXPECT_EQ(same["difference"]["replay"]["value"].get<double>(), 0.0);
  EXPECT_EQ(same["difference"]["replay"]["high"].get<double>(), 0.0);
  const Json against = evaluation.run(learning, &thompson, logged.log, logged.users);
  EXPECT_NEAR(against["difference"]["replay"]["value"].get<double>(),
              against["replay"]["value"].get<double>() - against["baseline"]["replay"]["value"].get<double>(), 1e-12);
  // A learning candidate against a frozen baseline: no estimator in common, no difference.
  const Json mixed = evaluation.run(learning, &frozen, logged.log, logged.users);
  EXPECT_TRUE(mixed["difference"].empty());
  EXPECT_TRUE(mixed.contains("horizon"));
  EXPECT_TRUE(mixed["baseline"].contains("ips"));
}

// Clicks from a logistic and from a threshold click model that every user shares (the pooled reward
// model's assumption: a click depends on the item's features, not on who sees it), logged uniformly
// and by a logger that prefers arm 0 (40% of its picks); the candidate every user's own LinUCB after
// 40 random pulls of its own (users who chose differently), frozen. With the default reward model
// (logistic, the rewards being clicks) DR's 95% intervals cover the population's true click rate
// (each record's user's choice's click rate, averaged over the records) in at least 36 of 40 seeds
// in every case, DM's where every user's clicks follow one logistic model (measured 40 and 38 of
// 40). With tastes of their own the default per-user models' DM covered 38 and 35 (logistic) and 39
// and 36 (threshold: each user's model bends to its own clicks; the pooled model's DM covered 31 and
// 33 on logistic clicks before), with one taste and threshold clicks 16 and 17 (no logistic model
// fits them): printed, not asserted (population_user_models_test.cpp asserts the per-user models'
// coverage where the pooled one misses).
TEST(PopulationEvaluation, OnClicksTheLogisticRewardModelCovers) {
  constexpr int kSeeds = 40;
  for (const Clicks clicks : {Clicks::Logistic, Clicks::Threshold}) {
    for (const double favourite : {1.0 / 12.0, 0.4}) {
      for (const bool ownTastes : {false, true}) {
        std::map<std::string, int> covered;
        for (int seed = 1; seed <= kSeeds; ++seed) {
          Shop shop(12, 60, 500 + static_cast<std::uint64_t>(seed));
          shop.clicks = clicks;
          if (!ownTastes) std::fill(shop.tastes.begin(), shop.tastes.end(), shop.tastes[0]);
          const UsersLog logged = favouriteLoggerLog(shop, 60, favourite);
          const auto states = trainedLinUcbStates(shop, 40);
          std::unordered_map<Id, double> value;
          for (const auto& [user, bytes] : states) {
            PersistentLinearPolicy model = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "", shop.catalogue);
            value[user] = shop.clickRate(user, model->select());
          }
          double truth = 0.0;
          for (const Id user : logged.users) truth += value[user] / static_cast<double>(logged.users.size());
          const Json report = PopulationEvaluation(Json{{"estimators", {"dm", "dr"}}})
                                  .run(UserModels::frozen(shop.catalogue, states), nullptr, logged.log, logged.users);
          EXPECT_EQ(report["rewardModel"], "logistic");
          for (const char* name : {"dm", "dr"}) {
            const Json& estimate = report[name];
            if (estimate["low"].get<double>() <= truth && truth <= estimate["high"].get<double>()) ++covered[name];
          }
        }
        const std::string label = std::string(clicks == Clicks::Logistic ? "logistic" : "threshold") + " clicks, logger favourite " +
                                  std::to_string(favourite) + (ownTastes ? ", tastes of their own" : ", one taste");
        for (const auto& [name, count] : covered) std::cout << label << ", " << name << ": covered " << count << " of " << kSeeds << "\n";
        EXPECT_GE(covered["dr"], kSeeds * 9 / 10) << label;
        if (!ownTastes && clicks == Clicks::Logistic) EXPECT_GE(covered["dm"], kSeeds * 9 / 10) << label;
      }
    }
  }
}

}  // namespace population_evaluation_test
