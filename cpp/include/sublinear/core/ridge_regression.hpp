#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "sublinear/core/random.hpp"

namespace sublinear {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;

// Regularised least squares in the form every linear bandit uses:
//   V = lambda I + sum x x^T,  b = sum r x,  theta = V^-1 b.
// V^-1 is kept by Sherman-Morrison and the Cholesky factor of V by rank-one updates, so an update
// costs O(d^2) and so does a draw from N(theta, v^2 V^-1).
class RidgeRegression {
 public:
  RidgeRegression(int dim, double lambda);

  void update(const Eigen::Ref<const Vector>& x, double reward);

  int dim() const { return static_cast<int>(theta_.size()); }
  double lambda() const { return lambda_; }
  long observations() const { return observations_; }
  const Matrix& gram() const { return gram_; }                  // V
  const Matrix& inverseGram() const { return inverseGram_; }    // V^-1
  const Vector& responses() const { return responses_; }        // b
  const Vector& theta() const { return theta_; }                // V^-1 b
  // ||x||_{V^-1} = sqrt(x^T V^-1 x).
  double inverseNorm(const Eigen::Ref<const Vector>& x) const;
  // log det V from the Cholesky factor.
  double logDetGram() const;
  // theta + scale * V^-1/2 xi with xi ~ N(0, I): a draw from N(theta, scale^2 V^-1).
  Vector sampleTheta(Random& random, double scale) const;

  // Rebuilds V^-1, the factor and theta from V and b: used after restoring saved state.
  void refactor();
  void setState(const Matrix& gram, const Vector& responses, long observations);

 private:
  double lambda_;
  long observations_ = 0;
  Matrix gram_;
  Matrix inverseGram_;
  Vector responses_;
  Vector theta_;
  Eigen::LLT<Matrix> cholesky_;
};

}  // namespace sublinear
