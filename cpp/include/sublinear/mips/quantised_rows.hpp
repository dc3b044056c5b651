#pragma once

// 8-bit scalar quantisation of item vectors (the `storage: 'int8'` option of HnswIndex and
// ExactIndex): each row keeps codes c_i in [-127, 127] and one float scale s = max_i |x_i| / 127
// (symmetric, per row), and stands for the vector s * c. A row costs codeBytes(dim) + 4 bytes
// instead of 4 * paddedDimension(dim): 132 bytes against 512 at d = 128.
//
// Two kernels, both with the same bits in the wasm and the native build:
//   codeInnerProduct: a float query against a row's codes (the exact score of the stored vector, up
//     to float rounding): lane l accumulates code(l + 4j) * q(l + 4j) in order, as innerProduct does;
//   codeDot: codes against codes in 32-bit integers (graph distances between stored rows and a
//     quantised query), exact; in wasm two i32x4.dot_i16x8_s per 16 codes after widening to i16.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "sublinear/mips/lane_kernels.hpp"

namespace sublinear::quantised {

// Codes are padded with zeros to a multiple of 16 (one v128 of i8 lanes).
constexpr std::size_t kCodeLanes = 16;
inline std::size_t codeBytes(std::size_t dim) { return (dim + kCodeLanes - 1) / kCodeLanes * kCodeLanes; }
constexpr int kLargestCode = 127;
// codeDot sums up to dim products of at most 127^2 in 32-bit lanes: 16129 x 65536 < 2^31.
constexpr std::size_t kMaxDimension = 65536;

// The scale of a row (max |x_i| / 127; 0 for a zero row) and its codes (codeBytes(dim) entries, zero
// beyond dim). Rounding to nearest in double precision, away from zero on ties: the same codes in
// every build.
inline float encode(const float* vector, std::size_t dim, std::int8_t* codes) {
  float largest = 0.0f;
  for (std::size_t i = 0; i < dim; ++i) largest = std::fmax(largest, std::fabs(vector[i]));
  const float scale = largest / static_cast<float>(kLargestCode);
  for (std::size_t i = 0; i < codeBytes(dim); ++i) {
    long code = 0;
    if (i < dim && scale > 0.0f) code = std::lround(static_cast<double>(vector[i]) / static_cast<double>(scale));
    if (code > kLargestCode) code = kLargestCode;
    if (code < -kLargestCode) code = -kLargestCode;
    codes[i] = static_cast<std::int8_t>(code);
  }
  return scale > 0.0f ? scale : 0.0f;
}

inline void decode(const std::int8_t* codes, float scale, std::size_t dim, float* out) {
  for (std::size_t i = 0; i < dim; ++i) out[i] = scale * static_cast<float>(codes[i]);
}

// sum_i code_i * query_i over `count` entries (a multiple of 16), in innerProduct's lane order.
#ifdef __wasm_simd128__
// The 16 codes of `bytes` as floats, exactly, into c[0..3]: the bits of 1.5 * 2^23 plus a code are
// the float 1.5 * 2^23 + code, from which 1.5 * 2^23 is subtracted. Not f32x4.convert_i32x4 of the
// widened codes: emcc 3.1.6's LLVM folds that into a conversion from 16-bit lanes, which the wasm
// backend scalarises (16 lane extractions and scalar conversions per 16 codes), and int8 scoring
// then took 3x the float scan's time per row at d = 784.
inline void codesAsFloats(v128_t bytes, v128_t* c) {
  const v128_t magic = wasm_i32x4_splat(0x4B400000);  // the bits of 1.5 * 2^23
  const v128_t offset = wasm_f32x4_splat(12582912.0f);
  const v128_t low = wasm_i16x8_extend_low_i8x16(bytes);
  const v128_t high = wasm_i16x8_extend_high_i8x16(bytes);
  c[0] = wasm_f32x4_sub(wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(low), magic), offset);
  c[1] = wasm_f32x4_sub(wasm_i32x4_add(wasm_i32x4_extend_high_i16x8(low), magic), offset);
  c[2] = wasm_f32x4_sub(wasm_i32x4_add(wasm_i32x4_extend_low_i16x8(high), magic), offset);
  c[3] = wasm_f32x4_sub(wasm_i32x4_add(wasm_i32x4_extend_high_i16x8(high), magic), offset);
}
#endif

