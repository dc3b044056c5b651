#pragma once

#include <deque>
#include <vector>

#include "sublinear/cls/arm_features.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

// Ridge regression whose Gram matrix V = lambda I + sum x x^T is block-diagonal because every
// observed x lies inside one of `blocks` equal diagonal blocks: the promotion problem of Takemura
// and Ito (arXiv:1909.02251), where x~(jN + i) is user i's features in promotion j's block. Then
// V^-1, theta, ||x||_{V^-1} and a draw from N(theta, v^2 V^-1) all split into independent blocks, so
// one observation costs O((dim / blocks)^2) instead of O(dim^2). With one block this is plain
// RidgeRegression.
class BlockDiagonalRidge {
 public:
  BlockDiagonalRidge(int dim, int blocks, double lambda);

  int dim() const { return static_cast<int>(theta_.size()); }
  int blockCount() const { return static_cast<int>(blocks_.size()); }
  int blockDim() const { return blockDim_; }
  long observations() const { return observations_; }
  // theta^ = V^-1 b, all blocks side by side.
  const Vector& theta() const { return theta_; }
  // The one block's V^-1 (the lifted index needs the whole matrix: single-block policies only).
  const Matrix& inverseGram() const { return blocks_.front().inverseGram(); }
  // x^T V^-1 x for the vector that is `arm.values` at columns [arm.offset, arm.offset + arm.width).
  double quadraticForm(const ArmSlice& arm) const;
  // theta^ + scale * V^-1/2 xi: a draw from N(theta^, scale^2 V^-1), block by block.
  Vector sampleTheta(Random& random, double scale) const;
  // Whether every nonzero entry of x lies in one block (always, with one block).
  bool fitsOneBlock(const Vector& x) const;
  // Precondition: fitsOneBlock(x), x finite.
  void update(const Vector& x, double reward);
  // 1 + x^T V^-1 x of the last update's x, with V before it.
  double lastDenominator() const { return lastDenominator_; }

  // Forgetting (ClsPolicy), block by block with RidgeRegression's arithmetic. With c the share of
  // lambda I that V still holds (1 but under a discount):
  // every block's V and b times `factor` in (0, 1] (the regulariser with them: c -> factor c);
  void scale(double factor);
  // V -> factor (V - c lambda I) + lambda I and b -> factor b, c back to 1; factor 0 is the fresh
  // regression bit for bit, factor 1 a discount's top-up;
  void weigh(double factor, double regulariserShare);
  // one observation taken back out (a window's oldest, weighted: sqrt(w) x and sqrt(w) r);
  void downdate(const Vector& x, double reward);
  // an observation a window holds, and V and b made again from a window's observations alone (the
  // downdates' rounding wiped out).
  struct Observation {
    Vector x;
    double reward;
    double weight;
  };
  void refit(const std::deque<Observation>& observations);
  // Bit-exact state of every block (RidgeRegression::save); load checks the shape and decodes into
  // the blocks themselves (for a new regression: a failed load leaves it half read).
  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  // The block holding x's nonzero entries (0 for x = 0).
  Eigen::Index blockOf(const Vector& x) const;
  void refreshTheta();

  int blockDim_;
  double lambda_;
  long observations_ = 0;
  double lastDenominator_ = 1.0;
  std::vector<RidgeRegression> blocks_;
  Vector theta_;
};

}  // namespace sublinear
