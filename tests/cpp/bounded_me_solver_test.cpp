#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/bounded_me_solver.hpp"

using namespace sublinear;

namespace bounded_me_solver_test {
// Liu et al.'s (arXiv:1812.06360) MAB-BP setting: arm a's list holds round(p_a N) ones and zeros
// otherwise, p_a uniform in [0, 1]; a pull draws without replacement, independently per arm (an exact
// hypergeometric walk: the next reward is 1 with probability ones left / rewards left).
struct BernoulliLists {
  std::size_t length;
  std::vector<std::size_t> ones;
  std::vector<std::size_t> onesLeft, drawn;
  Random draws;

  BernoulliLists(std::size_t arms, std::size_t length, Random& random) : length(length), draws(random.split()) {
    for (std::size_t a = 0; a < arms; ++a) ones.push_back(static_cast<std::size_t>(std::floor(random.uniform() * static_cast<double>(length) + 0.5)));
    onesLeft = ones;
    drawn.assign(arms, 0);
  }
  double mean(std::size_t arm) const { return static_cast<double>(ones[arm]) / static_cast<double>(length); }
  double pull(std::size_t arm, std::size_t from, std::size_t to) {
    EXPECT_EQ(from, drawn[arm]) << "pulls must continue where the arm stopped";
    EXPECT_LE(to, length) << "an arm was pulled more than N times";
    double sum = 0;
    for (std::size_t p = from; p < to; ++p) {
      const std::size_t left = length - drawn[arm];
      if (draws.uniformInt(left) < onesLeft[arm]) {
        --onesLeft[arm];
        sum += 1;
      }
      ++drawn[arm];
    }
    return sum;
  }
};

// K-th largest mean among the given arms.
double kthMean(const BernoulliLists& lists, std::vector<std::size_t> arms, std::size_t k) {
  std::vector<double> means;
  for (auto arm : arms) means.push_back(lists.mean(arm));
  std::sort(means.begin(), means.end(), std::greater<>());
  return means[k - 1];
}

TEST(BoundedMESolver, SampleSizeIsEquationSix) {
  // m(u) = min{(u+1)/(1+u/N), (u+u/N)/(1+u/N)}, below N for every u > 0.
  EXPECT_DOUBLE_EQ(BoundedMESolver::sampleSize(100, 1000), std::min(101 / 1.1, 100.1 / 1.1));
  EXPECT_DOUBLE_EQ(BoundedMESolver::sampleSize(5000, 1000), std::min(5001 / 6.0, 5005 / 6.0));
  EXPECT_LT(BoundedMESolver::sampleSize(1e12, 1000), 1000);
  // Line 7 for |S| = 10^4, K = 1, eps_1 = 0.1/4, delta_1 = 0.1/2, N = 10^5, computed independently.
  const double u = 2 / (0.025 * 0.025) * std::log(2.0 * 9999 / (0.05 * (5000 + 1)));
  const double m = std::min((u + 1) / (1 + u / 1e5), (u + u / 1e5) / (1 + u / 1e5));
  EXPECT_EQ(BoundedMESolver::roundPulls(0.025, 0.05, 10000, 1, 100000), static_cast<std::size_t>(std::ceil(m)));
  EXPECT_EQ(BoundedMESolver::roundPulls(1e-6, 0.05, 10000, 1, 100000), 100000u);  // tiny epsilon: read everything
  EXPECT_LE(BoundedMESolver::roundPulls(1e-9, 1e-9, 10000, 1, 777), 777u);
}

TEST(BoundedMESolver, EpsilonDeltaGuaranteeOnBernoulliLists) {
  // Over 20 seeds the (1 - delta)-percentile of the suboptimality stays below epsilon (Theorem 1).
  const std::size_t arms = 300, length = 10000;
  for (const std::size_t k : {1u, 5u}) {
    for (const double epsilon : {0.1, 0.2, 0.4}) {
      const double delta = 0.1;
      const BoundedMESolver solver(epsilon, delta);
      std::vector<double> suboptimality;
      std::uint64_t pulls = 0;
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        Random random(seed * 7919 + k);
        BernoulliLists lists(arms, length, random);
        const auto result = solver.solve(arms, length, k, [&](std::size_t a, std::size_t from, std::size_t to) { return lists.pull(a, from, to); });
        ASSERT_EQ(result.arms.size(), k);
        std::vector<std::size_t> all(arms);
        std::iota(all.begin(), all.end(), 0);
        suboptimality.push_back(kthMean(lists, all, k) - kthMean(lists, result.arms, k));
        pulls += result.pulls;
        for (std::size_t a = 0; a < arms; ++a) EXPECT_LE(lists.drawn[a], length);
      }
      std::sort(suboptimality.begin(), suboptimality.end());
      const double percentile = suboptimality[static_cast<std::size_t>(std::ceil((1 - delta) * 20)) - 1];
      EXPECT_LE(percentile, epsilon) << "k " << k << " epsilon " << epsilon;
      // Sublinear: fewer pulls than reading every list (except when epsilon forces full reads).
      if (epsilon >= 0.2) {
        EXPECT_LT(pulls, 20u * arms * length / 2) << "epsilon " << epsilon;
      }
    }
  }
}

