#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "sublinear/core/random.hpp"

namespace sublinear {

class StateReader;
class StateWriter;

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
  // Before the first update: a Gaussian prior centred at `mean` with precision `weight` I on top of
  // the ridge's lambda I, so V = (lambda + weight) I and b = weight mean (theta = the two priors'
  // combined mean, weight / (lambda + weight) mean). The saved state holds V and b, hence the prior.
  void startFromPrior(const Eigen::Ref<const Vector>& mean, double weight);
  // Replaces V and b (V symmetric positive definite) and recomputes V^-1, the factor and theta,
  // keeping the observation count: a model moved to other coordinates (ArmSubspace::fit).
  void reset(const Matrix& gram, const Vector& responses);

  int dim() const { return static_cast<int>(theta_.size()); }
  double lambda() const { return lambda_; }
  long observations() const { return observations_; }
  const Matrix& gram() const { return gram_; }                  // V
  const Matrix& inverseGram() const { return inverseGram_; }    // V^-1
  const Vector& responses() const { return responses_; }        // b
  const Vector& theta() const { return theta_; }                // V^-1 b
  // ||x||_{V^-1} = sqrt(x^T V^-1 x).
  double inverseNorm(const Eigen::Ref<const Vector>& x) const;
  // The same with V^-1 x evaluated into `product` (the same bits): for threads, each with its own.
  double inverseNorm(const Eigen::Ref<const Vector>& x, Vector& product) const;
  // log det V from the Cholesky factor.
  double logDetGram() const;
  // theta + scale * V^-1/2 xi with xi ~ N(0, I): a draw from N(theta, scale^2 V^-1).
  Vector sampleTheta(Random& random, double scale) const;
  // rows V^-1/2 as sampleTheta draws it: with B = rows L^-T (V = L L^T), the scores rows theta~ of a
  // draw are rows theta^ + scale B xi, xi ~ N(0, I) (a propensity estimate draws them this way).
  Matrix whitenRows(const Matrix& rows) const;

  // Saved state holds every maintained quantity bit for bit (V, V^-1, b, theta, the Cholesky factor)
  // rather than recomputing them from V and b, so a restored regression continues exactly.
  void save(StateWriter& out) const;
  // CORRUPT_STATE unless the stored dimension and lambda are this regression's.
  void load(StateReader& in);

 private:
  // Eigen's LLT with a way to reinstate a saved factor (its fields are protected, not private).
  class RestorableLLT : public Eigen::LLT<Matrix> {
   public:
    void restore(const Matrix& factor, double l1Norm) {
      m_matrix = factor;
      m_l1_norm = l1Norm;
      m_isInitialized = true;
      m_info = Eigen::Success;
    }
    double l1Norm() const { return m_l1_norm; }
    RestorableLLT& operator=(const Eigen::LLT<Matrix>& other) = delete;
  };

  double lambda_;
  long observations_ = 0;
  Matrix gram_;
  Matrix inverseGram_;
  Vector responses_;
  Vector theta_;
  // V^-1 x for inverseNorm, which elimination policies call for every arm they review: a product
  // evaluated into it (the same kernel as into a temporary, so the same bits) allocates nothing.
  mutable Vector product_;
  RestorableLLT cholesky_;
};

}  // namespace sublinear
