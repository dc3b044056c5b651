// simulate() on Liu et al.'s (arXiv:1812.06360) synthetic MIPS experiments: precision@k against the
// exact top-k per query, index construction as setup, the query as select.
#include <gtest/gtest.h>

#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace mips_trial_test {

SimulationRun runIndex(const Json& policy, const std::string& dataset = "gaussian") {
  const Json config{{"environment", {{"type", "mips"}, {"items", 400}, {"dim", 64}, {"dataset", dataset}}},
                    {"policy", policy}, {"horizon", 30}, {"seed", 2}, {"recordEvery", 30}};
  return simulate(config).runs.front();
}

TEST(MipsTrial, PrecisionIsOneForExactMethodsAndLowerForAShallowTree) {
  for (const std::string dataset : {"gaussian", "uniform"}) {
    const SimulationRun exact = runIndex(Json{{"type", "exact"}, {"k", 5}}, dataset);
    EXPECT_EQ(exact.cumulativeReward.back(), 30.0) << dataset;
    EXPECT_EQ(exact.cumulativeRegret.back(), 0.0);
    // A PCA tree of depth 0 is one leaf: the exact scan again.
    EXPECT_EQ(runIndex(Json{{"type", "pca-tree"}, {"depth", 0}, {"k", 5}}, dataset).cumulativeReward.back(), 30.0);
    const SimulationRun deep = runIndex(Json{{"type", "pca-tree"}, {"depth", 5}, {"k", 5}}, dataset);
    EXPECT_LT(deep.cumulativeReward.back(), 30.0) << dataset;
    EXPECT_LT(deep.innerProducts, exact.innerProducts) << dataset;
    const SimulationRun bounded = runIndex(Json{{"type", "bounded-me"}, {"epsilon", 0.05}, {"delta", 0.05}, {"k", 5}}, dataset);
    EXPECT_GT(bounded.cumulativeReward.back(), 0.6 * 30.0) << dataset;
    EXPECT_GT(bounded.clock.setup + bounded.clock.select, 0.0);
  }
}

TEST(MipsTrial, RejectsBadOptions) {
  const auto config = [](const Json& environment, const Json& policy) {
    return Json{{"environment", environment}, {"policy", policy}, {"horizon", 1}};
  };
  expectError(ErrorCode::InvalidArgument, "dataset", [&] { simulate(config({{"type", "mips"}, {"dataset", "cauchy"}}, {{"type", "exact"}})); });
  expectError(ErrorCode::InvalidArgument, "unknown index type", [&] { simulate(config({{"type", "mips"}}, {{"type", "sub-ts"}})); });
  expectError(ErrorCode::InvalidArgument, "'k'", [&] { simulate(config({{"type", "mips"}, {"items", 3}}, {{"type", "exact"}, {"k", 4}})); });
}

}  // namespace mips_trial_test
}  // namespace sublinear::testing
