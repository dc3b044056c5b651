#include "sublinear/core/ridge_regression.hpp"

#include <cmath>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

RidgeRegression::RidgeRegression(int dim, double lambda) : lambda_(lambda) {
  require(dim > 0, ErrorCode::InvalidArgument, "dim must be a positive integer");
  require(std::isfinite(lambda) && lambda > 0.0, ErrorCode::InvalidArgument, "lambda must be positive and finite");
  gram_ = lambda * Matrix::Identity(dim, dim);
  inverseGram_ = Matrix::Identity(dim, dim) / lambda;
  responses_ = Vector::Zero(dim);
  theta_ = Vector::Zero(dim);
  product_ = Vector::Zero(dim);
  cholesky_.compute(gram_);
}

void RidgeRegression::update(const Eigen::Ref<const Vector>& x, double reward) {
  require(x.size() == dim(), ErrorCode::DimensionMismatch, "feature vector has the wrong dimension");
  require(x.allFinite(), ErrorCode::NonFinite, "feature vector has a non-finite entry");
  require(std::isfinite(reward), ErrorCode::NonFinite, "reward must be finite");
  gram_.noalias() += x * x.transpose();
  // Sherman-Morrison: (V + x x^T)^-1 = V^-1 - (V^-1 x)(V^-1 x)^T / (1 + x^T V^-1 x).
  const Vector inverseTimesX = inverseGram_ * x;
  const double denominator = 1.0 + x.dot(inverseTimesX);
  inverseGram_.noalias() -= (inverseTimesX / denominator) * inverseTimesX.transpose();
  cholesky_.rankUpdate(x, 1.0);
  responses_ += reward * x;
  theta_.noalias() = inverseGram_ * responses_;
  ++observations_;
}

void RidgeRegression::startFromPrior(const Eigen::Ref<const Vector>& mean, double weight) {
  require(observations_ == 0, ErrorCode::InvalidArgument, "a prior can only start a regression without observations");
  require(mean.size() == dim(), ErrorCode::DimensionMismatch, "prior mean has the wrong dimension");
  require(std::isfinite(weight) && weight >= 0.0, ErrorCode::InvalidArgument, "prior weight must be finite and non-negative");
  const double precision = lambda_ + weight;
  const int d = dim();
  gram_ = precision * Matrix::Identity(d, d);
  inverseGram_ = Matrix::Identity(d, d) / precision;
  responses_ = weight * mean;
  theta_.noalias() = inverseGram_ * responses_;
  cholesky_.compute(gram_);
}

void RidgeRegression::reset(const Matrix& gram, const Vector& responses) {
  require(gram.rows() == dim() && gram.cols() == dim() && responses.size() == dim(), ErrorCode::DimensionMismatch,
          "gram matrix or responses have the wrong dimension");
  require(gram.allFinite() && responses.allFinite(), ErrorCode::NonFinite, "gram matrix or responses hold a non-finite entry");
  Eigen::LLT<Matrix> factor(gram);
  require(factor.info() == Eigen::Success, ErrorCode::InvalidArgument, "gram matrix is not positive definite");
  gram_ = gram;
  cholesky_.compute(gram_);
  inverseGram_ = cholesky_.solve(Matrix::Identity(dim(), dim()));
  responses_ = responses;
  theta_.noalias() = inverseGram_ * responses_;
}

double RidgeRegression::inverseNorm(const Eigen::Ref<const Vector>& x) const { return inverseNorm(x, product_); }

double RidgeRegression::inverseNorm(const Eigen::Ref<const Vector>& x, Vector& product) const {
  product.noalias() = inverseGram_ * x;
  return std::sqrt(std::max(0.0, x.dot(product)));
}

double RidgeRegression::logDetGram() const {
  const auto& factor = cholesky_.matrixLLT();
  double sum = 0.0;
  for (int i = 0; i < dim(); ++i) sum += deterministic::log(factor(i, i));
  return 2.0 * sum;
}

Vector RidgeRegression::sampleTheta(Random& random, double scale) const {
  Vector xi(dim());
  random.fillNormal(xi.data(), static_cast<std::size_t>(dim()));
  // With V = L L^T, L^-T xi has covariance (L L^T)^-1 = V^-1.
  cholesky_.matrixU().solveInPlace(xi);
  return theta_ + scale * xi;
}

Matrix RidgeRegression::whitenRows(const Matrix& rows) const {
  return cholesky_.matrixL().solve(rows.transpose()).transpose();
}

void RidgeRegression::save(StateWriter& out) const {
  out.u32(static_cast<std::uint32_t>(dim()));
  out.f64(lambda_);
  out.u64(static_cast<std::uint64_t>(observations_));
  out.matrix(gram_);
  out.matrix(inverseGram_);
  out.vector(responses_);
  out.vector(theta_);
  out.matrix(cholesky_.matrixLLT());
  out.f64(cholesky_.l1Norm());
}

void RidgeRegression::load(StateReader& in) {
  const int d = dim();
  in.check(in.u32() == static_cast<std::uint32_t>(d), "ridge state has another dimension");
  in.check(in.f64() == lambda_, "ridge state has another lambda");
  const std::uint64_t observations = in.u64();
  Matrix gram = in.matrix(d, d);
  Matrix inverseGram = in.matrix(d, d);
  Vector responses = in.vector(d);
  Vector theta = in.vector(d);
  Matrix factor = in.matrix(d, d);
  const double l1Norm = in.f64();
  in.check(gram.allFinite() && inverseGram.allFinite() && responses.allFinite() && theta.allFinite() && factor.allFinite(),
           "ridge state has a non-finite entry");
  // A factor with a non-positive diagonal would make log det V and sampling meaningless.
  in.check((factor.diagonal().array() > 0.0).all(), "ridge state's Cholesky factor is not positive definite");
  observations_ = static_cast<long>(observations);
  gram_ = std::move(gram);
  inverseGram_ = std::move(inverseGram);
  responses_ = std::move(responses);
  theta_ = std::move(theta);
  cholesky_.restore(factor, l1Norm);
}

}  // namespace sublinear
