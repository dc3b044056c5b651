#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "sublinear/cls/super_arm_oracle.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "test_support.hpp"

using sublinear::testing::codeOf;

using namespace sublinear;

TEST(ClsOracle, TopKMatchesAFullSort) {
  Random random(5);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t n = 1 + random.uniformInt(300);
    std::vector<double> scores(n);
    // Coarse values so that ties occur.
    for (double& s : scores) s = static_cast<double>(random.uniformInt(20));
    SuperArmConstraint constraint;
    constraint.k = 1 + random.uniformInt(n);
    const std::vector<Id> chosen = SuperArmOracle::select(scores, constraint);
    std::vector<Id> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](Id a, Id b) { return scores[a] > scores[b]; });
    order.resize(constraint.k);
    EXPECT_EQ(chosen, order);
  }
}

TEST(ClsOracle, QuotasGiveTheBestFeasibleSetByEnumeration) {
  Random random(9);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 2 + random.uniformInt(10);
    std::vector<double> scores(n);
    for (double& s : scores) s = random.normal();
    SuperArmConstraint constraint;
    const std::size_t groupCount = 1 + random.uniformInt(3);
    constraint.groups.resize(n);
    for (auto& g : constraint.groups) g = static_cast<std::uint32_t>(random.uniformInt(groupCount)) * 7;
    constraint.perGroup = 1 + random.uniformInt(3);
    std::map<std::uint32_t, std::size_t> sizes;
    for (auto g : constraint.groups) ++sizes[g];
    std::size_t capacity = 0;
    for (auto& [g, size] : sizes) capacity += std::min(size, constraint.perGroup);
    constraint.k = 1 + random.uniformInt(capacity);
    SuperArmOracle::validate(constraint, n);
    const std::vector<Id> chosen = SuperArmOracle::select(scores, constraint);
    ASSERT_EQ(chosen.size(), constraint.k);
    std::map<std::uint32_t, std::size_t> taken;
    double total = 0.0;
    for (Id row : chosen) {
      EXPECT_LE(++taken[constraint.groups[row]], constraint.perGroup);
      total += scores[row];
    }
    std::vector<Id> sorted = chosen;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // Brute force over all subsets of size k that respect the quotas.
    double best = -1e300;
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) != constraint.k) continue;
      std::map<std::uint32_t, std::size_t> counts;
      bool feasible = true;
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        if (!(mask >> i & 1u)) continue;
        if (++counts[constraint.groups[i]] > constraint.perGroup) feasible = false;
        sum += scores[i];
      }
      if (feasible) best = std::max(best, sum);
    }
    EXPECT_NEAR(total, best, 1e-12);
  }
}

TEST(ClsOracle, ValidatesTheConstraint) {
  SuperArmConstraint constraint;
  constraint.k = 0;
  EXPECT_EQ(codeOf([&] { SuperArmOracle::validate(constraint, 5); }), ErrorCode::InvalidArgument);
  constraint.k = 6;
  EXPECT_EQ(codeOf([&] { SuperArmOracle::validate(constraint, 5); }), ErrorCode::InvalidArgument);
  constraint.k = 2;
  constraint.groups = {0, 0, 1};
  EXPECT_EQ(codeOf([&] { SuperArmOracle::validate(constraint, 5); }), ErrorCode::DimensionMismatch);
  constraint.groups = {0, 0, 1, 1, 1};
  constraint.perGroup = 0;
  EXPECT_EQ(codeOf([&] { SuperArmOracle::validate(constraint, 5); }), ErrorCode::InvalidArgument);
  constraint.perGroup = 1;
  constraint.k = 3;  // two groups, one each: at most 2
  EXPECT_EQ(codeOf([&] { SuperArmOracle::validate(constraint, 5); }), ErrorCode::InvalidArgument);
  constraint.k = 2;
  EXPECT_NO_THROW(SuperArmOracle::validate(constraint, 5));
}
