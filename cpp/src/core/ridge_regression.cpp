#include "sublinear/core/ridge_regression.hpp"

#include <cmath>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/double_lanes.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

RidgeRegression::RidgeRegression(int dim, double lambda, Form form) : lambda_(lambda), form_(form) {
  require(dim > 0, ErrorCode::InvalidArgument, "dim must be a positive integer");
  require(std::isfinite(lambda) && lambda > 0.0, ErrorCode::InvalidArgument, "lambda must be positive and finite");
  inverseGram_ = Matrix::Identity(dim, dim) / lambda;
  responses_ = Vector::Zero(dim);
  theta_ = Vector::Zero(dim);
  product_ = Vector::Zero(dim);
  if (form_ == Form::Factored) {
    gram_ = lambda * Matrix::Identity(dim, dim);
    cholesky_.compute(gram_);
  } else {
    logDet_ = dim * deterministic::log(lambda);
  }
}

void RidgeRegression::update(const Eigen::Ref<const Vector>& x, double reward) {
  require(x.size() == dim(), ErrorCode::DimensionMismatch, "feature vector has the wrong dimension");
  require(x.allFinite(), ErrorCode::NonFinite, "feature vector has a non-finite entry");
  require(std::isfinite(reward), ErrorCode::NonFinite, "reward must be finite");
  if (form_ == Form::InverseOnly) {
    updateInverse(x, reward);
    ++observations_;
    return;
  }
  gram_.noalias() += x * x.transpose();
  // Sherman-Morrison: (V + x x^T)^-1 = V^-1 - (V^-1 x)(V^-1 x)^T / (1 + x^T V^-1 x).
  inverseTimesX_.noalias() = inverseGram_ * x;
  const double denominator = 1.0 + x.dot(inverseTimesX_);
  lastDenominator_ = denominator;
  inverseGram_.noalias() -= (inverseTimesX_ / denominator) * inverseTimesX_.transpose();
  cholesky_.rankUpdate(x, 1.0);
  responses_ += reward * x;
  theta_.noalias() = inverseGram_ * responses_;
  ++observations_;
}

void RidgeRegression::updateInverse(const Eigen::Ref<const Vector>& x, double reward) {
  const auto n = static_cast<std::size_t>(dim());
  const double* features = x.data();
  // u = V^-1 x, column by column (V^-1 is symmetric: column j is row j): the first pass, a read.
  inverseTimesX_.resize(dim());
  double* u = inverseTimesX_.data();
  for (Eigen::Index j = 0; j < dim(); ++j) u[j] = lanes::dot(inverseGram_.col(j).data(), features, n);
  const double denominator = 1.0 + lanes::dot(features, u, n);
  lastDenominator_ = denominator;
  // det(V + x x^T) = det V (1 + x^T V^-1 x).
  logDet_ += deterministic::log(denominator);
  // theta after the update, in O(d): (V + x x^T)^-1 (b + r x) = theta + u (r - x^T theta) / (1 + x^T u).
  // The pass below computes V^-1 b itself; this one is what V^-1 theta is taken of, before it.
  const double residual = reward - lanes::dot(features, theta_.data(), n);
  scratch_ = theta_ + (residual / denominator) * inverseTimesX_;
  // V^-1 - g g^T with g = u / sqrt(1 + x^T u): Sherman-Morrison as a symmetric rank-one downdate.
  scratch2_ = inverseTimesX_ / std::sqrt(denominator);
  responses_ += reward * x;
  // The second pass, a read and a write of each column: the downdate, theta = V^-1 b and
  // (V^-1 theta)_j from the new column.
  const double* g = scratch2_.data();
  for (Eigen::Index j = 0; j < dim(); ++j) {
    lanes::downdateDotPair(inverseGram_.col(j).data(), g, g[j], responses_.data(), scratch_.data(), n, theta_[j], product_[j]);
  }
  thetaInverseNormSquared_ = lanes::dot(scratch_.data(), product_.data(), n);
}

void RidgeRegression::startFromPrior(const Eigen::Ref<const Vector>& mean, double weight) {
  require(observations_ == 0, ErrorCode::InvalidArgument, "a prior can only start a regression without observations");
  require(mean.size() == dim(), ErrorCode::DimensionMismatch, "prior mean has the wrong dimension");
  require(std::isfinite(weight) && weight >= 0.0, ErrorCode::InvalidArgument, "prior weight must be finite and non-negative");
  restart(lambda_ + weight, weight * mean);
}