TEST(BoundedMESolver, EliminationFollowsTheEmpiricalMeans) {
  // Deterministic lists read in their given order: arm a's rewards are all a/10, so the top 3 are 9, 8, 7.
  const std::size_t arms = 10, length = 50;
  std::vector<double> rewards(arms * length);
  for (std::size_t a = 0; a < arms; ++a) std::fill(rewards.begin() + a * length, rewards.begin() + (a + 1) * length, a / 10.0);
  const BoundedMESolver solver(0.5, 0.5);
  Random random(1);
  const auto result = solver.solveLists(rewards.data(), arms, length, 3, BoundedMESolver::DrawOrder::Given, 0, 1, random);
  EXPECT_EQ(result.arms, (std::vector<std::size_t>{9, 8, 7}));
  EXPECT_GT(result.rounds, 1u);
  EXPECT_LE(result.pulls, arms * length);
  for (const auto order : {BoundedMESolver::DrawOrder::Shared, BoundedMESolver::DrawOrder::Independent}) {
    EXPECT_EQ(solver.solveLists(rewards.data(), arms, length, 3, order, 0, 1, random).arms, (std::vector<std::size_t>{9, 8, 7}));
  }
}

TEST(BoundedMESolver, IndependentOrderIsAPermutationOfEachList) {
  // Read in full (tiny epsilon), every order must give the exact means: each reward drawn exactly once.
  const std::size_t arms = 30, length = 40;
  Random random(5);
  std::vector<double> rewards(arms * length);
  for (auto& r : rewards) r = random.uniform();
  std::vector<std::pair<double, std::size_t>> means;
  for (std::size_t a = 0; a < arms; ++a) {
    double sum = 0;
    for (std::size_t j = 0; j < length; ++j) sum += rewards[a * length + j];
    means.emplace_back(-sum, a);
  }
  std::sort(means.begin(), means.end());
  const BoundedMESolver solver(1e-3, 1e-3);
  for (const auto order : {BoundedMESolver::DrawOrder::Shared, BoundedMESolver::DrawOrder::Independent, BoundedMESolver::DrawOrder::Given}) {
    const auto result = solver.solveLists(rewards.data(), arms, length, 4, order, 0, 1, random);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(result.arms[i], means[i].second);
    EXPECT_EQ(result.pulls, arms * length);
  }
}

TEST(BoundedMESolver, InvalidInputIsRejected) {
  EXPECT_THROW(BoundedMESolver(0, 0.1), Error);
  EXPECT_THROW(BoundedMESolver(1, 0.1), Error);
  EXPECT_THROW(BoundedMESolver(0.1, 0), Error);
  EXPECT_THROW(BoundedMESolver(0.1, 1.5), Error);
  const BoundedMESolver solver(0.1, 0.1);
  Random random(1);
  const std::vector<double> rewards = {0.1, 0.2, 0.3, 2.0};
  EXPECT_THROW(solver.solveLists(rewards.data(), 2, 2, 1, BoundedMESolver::DrawOrder::Shared, 0, 1, random), Error);  // 2.0 > high
  EXPECT_NO_THROW(solver.solveLists(rewards.data(), 2, 2, 1, BoundedMESolver::DrawOrder::Shared, 0, 2, random));
  EXPECT_THROW(solver.solveLists(rewards.data(), 2, 2, 3, BoundedMESolver::DrawOrder::Shared, 0, 2, random), Error);  // k > K
  EXPECT_THROW(solver.solveLists(rewards.data(), 2, 2, 1, BoundedMESolver::DrawOrder::Shared, 1, 1, random), Error);  // low == high
  EXPECT_THROW(BoundedMESolver::parseDrawOrder("sorted"), Error);
}
}  // namespace bounded_me_solver_test
