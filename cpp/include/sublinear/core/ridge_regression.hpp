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
// V^-1 is kept by Sherman-Morrison, so an update costs O(d^2). Two forms:
// - Factored (the default): V, V^-1 and the Cholesky factor of V by rank-one updates, so that a draw
//   from N(theta, v^2 V^-1) costs O(d^2) too (Thompson sampling, the combinatorial policies).
// - InverseOnly: V^-1, b and theta alone, for policies that never sample (LinUCB and the elimination
//   policies). An update makes two passes over V^-1 instead of the factored form's six over its
//   three d x d matrices (at d = 1,536 each is 18.9 MB, and they were most of LinUCB's step): one
//   read for u = V^-1 x, one read-and-write that subtracts g g^T (g = u / sqrt(1 + x^T u)) and, from
//   the same read of each column, theta = V^-1 b and V^-1 theta, whose norm the practical radius
//   asks for at every select (thetaInverseNorm(), another pass before). log det V, which the
//   theoretical radius needs, follows the matrix determinant lemma, log det V += log(1 + x^T u).
//   V^-1 stays symmetric bit for bit (entry (k, j) and (j, k) lose the same product).
class RidgeRegression {
 public:
  enum class Form { Factored, InverseOnly };

  RidgeRegression(int dim, double lambda, Form form = Form::Factored);

  void update(const Eigen::Ref<const Vector>& x, double reward);
  // Before the first update: a Gaussian prior centred at `mean` with precision `weight` I on top of
  // the ridge's lambda I, so V = (lambda + weight) I and b = weight mean (theta = the two priors'
  // combined mean, weight / (lambda + weight) mean). The saved state holds V and b, hence the prior.
  void startFromPrior(const Eigen::Ref<const Vector>& mean, double weight);
  // Replaces V and b (V symmetric positive definite) and recomputes V^-1, the factor and theta
  // (InverseOnly: V^-1, theta, log det V and ||theta||^2_{V^-1}), keeping the observation count: a
  // model moved to other coordinates (ArmSubspace::fit, a catalogue's refit).
  void reset(const Matrix& gram, const Vector& responses);
  // Forgetting (Forgetting, in the linear policies): every quantity weighed by `factor` in (0, 1],
  // V -> factor V and b -> factor b, in O(d^2): V^-1 -> V^-1 / factor, the Cholesky factor by
  // sqrt(factor), theta unchanged. The regulariser decays with the data; the caller tops it up
  // (reset) before it falls too low.
  void scale(double factor);
  // Takes an observation back out: V -> V - x x^T, b -> b - r x (a sliding window's oldest), by
  // Sherman-Morrison with the opposite sign (and a Cholesky downdate). INVALID_ARGUMENT when V - x x^T
  // would not be positive definite. Rounding accumulates: the caller refactors now and then (reset).
  void downdate(const Eigen::Ref<const Vector>& x, double reward);
  // Back to V = precision I, b = responses (a fresh regression started from that prior), bit for bit
  // as the constructor and startFromPrior make it, keeping the observation count.
  void restart(double precision, const Vector& responses);

  int dim() const { return static_cast<int>(theta_.size()); }
  double lambda() const { return lambda_; }
  Form form() const { return form_; }
  long observations() const { return observations_; }
  const Matrix& gram() const { return gram_; }                  // V (empty in the InverseOnly form)
  // V in either form: gram(), or V^-1 inverted (InverseOnly; O(d^3), for a model being moved).
  Matrix gramMatrix() const;
  const Matrix& inverseGram() const { return inverseGram_; }    // V^-1
  const Vector& responses() const { return responses_; }        // b
  const Vector& theta() const { return theta_; }                // V^-1 b
  // ||x||_{V^-1} = sqrt(x^T V^-1 x).
  double inverseNorm(const Eigen::Ref<const Vector>& x) const;
  // The same with V^-1 x evaluated into `product` (the same bits): for threads, each with its own.
  double inverseNorm(const Eigen::Ref<const Vector>& x, Vector& product) const;
  // ||theta||_{V^-1}: computed (an O(d^2) product) in the factored form, kept by update() in the
  // InverseOnly form.
  double thetaInverseNorm() const;
  // The last update's u = V^-1 x (V^-1 before the update) and 1 + x^T u: a policy keeping its arms'
  // widths takes its Sherman-Morrison correction from them (empty before the first update, and
  // after a load until the next update).
  const Vector& lastInverseTimesX() const { return inverseTimesX_; }
  double lastDenominator() const { return lastDenominator_; }
  // log det V: from the Cholesky factor, or kept by the determinant lemma (InverseOnly).
  double logDetGram() const;
  // theta + scale * V^-1/2 xi with xi ~ N(0, I): a draw from N(theta, scale^2 V^-1) (factored form
  // only, as whitenRows).
  Vector sampleTheta(Random& random, double scale) const;
  // rows V^-1/2 as sampleTheta draws it: with B = rows L^-T (V = L L^T), the scores rows theta~ of a
  // draw are rows theta^ + scale B xi, xi ~ N(0, I) (a propensity estimate draws them this way).
  Matrix whitenRows(const Matrix& rows) const;

  // Saved state holds every maintained quantity bit for bit (V, V^-1, b, theta, the Cholesky factor;
  // in the InverseOnly form V^-1, b, theta, log det V and ||theta||^2_{V^-1}) rather than
  // recomputing them, so a restored regression continues exactly.
  void save(StateWriter& out) const;
  // CORRUPT_STATE unless the stored dimension, lambda and form are this regression's. Decoded into
  // this regression's own matrices: for a new one (a failed load leaves it half read).
  void load(StateReader& in);

 private:
  // Eigen's LLT with a way to reinstate a saved factor (its fields are protected, not private).
  class RestorableLLT : public Eigen::LLT<Matrix> {
   public:
    void restore(const Matrix& factor, double l1Norm) {
      m_matrix = factor;
      restored(l1Norm);
    }
    // The factor's own storage, for a saved factor decoded in place (then restored()).
    Matrix& factor() { return m_matrix; }
    void restored(double l1Norm) {
      m_l1_norm = l1Norm;
      m_isInitialized = true;
      m_info = Eigen::Success;
    }
    double l1Norm() const { return m_l1_norm; }
    RestorableLLT& operator=(const Eigen::LLT<Matrix>& other) = delete;
  };

  // The InverseOnly form's update (see the class comment).
  void updateInverse(const Eigen::Ref<const Vector>& x, double reward);

  double lambda_;
  Form form_;
  long observations_ = 0;
  Matrix gram_;
  Matrix inverseGram_;
  Vector responses_;
  Vector theta_;
  // V^-1 x for inverseNorm, which elimination policies call for every arm they review: a product
  // evaluated into it (the same kernel as into a temporary, so the same bits) allocates nothing.
  mutable Vector product_;
  RestorableLLT cholesky_;
  // The last update's V^-1 x and 1 + x^T V^-1 x.
  Vector inverseTimesX_;
  double lastDenominator_ = 1.0;
  // InverseOnly: log det V and ||theta||^2_{V^-1}, kept by update(); scratch for the update.
  double logDet_ = 0.0;
  double thetaInverseNormSquared_ = 0.0;
  Vector scratch_;
  Vector scratch2_;
};

}  // namespace sublinear