void RidgeRegression::reset(const Matrix& gram, const Vector& responses) {
  require(gram.rows() == dim() && gram.cols() == dim() && responses.size() == dim(), ErrorCode::DimensionMismatch,
          "gram matrix or responses have the wrong dimension");
  require(gram.allFinite() && responses.allFinite(), ErrorCode::NonFinite, "gram matrix or responses hold a non-finite entry");
  Eigen::LLT<Matrix> factor(gram);
  require(factor.info() == Eigen::Success, ErrorCode::InvalidArgument, "gram matrix is not positive definite");
  responses_ = responses;
  if (form_ == Form::InverseOnly) {
    // V is not kept: V^-1, log det V and ||theta||^2_{V^-1} from V's factor.
    // Symmetric bit for bit, as the updates keep it (the saved state is checked for it).
    const Matrix inverse = factor.solve(Matrix::Identity(dim(), dim()));
    inverseGram_ = (inverse + inverse.transpose()) / 2.0;
    double logDet = 0.0;
    for (int i = 0; i < dim(); ++i) logDet += 2.0 * deterministic::log(factor.matrixLLT()(i, i));
    logDet_ = logDet;
    theta_.noalias() = inverseGram_ * responses_;
    thetaInverseNormSquared_ = theta_.dot(inverseGram_ * theta_);
    return;
  }
  gram_ = gram;
  cholesky_.compute(gram_);
  inverseGram_ = cholesky_.solve(Matrix::Identity(dim(), dim()));
  theta_.noalias() = inverseGram_ * responses_;
}

void RidgeRegression::scale(double factor) {
  require(std::isfinite(factor) && factor > 0.0 && factor <= 1.0, ErrorCode::InvalidArgument, "a scale factor must be in (0, 1]");
  if (factor == 1.0) return;
  inverseGram_ /= factor;
  responses_ *= factor;
  if (form_ == Form::Factored) {
    gram_ *= factor;
    cholesky_.restore(cholesky_.matrixLLT() * std::sqrt(factor), cholesky_.l1Norm() * factor);
  } else {
    logDet_ += dim() * deterministic::log(factor);
    thetaInverseNormSquared_ /= factor;
  }
  // A kept width's Sherman-Morrison correction after this comes from the scaled V^-1.
  inverseTimesX_.resize(0);
}

void RidgeRegression::downdate(const Eigen::Ref<const Vector>& x, double reward) {
  require(x.size() == dim(), ErrorCode::DimensionMismatch, "feature vector has the wrong dimension");
  const Vector u = inverseGram_ * x;
  const double denominator = 1.0 - x.dot(u);
  require(std::isfinite(denominator) && denominator > 1e-12, ErrorCode::InvalidArgument,
          "downdate: V - x x^T is not positive definite");
  if (form_ == Form::Factored) {
    Eigen::LLT<Matrix> factor = cholesky_;
    factor.rankUpdate(x, -1.0);
    require(factor.info() == Eigen::Success, ErrorCode::InvalidArgument, "downdate: V - x x^T is not positive definite");
    gram_.noalias() -= x * x.transpose();
    cholesky_.restore(factor.matrixLLT(), cholesky_.l1Norm());
  } else {
    logDet_ += deterministic::log(denominator);
  }
  inverseGram_.noalias() += (u / denominator) * u.transpose();
  // The InverseOnly form's V^-1 is symmetric bit for bit (RidgeRegression::load checks it). Evaluated
  // into a temporary first: assigned in place, Eigen would read entries of the transpose it has
  // already overwritten, and the upper triangle would differ from the lower (a windowed LinUCB's
  // saved state was then refused as damaged; the toy policy's forgetting test found it).
  if (form_ == Form::InverseOnly) inverseGram_ = ((inverseGram_ + inverseGram_.transpose()) / 2.0).eval();
  responses_ -= reward * x;
  theta_.noalias() = inverseGram_ * responses_;
  if (form_ == Form::InverseOnly) thetaInverseNormSquared_ = theta_.dot(inverseGram_ * theta_);
  inverseTimesX_.resize(0);
}

void RidgeRegression::restart(double precision, const Vector& responses) {
  require(responses.size() == dim(), ErrorCode::DimensionMismatch, "responses have the wrong dimension");
  const int d = dim();
  inverseGram_ = Matrix::Identity(d, d) / precision;
  responses_ = responses;
  theta_.noalias() = inverseGram_ * responses_;
  inverseTimesX_.resize(0);
  if (form_ == Form::Factored) {
    gram_ = precision * Matrix::Identity(d, d);
    cholesky_.compute(gram_);
  } else {
    logDet_ = d * deterministic::log(precision);
    thetaInverseNormSquared_ = theta_.squaredNorm() / precision;
  }
}

