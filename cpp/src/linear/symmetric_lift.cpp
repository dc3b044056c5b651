#include "sublinear/linear/symmetric_lift.hpp"

#include <cmath>

namespace sublinear {

namespace {
const double kOffDiagonalWeight = std::sqrt(2.0);
}

SymmetricLift::SymmetricLift(int dim)
    : dim_(dim), liftedDim_(static_cast<std::size_t>(dim) * static_cast<std::size_t>(dim + 1) / 2) {}

void SymmetricLift::liftOuterProduct(const double* x, float* out) const {
  const double scale = 1.0 / dim_;
  std::size_t k = 0;
  for (int i = 0; i < dim_; ++i) {
    out[k++] = static_cast<float>(x[i] * x[i] * scale);
    for (int j = i + 1; j < dim_; ++j) out[k++] = static_cast<float>(kOffDiagonalWeight * x[i] * x[j] * scale);
  }
}

void SymmetricLift::liftSymmetric(const Matrix& m, float* out) const {
  const double scale = 1.0 / dim_;
  std::size_t k = 0;
  for (int i = 0; i < dim_; ++i) {
    out[k++] = static_cast<float>(m(i, i) * scale);
    // Average the two triangles so that rounding noise in V^-1 cannot make the lift asymmetric.
    for (int j = i + 1; j < dim_; ++j) out[k++] = static_cast<float>(kOffDiagonalWeight * 0.5 * (m(i, j) + m(j, i)) * scale);
  }
}

}  // namespace sublinear