inline float codeInnerProduct(const std::int8_t* codes, const float* query, std::size_t count) {
#ifdef __wasm_simd128__
  v128_t sum = wasm_f32x4_splat(0.0f);
  for (std::size_t i = 0; i < count; i += kCodeLanes) {
    v128_t c[4];
    codesAsFloats(wasm_v128_load(codes + i), c);
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(c[0], wasm_v128_load(query + i)));
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(c[1], wasm_v128_load(query + i + 4)));
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(c[2], wasm_v128_load(query + i + 8)));
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(c[3], wasm_v128_load(query + i + 12)));
  }
  return (wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1)) +
         (wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3));
#else
  float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t i = 0; i < count; i += 4) {
    for (std::size_t l = 0; l < 4; ++l) lane[l] += static_cast<float>(codes[i + l]) * query[i + l];
  }
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
}

// codeInnerProduct of four rows against one query, into out[0..3], with its bits: each row's lanes
// add in the same order, and four independent chains of additions run at once where one row has
// one (an addition's latency per four codes).
inline void codeInnerProducts4(const std::int8_t* const* rows, const float* query, std::size_t count, float* out) {
#ifdef __wasm_simd128__
  v128_t sum[4] = {wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f)};
  for (std::size_t i = 0; i < count; i += kCodeLanes) {
    const v128_t q0 = wasm_v128_load(query + i), q1 = wasm_v128_load(query + i + 4);
    const v128_t q2 = wasm_v128_load(query + i + 8), q3 = wasm_v128_load(query + i + 12);
    for (std::size_t r = 0; r < 4; ++r) {
      v128_t c[4];
      codesAsFloats(wasm_v128_load(rows[r] + i), c);
      sum[r] = wasm_f32x4_add(sum[r], wasm_f32x4_mul(c[0], q0));
      sum[r] = wasm_f32x4_add(sum[r], wasm_f32x4_mul(c[1], q1));
      sum[r] = wasm_f32x4_add(sum[r], wasm_f32x4_mul(c[2], q2));
      sum[r] = wasm_f32x4_add(sum[r], wasm_f32x4_mul(c[3], q3));
    }
  }
  lanes::storeCombined4(sum[0], sum[1], sum[2], sum[3], out);
#else
  for (std::size_t r = 0; r < 4; ++r) out[r] = codeInnerProduct(rows[r], query, count);
#endif
}

// sum_i a_i * b_i over `count` codes (a multiple of 16), exactly.
inline std::int32_t codeDot(const std::int8_t* a, const std::int8_t* b, std::size_t count) {
#ifdef __wasm_simd128__
  v128_t sum = wasm_i32x4_splat(0);
  for (std::size_t i = 0; i < count; i += kCodeLanes) {
    const v128_t x = wasm_v128_load(a + i);
    const v128_t y = wasm_v128_load(b + i);
    sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x), wasm_i16x8_extend_low_i8x16(y)));
    sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x), wasm_i16x8_extend_high_i8x16(y)));
  }
  return wasm_i32x4_extract_lane(sum, 0) + wasm_i32x4_extract_lane(sum, 1) + wasm_i32x4_extract_lane(sum, 2) +
         wasm_i32x4_extract_lane(sum, 3);
#else
  // A plain loop: compilers vectorise it (pmaddwd with SSE2).
  std::int32_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
  return sum;
#endif
}

// codeDot of four rows against one vector b: out[r] == codeDot(rows[r], b, count). b is widened
// once per 16 codes for the four rows, and the four sums share one transpose (exact integers: any
// order of additions gives the same sums).
inline void codeDots4(const std::int8_t* const* rows, const std::int8_t* b, std::size_t count, std::int32_t* out) {
#ifdef __wasm_simd128__
  v128_t s[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
  for (std::size_t i = 0; i < count; i += kCodeLanes) {
    const v128_t y = wasm_v128_load(b + i);
    const v128_t low = wasm_i16x8_extend_low_i8x16(y);
    const v128_t high = wasm_i16x8_extend_high_i8x16(y);
    for (std::size_t r = 0; r < 4; ++r) {
      const v128_t x = wasm_v128_load(rows[r] + i);
      s[r] = wasm_i32x4_add(s[r], wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x), low));
      s[r] = wasm_i32x4_add(s[r], wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x), high));
    }
  }
  // Lane sums of s[0..3] into one vector: pairs of rows interleaved, then their halves added.
  const v128_t u01 = wasm_i32x4_add(wasm_i32x4_shuffle(s[0], s[1], 0, 4, 1, 5), wasm_i32x4_shuffle(s[0], s[1], 2, 6, 3, 7));
  const v128_t u23 = wasm_i32x4_add(wasm_i32x4_shuffle(s[2], s[3], 0, 4, 1, 5), wasm_i32x4_shuffle(s[2], s[3], 2, 6, 3, 7));
  wasm_v128_store(out, wasm_i32x4_add(wasm_i32x4_shuffle(u01, u23, 0, 1, 4, 5), wasm_i32x4_shuffle(u01, u23, 2, 3, 6, 7)));
