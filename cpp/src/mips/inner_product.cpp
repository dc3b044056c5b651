#include "sublinear/mips/inner_product.hpp"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace sublinear {

float innerProduct(const float* a, const float* b, std::size_t paddedDim) {
#ifdef __wasm_simd128__
  v128_t sum = wasm_f32x4_splat(0.0f);
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  }
  return (wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1)) +
         (wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3));
#else
  float lane[kLaneWidth] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    for (std::size_t l = 0; l < kLaneWidth; ++l) lane[l] += a[i + l] * b[i + l];
  }
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
}

double innerProductDouble(const double* a, const double* b, std::size_t dim) {
  double sum = 0.0;
  for (std::size_t i = 0; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace sublinear
