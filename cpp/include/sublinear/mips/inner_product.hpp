#pragma once

#include <cstddef>

namespace sublinear {

// Rows are stored padded with zeros to a multiple of this many floats, so the kernel has no tail.
constexpr std::size_t kLaneWidth = 4;

inline std::size_t paddedDimension(std::size_t dim) { return (dim + kLaneWidth - 1) / kLaneWidth * kLaneWidth; }

// <a, b> over `paddedDim` floats (a multiple of kLaneWidth). wasm uses f32x4 SIMD; native code runs
// the same four-lane accumulation in scalar form, so both builds return bit-identical scores.
float innerProduct(const float* a, const float* b, std::size_t paddedDim);

// The same inner product in double precision over `dim` entries, summed in order.
double innerProductDouble(const double* a, const double* b, std::size_t dim);

}  // namespace sublinear