#else
  for (std::size_t r = 0; r < 4; ++r) out[r] = codeDot(rows[r], b, count);
#endif
}

// sum_i (scale * code_i)^2 in double, the squared norm of the decoded row.
inline double squaredNorm(const std::int8_t* codes, float scale, std::size_t dim) {
  double sum = 0.0;
  for (std::size_t i = 0; i < dim; ++i) {
    const float value = scale * static_cast<float>(codes[i]);
    sum += static_cast<double>(value) * value;
  }
  return sum;
}

// A graph vector in int8 storage (HnswIndex): the item's codes (codeBytes), its scale, and the
// euclidean reduction's extra coordinate e = sqrt(R^2 - |x|^2) of the decoded item (0 in the
// inner-product space and for queries), kept as a float: it carries the norm the codes lose. The
// graph keeps the extra coordinate beside a reference to the store's row (codes, then scale), and a
// query holds all three in a row of graphVectorBytes.
inline std::size_t graphVectorBytes(std::size_t codeBytes) { return codeBytes + 2 * sizeof(float); }
inline float floatAt(const void* row, std::size_t offset) {
  float value;
  std::memcpy(&value, static_cast<const char*>(row) + offset, sizeof(value));
  return value;
}
// The scale of a stored row or a graph query (after the codes).
inline float rowScale(const void* row, std::size_t codeBytes) { return floatAt(row, codeBytes); }
// <a, b> of two coded rows of scales scaleA and scaleB whose codes' dot is `dot`, in float.
inline float scaledDot(float scaleA, float scaleB, std::int32_t dot) { return (scaleA * scaleB) * static_cast<float>(dot); }
// <a, b> of two coded rows, in float (the integer dot is exact).
inline float codedInnerProduct(const void* a, const void* b, std::size_t codeBytes) {
  const std::int32_t dot = codeDot(static_cast<const std::int8_t*>(a), static_cast<const std::int8_t*>(b), codeBytes);
  return scaledDot(rowScale(a, codeBytes), rowScale(b, codeBytes), dot);
}
// A graph space's distance from <a, b> (`product`): 1 - <a, b> in the inner-product space, or in
// the euclidean reduction (see euclideanDistance) -2(<a, b> + e_a e_b).
inline float spaceDistance(bool euclidean, float product, float extraA, float extraB) {
  return euclidean ? -2.0f * (product + extraA * extraB) : 1.0f - product;
}
// The inner-product space's distance 1 - <a, b>.
inline float innerProductDistance(const void* a, const void* b, std::size_t codeBytes) {
  return spaceDistance(false, codedInnerProduct(a, b, codeBytes), 0.0f, 0.0f);
}
// |a' - b'|^2 = 2R^2 - 2(<a, b> + e_a e_b) between two items in the euclidean reduction; against a
// query (e = 0) it is |a' - q'|^2 less the query's constant R^2 + |q|^2 - 2R^2. The constant 2R^2 is
// left out: a graph only compares distances of one kind with each other (item to item while
// linking, query to item while searching), so a shift changes nothing.
inline float euclideanDistance(const void* a, float extraA, const void* b, float extraB, std::size_t codeBytes) {
  return spaceDistance(true, codedInnerProduct(a, b, codeBytes), extraA, extraB);
}

// The graph distances (innerProductDistance, or euclideanDistance) of `count` coded rows, with
// extra coordinates extras[] in the euclidean reduction, to one coded vector b of extra coordinate
// extraB, four at a time (codeDots4), with the bits of one at a time: out[i] for i below the
// returned count, a multiple of four; the rest are the caller's.
inline std::size_t graphDistances4(bool euclidean, const float* const* rows, const float* extras, const void* b, float extraB,
                                   std::size_t count, std::size_t codeBytes, float* out) {
  const float scaleB = rowScale(b, codeBytes);
  std::int32_t dots[4];
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const std::int8_t* codes[4];
    for (std::size_t r = 0; r < 4; ++r) codes[r] = reinterpret_cast<const std::int8_t*>(rows[i + r]);
    codeDots4(codes, static_cast<const std::int8_t*>(b), codeBytes, dots);
    for (std::size_t r = 0; r < 4; ++r) {
      out[i + r] = spaceDistance(euclidean, scaledDot(rowScale(rows[i + r], codeBytes), scaleB, dots[r]), euclidean ? extras[i + r] : 0.0f, extraB);
    }
  }
  return i;
}

}  // namespace sublinear::quantised
