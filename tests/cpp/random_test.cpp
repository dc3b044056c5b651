#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/random_checksum.hpp"

using sublinear::Random;

TEST(DeterministicMath, LogAndExpMatchTheStandardLibrary) {
  Random random(5);
  for (int i = 0; i < 100000; ++i) {
    const double x = std::ldexp(random.uniform() + 0.5, static_cast<int>(random.uniformInt(200)) - 100);
    EXPECT_NEAR(sublinear::deterministic::log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x))));
    const double y = random.uniform(-700.0, 700.0);
    EXPECT_NEAR(sublinear::deterministic::exp(y) / std::exp(y), 1.0, 4e-15);
  }
  EXPECT_EQ(sublinear::deterministic::log(1.0), 0.0);
  EXPECT_EQ(sublinear::deterministic::exp(0.0), 1.0);
  EXPECT_TRUE(std::isinf(sublinear::deterministic::exp(1000.0)));
  EXPECT_EQ(sublinear::deterministic::exp(-1000.0), 0.0);
}

TEST(Random, SameSeedSameStreamDifferentSeedDifferentStream) {
  Random a(42), b(42), c(43);
  int differences = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.nextU64();
    EXPECT_EQ(x, b.nextU64());
    differences += x != c.nextU64();
  }
  EXPECT_GT(differences, 990);
}

TEST(Random, UniformMomentsAndRange) {
  Random random(1);
  const int n = 200000;
  double sum = 0, sumSquares = 0;
  for (int i = 0; i < n; ++i) {
    const double u = random.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sumSquares += u * u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NEAR(sumSquares / n - 0.25, 1.0 / 12.0, 0.002);
}

TEST(Random, UniformIntIsUnbiasedAcrossBuckets) {
  Random random(2);
  std::vector<int> counts(7, 0);
  const int n = 70000;
  for (int i = 0; i < n; ++i) counts[random.uniformInt(7)]++;
  for (int count : counts) EXPECT_NEAR(count, n / 7, 5 * std::sqrt(n / 7.0));
  for (int i = 0; i < 1000; ++i) EXPECT_LT(random.uniformInt(5000000000ULL), 5000000000ULL);
  EXPECT_EQ(random.uniformInt(1), 0u);
}

TEST(Random, NormalMoments) {
  Random random(3);
  const int n = 200000;
  double sum = 0, sumSquares = 0, sumFourth = 0;
  for (int i = 0; i < n; ++i) {
    const double z = random.normal();
    sum += z;
    sumSquares += z * z;
    sumFourth += z * z * z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sumSquares / n, 1.0, 0.015);
  EXPECT_NEAR(sumFourth / n, 3.0, 0.08);
}

TEST(Random, GammaAndBetaMeans) {
  Random random(4);
  const int n = 100000;
  for (double shape : {0.3, 1.0, 2.5, 10.0}) {
    double sum = 0, sumSquares = 0;
    for (int i = 0; i < n; ++i) {
      const double g = random.gamma(shape);
      ASSERT_GE(g, 0.0);
      sum += g;
      sumSquares += g * g;
    }
    EXPECT_NEAR(sum / n, shape, 0.02 * shape + 0.01) << "shape " << shape;
    EXPECT_NEAR(sumSquares / n - (sum / n) * (sum / n), shape, 0.05 * shape + 0.01) << "shape " << shape;
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += random.beta(2.0, 5.0);
  EXPECT_NEAR(sum / n, 2.0 / 7.0, 0.005);
}

TEST(Random, ShuffleIsAPermutationAndSplitIsIndependent) {
  Random random(6);
  std::vector<int> values(100);
  std::iota(values.begin(), values.end(), 0);
  random.shuffle(values);
  std::vector<int> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
  Random child = random.split();
  EXPECT_NE(child.nextU64(), random.nextU64());
}

TEST(Random, StateRoundTripContinuesTheStream) {
  Random random(7);
  random.normal();  // leaves a spare normal in the state
  const auto saved = random.state();
  const double expected = random.normal() + random.uniform();
  Random restored(0);
  restored.setState(saved);
  EXPECT_EQ(restored.normal() + restored.uniform(), expected);
}

TEST(RandomChecksum, IsStableForASeedAndDependsOnIt) {
  EXPECT_EQ(sublinear::randomChecksum(42, 1000), sublinear::randomChecksum(42, 1000));
  EXPECT_NE(sublinear::randomChecksum(42, 1000), sublinear::randomChecksum(43, 1000));
  EXPECT_EQ(sublinear::randomChecksum(42, 1000).size(), 16u);
}
