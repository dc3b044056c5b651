#include "sublinear/mips/inner_product.hpp"

#include "sublinear/mips/lane_kernels.hpp"

namespace sublinear {

// One kernel for every caller: the inline form in lane_kernels.hpp.
float innerProduct(const float* a, const float* b, std::size_t paddedDim) { return lanes::innerProduct(a, b, paddedDim); }

double innerProductDouble(const double* a, const double* b, std::size_t dim) {
  double sum = 0.0;
  for (std::size_t i = 0; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace sublinear
