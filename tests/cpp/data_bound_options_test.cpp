// Options whose range the data narrow (a matroid's rank at most K, a promotion's users at least k,
// ...): read through their tables' widest range, then held to the data's bound, refused with the
// message a read over the narrowed range gives, and accepted at the bound itself.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/bounded_me_solver.hpp"
#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace data_bound_options_test {

Json run(Json environment, Json policy) {
  return Json{{"environment", std::move(environment)}, {"policy", std::move(policy)}, {"horizon", 2}, {"seed", 1}};
}

TEST(DataBoundOptions, MatroidRankAndGroupsAtMostK) {
  const Json policy{{"type", "cucb"}};
  expectError(ErrorCode::InvalidArgument, "option 'rank' must be an integer in [1, 10]",
              [&] { simulate(run({{"type", "matroid"}, {"K", 10}, {"matroid", {{"kind", "uniform"}, {"rank", 11}}}}, policy)); });
  expectError(ErrorCode::InvalidArgument, "option 'groups' must be an integer in [1, 10]",
              [&] { simulate(run({{"type", "matroid"}, {"K", 10}, {"matroid", {{"kind", "partition"}, {"groups", 11}}}}, policy)); });
  EXPECT_NO_THROW(simulate(run({{"type", "matroid"}, {"K", 10}, {"matroid", {{"kind", "uniform"}, {"rank", 10}}}}, policy)));
  // Beyond the table's widest range the table's own refusal answers.
  expectError(ErrorCode::InvalidArgument, "option 'rank' must be an integer in [1, 100000000]",
              [&] { simulate(run({{"type", "matroid"}, {"K", 10}, {"matroid", {{"kind", "uniform"}, {"rank", 1e9}}}}, policy)); });
}

TEST(DataBoundOptions, ClusteredKAtMostTheArms) {
  const Json policy{{"type", "c2ucb"}};
  expectError(ErrorCode::InvalidArgument, "option 'k' must be an integer in [1, 20]",
              [&] { simulate(run({{"type", "clustered"}, {"arms", 20}, {"k", 21}}, policy)); });
  EXPECT_NO_THROW(simulate(run({{"type", "clustered"}, {"dim", 4}, {"arms", 20}, {"k", 20}}, policy)));
}

TEST(DataBoundOptions, PromotionUsersAtLeastKAndPopulationAtLeastUsers) {
  const Json policy{{"type", "c2ucb"}};
  expectError(ErrorCode::InvalidArgument, "option 'users' must be an integer in [5, 100000000]",
              [&] { simulate(run({{"type", "promotion"}, {"k", 5}, {"users", 4}}, policy)); });
  expectError(ErrorCode::InvalidArgument, "option 'population' must be an integer in [50, 100000000]",
              [&] { simulate(run({{"type", "promotion"}, {"k", 5}, {"users", 50}, {"population", 49}}, policy)); });
}

TEST(DataBoundOptions, BoundedMeKAtMostTheArms) {
  const std::vector<double> rewards(3 * 4, 0.5);
  expectError(ErrorCode::InvalidArgument, "option 'k' must be an integer in [1, 3]",
              [&] { solveBoundedPulls(rewards.data(), rewards.size(), 3, 4, Json{{"k", 4}}); });
  EXPECT_EQ(solveBoundedPulls(rewards.data(), rewards.size(), 3, 4, Json{{"k", 3}, {"seed", 1}}).arms.size(), 3u);
}

TEST(DataBoundOptions, TheCheckNamesTheNarrowedRange) {
  expectError(ErrorCode::InvalidArgument, "option 'x' must be an integer in [2, 7]", [] { requireIntegerOptionWithin("x", 8, 2, 7); });
  expectError(ErrorCode::InvalidArgument, "option 'x' must be an integer in [2, 7]", [] { requireIntegerOptionWithin("x", 1, 2, 7); });
  EXPECT_NO_THROW(requireIntegerOptionWithin("x", 2, 2, 7));
  EXPECT_NO_THROW(requireIntegerOptionWithin("x", 7, 2, 7));
}

}  // namespace data_bound_options_test
}  // namespace sublinear::testing
