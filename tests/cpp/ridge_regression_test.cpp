#include <gtest/gtest.h>

#include "sublinear/core/error.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/core/state_codec.hpp"

using sublinear::Matrix;
using sublinear::Random;
using sublinear::RidgeRegression;
using sublinear::StateReader;
using sublinear::StateWriter;
using sublinear::Vector;

namespace ridge_regression_test {
Vector randomVector(Random& random, int dim) {
  Vector x(dim);
  random.fillNormal(x.data(), dim);
  return x;
}

TEST(RidgeRegression, MatchesTheDirectSolution) {
  const int d = 6;
  Random random(11);
  RidgeRegression ridge(d, 0.5);
  Matrix gram = 0.5 * Matrix::Identity(d, d);
  Vector responses = Vector::Zero(d);
  for (int t = 0; t < 300; ++t) {
    const Vector x = randomVector(random, d);
    const double r = random.normal();
    ridge.update(x, r);
    gram += x * x.transpose();
    responses += r * x;
  }
  const Vector theta = gram.ldlt().solve(responses);
  EXPECT_LT((ridge.theta() - theta).norm(), 1e-9);
  EXPECT_LT((ridge.inverseGram() - gram.inverse()).norm(), 1e-10);
  EXPECT_NEAR(ridge.logDetGram(), std::log(gram.determinant()), 1e-9);
  const Vector x = randomVector(random, d);
  EXPECT_NEAR(ridge.inverseNorm(x), std::sqrt(x.dot(gram.inverse() * x)), 1e-12);
  EXPECT_EQ(ridge.observations(), 300);
}

TEST(RidgeRegression, RecoversTheParameterFromNoisyRewards) {
  const int d = 5;
  Random random(12);
  const Vector thetaStar = randomVector(random, d);
  RidgeRegression ridge(d, 1.0);
  for (int t = 0; t < 5000; ++t) {
    const Vector x = randomVector(random, d);
    ridge.update(x, x.dot(thetaStar) + 0.1 * random.normal());
  }
  EXPECT_LT((ridge.theta() - thetaStar).norm(), 0.02);
}

TEST(RidgeRegression, SamplesHaveCovarianceScaleSquaredTimesInverseGram) {
  const int d = 3;
  Random random(13);
  RidgeRegression ridge(d, 1.0);
  for (int t = 0; t < 20; ++t) ridge.update(randomVector(random, d), random.normal());
  const int n = 100000;
  const double scale = 2.0;
  Vector mean = Vector::Zero(d);
  Matrix second = Matrix::Zero(d, d);
  for (int i = 0; i < n; ++i) {
    const Vector sample = ridge.sampleTheta(random, scale);
    mean += sample;
    second += (sample - ridge.theta()) * (sample - ridge.theta()).transpose();
  }
  mean /= n;
  second /= n;
  EXPECT_LT((mean - ridge.theta()).norm(), 0.05);
  EXPECT_LT((second - scale * scale * ridge.inverseGram()).norm(), 0.05 * (scale * scale * ridge.inverseGram()).norm());
}

TEST(RidgeRegression, RejectsBadInputWithoutChangingState) {
  RidgeRegression ridge(2, 1.0);
  Vector wrong(3);
  wrong << 1, 2, 3;
  EXPECT_THROW(ridge.update(wrong, 1.0), sublinear::Error);
  Vector x(2);
  x << 1, std::nan("");
  try {
    ridge.update(x, 1.0);
    FAIL();
  } catch (const sublinear::Error& error) {
    EXPECT_EQ(error.code(), sublinear::ErrorCode::NonFinite);
  }
  x << 1, 2;
  EXPECT_THROW(ridge.update(x, std::numeric_limits<double>::infinity()), sublinear::Error);
  EXPECT_EQ(ridge.observations(), 0);
  EXPECT_EQ(ridge.theta().norm(), 0.0);
  EXPECT_THROW(RidgeRegression(0, 1.0), sublinear::Error);
  EXPECT_THROW(RidgeRegression(2, 0.0), sublinear::Error);
}

TEST(RidgeRegression, RestoredStateContinuesBitForBit) {
  const int d = 4;
  Random random(14);
  RidgeRegression ridge(d, 1.0);
  for (int t = 0; t < 50; ++t) ridge.update(randomVector(random, d), random.normal());
  StateWriter out("ridge");
  ridge.save(out);
  const auto bytes = out.finish();
  RidgeRegression restored(d, 1.0);
  StateReader in(bytes.data(), bytes.size(), "ridge");
  restored.load(in);
  in.finish();
  for (int t = 0; t < 20; ++t) {
    const Vector x = randomVector(random, d);
    const double r = random.normal();
    ridge.update(x, r);
    restored.update(x, r);
  }
  EXPECT_EQ(restored.theta(), ridge.theta());
  EXPECT_EQ(restored.inverseGram(), ridge.inverseGram());
  EXPECT_EQ(restored.logDetGram(), ridge.logDetGram());
  Random a(3), b(3);
  EXPECT_EQ(restored.sampleTheta(a, 0.5), ridge.sampleTheta(b, 0.5));
}

TEST(RidgeRegression, LoadRejectsAnotherShape) {
  RidgeRegression ridge(3, 1.0);
  StateWriter out("ridge");
  ridge.save(out);
  const auto bytes = out.finish();
  RidgeRegression other(4, 1.0);
  StateReader in(bytes.data(), bytes.size(), "ridge");
  EXPECT_THROW(other.load(in), sublinear::Error);
  EXPECT_EQ(other.observations(), 0);
}

// The InverseOnly form (LinUCB and the elimination policies) keeps V^-1, b and theta alone, with
// log det V by the determinant lemma and ||theta||_{V^-1} from its update's pass: the same
// quantities as the factored form, to rounding, with V^-1 symmetric bit for bit, and a saved state
// that continues exactly (and refuses a V^-1 that is not symmetric).
TEST(RidgeRegression, InverseOnlyFormKeepsWhatTheFactoredFormComputes) {
  for (const int d : {1, 7, 40}) {
    Random random(21 + static_cast<std::uint64_t>(d));
    RidgeRegression factored(d, 0.7);
    RidgeRegression lean(d, 0.7, RidgeRegression::Form::InverseOnly);
    const Vector prior = randomVector(random, d);
    factored.startFromPrior(prior, 2.0);
    lean.startFromPrior(prior, 2.0);
    EXPECT_NEAR(lean.thetaInverseNorm(), factored.thetaInverseNorm(), 1e-12);
    for (int t = 0; t < 200; ++t) {
      const Vector x = randomVector(random, d);
      const double r = random.normal();
      factored.update(x, r);
      lean.update(x, r);
      ASSERT_LT((lean.lastInverseTimesX() - factored.lastInverseTimesX()).norm(), 1e-9 * factored.lastInverseTimesX().norm());
      ASSERT_NEAR(lean.lastDenominator(), factored.lastDenominator(), 1e-9 * factored.lastDenominator());
    }
    EXPECT_LT((lean.inverseGram() - factored.inverseGram()).norm(), 1e-10 * factored.inverseGram().norm());
    EXPECT_TRUE(lean.inverseGram() == lean.inverseGram().transpose());
    EXPECT_LT((lean.theta() - factored.theta()).norm(), 1e-9 * factored.theta().norm());
    EXPECT_NEAR(lean.logDetGram(), factored.logDetGram(), 1e-9 * std::fabs(factored.logDetGram()));
    EXPECT_NEAR(lean.thetaInverseNorm(), factored.thetaInverseNorm(), 1e-9 * factored.thetaInverseNorm());
    EXPECT_EQ(lean.gram().size(), 0);
    EXPECT_THROW(lean.sampleTheta(random, 1.0), sublinear::Error);

    StateWriter out("ridge");
    lean.save(out);
    const std::vector<std::uint8_t> bytes = out.finish();
    RidgeRegression restored(d, 0.7, RidgeRegression::Form::InverseOnly);
    StateReader in(bytes.data(), bytes.size(), "ridge");
    restored.load(in);
    const Vector x = randomVector(random, d);
    lean.update(x, 0.25);
    restored.update(x, 0.25);
    EXPECT_TRUE(restored.inverseGram() == lean.inverseGram());
    EXPECT_TRUE(restored.theta() == lean.theta());
    EXPECT_EQ(restored.logDetGram(), lean.logDetGram());
    EXPECT_EQ(restored.thetaInverseNorm(), lean.thetaInverseNorm());
    // A factored regression does not read the InverseOnly state, and an asymmetric V^-1 is refused.
    RidgeRegression other(d, 0.7);
    StateReader wrongForm(bytes.data(), bytes.size(), "ridge");
    EXPECT_THROW(other.load(wrongForm), sublinear::Error);
    if (d > 1) {
      RidgeRegression tampered(d, 0.7, RidgeRegression::Form::InverseOnly);
      Matrix asymmetric = lean.inverseGram();
      asymmetric(0, 1) += 1e-3;
      StateWriter bad("ridge");
      bad.u32(static_cast<std::uint32_t>(d));
      bad.f64(0.7);
      bad.u64(3);
      bad.matrix(asymmetric);
      bad.vector(lean.responses());
      bad.vector(lean.theta());
      bad.f64(lean.logDetGram());
      bad.f64(1.0);
      const std::vector<std::uint8_t> badBytes = bad.finish();
      StateReader badIn(badBytes.data(), badBytes.size(), "ridge");
      EXPECT_THROW(tampered.load(badIn), sublinear::Error);
    }
  }
}
}  // namespace ridge_regression_test
