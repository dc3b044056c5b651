#pragma once

#include <cstddef>

#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

// Sub-Elim's MIPS lives in the space of d x d matrices: <vec(x x^T / d), vec(M / d)> = x^T M x / d^2
// (Yang et al., arXiv:2103.02729, Algorithm 2). For symmetric M the upper triangle with
// off-diagonal entries scaled by sqrt(2) gives the same inner product in d(d+1)/2 dimensions instead
// of d^2.
class SymmetricLift {
 public:
  explicit SymmetricLift(int dim);

  int dim() const { return dim_; }
  // d(d+1)/2.
  std::size_t liftedDim() const { return liftedDim_; }
  // vec(x x^T / d) into out[0 .. liftedDim()).
  void liftOuterProduct(const double* x, float* out) const;
  // vec(M / d) of a symmetric M into out[0 .. liftedDim()).
  void liftSymmetric(const Matrix& m, float* out) const;

 private:
  int dim_;
  std::size_t liftedDim_;
};

}  // namespace sublinear