Matrix RidgeRegression::gramMatrix() const {
  if (form_ == Form::Factored) return gram_;
  Matrix gram = inverseGram_.llt().solve(Matrix::Identity(dim(), dim()));
  return (gram + gram.transpose()) / 2.0;
}

double RidgeRegression::inverseNorm(const Eigen::Ref<const Vector>& x) const { return inverseNorm(x, product_); }

double RidgeRegression::inverseNorm(const Eigen::Ref<const Vector>& x, Vector& product) const {
  product.noalias() = inverseGram_ * x;
  return std::sqrt(std::max(0.0, x.dot(product)));
}

double RidgeRegression::thetaInverseNorm() const {
  if (form_ == Form::InverseOnly) return std::sqrt(std::max(0.0, thetaInverseNormSquared_));
  return inverseNorm(theta_);
}

double RidgeRegression::logDetGram() const {
  if (form_ == Form::InverseOnly) return logDet_;
  const auto& factor = cholesky_.matrixLLT();
  double sum = 0.0;
  for (int i = 0; i < dim(); ++i) sum += deterministic::log(factor(i, i));
  return 2.0 * sum;
}

Vector RidgeRegression::sampleTheta(Random& random, double scale) const {
  require(form_ == Form::Factored, ErrorCode::InvalidArgument, "sampleTheta: the regression keeps no Cholesky factor in this form");
  Vector xi(dim());
  random.fillNormal(xi.data(), static_cast<std::size_t>(dim()));
  // With V = L L^T, L^-T xi has covariance (L L^T)^-1 = V^-1.
  cholesky_.matrixU().solveInPlace(xi);
  return theta_ + scale * xi;
}

Matrix RidgeRegression::whitenRows(const Matrix& rows) const {
  require(form_ == Form::Factored, ErrorCode::InvalidArgument, "whitenRows: the regression keeps no Cholesky factor in this form");
  return cholesky_.matrixL().solve(rows.transpose()).transpose();
}

void RidgeRegression::save(StateWriter& out) const {
  out.u32(static_cast<std::uint32_t>(dim()));
  out.f64(lambda_);
  out.u64(static_cast<std::uint64_t>(observations_));
  if (form_ == Form::InverseOnly) {
    out.matrix(inverseGram_);
    out.vector(responses_);
    out.vector(theta_);
    out.f64(logDet_);
    out.f64(thetaInverseNormSquared_);
    return;
  }
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
  // Decoded into the matrices the constructor made (a regression is loaded only when new, and a
  // failed load leaves no object): copies beside them would double a large model's memory.
  if (form_ == Form::InverseOnly) {
    in.matrix(inverseGram_, d, d);
    in.vector(responses_, d);
    in.vector(theta_, d);
    const double logDet = in.f64();
    const double thetaNormSquared = in.f64();
    in.check(inverseGram_.allFinite() && responses_.allFinite() && theta_.allFinite() && std::isfinite(logDet) &&
                 std::isfinite(thetaNormSquared),
             "ridge state has a non-finite entry");
    // The downdates keep V^-1 symmetric bit for bit (updateInverse).
    in.check(inverseGram_ == inverseGram_.transpose(), "ridge state's V^-1 is not symmetric");
    observations_ = static_cast<long>(observations);
    logDet_ = logDet;
    thetaInverseNormSquared_ = thetaNormSquared;
    inverseTimesX_.resize(0);
    return;
  }
  in.matrix(gram_, d, d);
  in.matrix(inverseGram_, d, d);
  in.vector(responses_, d);
  in.vector(theta_, d);
  Matrix& factor = cholesky_.factor();
  in.matrix(factor, d, d);
  const double l1Norm = in.f64();
  in.check(gram_.allFinite() && inverseGram_.allFinite() && responses_.allFinite() && theta_.allFinite() && factor.allFinite(),
           "ridge state has a non-finite entry");
  // A factor with a non-positive diagonal would make log det V and sampling meaningless.
  in.check((factor.diagonal().array() > 0.0).all(), "ridge state's Cholesky factor is not positive definite");
  observations_ = static_cast<long>(observations);
  cholesky_.restored(l1Norm);
}

}  // namespace sublinear
