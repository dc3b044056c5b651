// simulate() on Liu et al.'s (arXiv:1812.06360) adversarial MAB-BP instances: BoundedME's (epsilon,
// delta) guarantee holds round by round, and the trial reports what the guarantee is about.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace mab_bp_trial_test {

std::vector<double> perRoundRegret(const SimulationRun& run) {
  std::vector<double> regrets;
  double before = 0.0;
  for (const double total : run.cumulativeRegret) {
    regrets.push_back(total - before);
    before = total;
  }
  return regrets;
}

TEST(MabBpTrial, TheOneMinusDeltaPercentileSuboptimalityIsAtMostEpsilon) {
  for (const double epsilon : {0.05, 0.2, 0.4}) {
    const double delta = 0.1;
    const Json config{{"environment", {{"type", "mab-bp"}, {"arms", 300}, {"listLength", 2000}}},
                      {"policy", {{"type", "bounded-me"}, {"epsilon", epsilon}, {"delta", delta}}},
                      {"horizon", 40}, {"seed", 3}, {"recordEvery", 1}};
    const SimulationResult result = simulate(config);
    std::vector<double> regrets = perRoundRegret(result.runs.front());
    ASSERT_EQ(regrets.size(), 40u);
    for (const double regret : regrets) {
      EXPECT_GE(regret, 0.0);
      EXPECT_LE(regret, 1.0);
    }
    std::sort(regrets.begin(), regrets.end());
    const double percentile = regrets[static_cast<std::size_t>((1.0 - delta) * regrets.size()) - 1];
    EXPECT_LE(percentile, epsilon) << "epsilon " << epsilon;
    // Bounded pulls: never more than K lists read in full per round.
    EXPECT_LE(result.runs.front().innerProducts, 300u * 40u);
    EXPECT_GT(result.runs.front().innerProducts, 0u);
  }
}

TEST(MabBpTrial, SmallerEpsilonCostsMorePullsAndOtherPoliciesAreRefused) {
  auto pulls = [](double epsilon) {
    const Json config{{"environment", {{"type", "mab-bp"}, {"arms", 200}, {"listLength", 5000}}},
                      {"policy", {{"type", "bounded-me"}, {"epsilon", epsilon}}}, {"horizon", 5}, {"seed", 1}};
    return simulate(config).runs.front().innerProducts;
  };
  EXPECT_GT(pulls(0.05), pulls(0.4));
  expectError(ErrorCode::InvalidArgument, "bounded-me", [] {
    simulate(Json{{"environment", {{"type", "mab-bp"}}}, {"policy", {{"type", "lin-ucb"}}}, {"horizon", 1}});
  });
  expectError(ErrorCode::InvalidArgument, "epsilon", [] {
    simulate(Json{{"environment", {{"type", "mab-bp"}}}, {"policy", {{"type", "bounded-me"}, {"epsilon", 1.5}}}, {"horizon", 1}});
  });
}

}  // namespace mab_bp_trial_test
}  // namespace sublinear::testing
