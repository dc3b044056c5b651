#pragma once

// Inline forms of the four-lane kernels for hot loops (the exact scan, graph distances), where a call
// per row costs as much as the row itself in wasm. Every function here keeps innerProduct's order
// of operations exactly: lane l accumulates elements l, l+4, l+8, ... in order, and the lanes are
// combined as (lane0 + lane1) + (lane2 + lane3), so scores are bit-identical to innerProduct() in
// both builds (f32x4 SIMD in wasm, the same lanes in scalar form natively).
#include <cstddef>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "sublinear/mips/inner_product.hpp"

namespace sublinear::lanes {

#ifdef __wasm_simd128__
inline float combine(v128_t sum) {
  return (wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1)) +
         (wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3));
}

// combine() of four rows' sums at once, into out[0..3]: transposed so that vector l holds lane l of
// the four rows, then (l0 + l1) + (l2 + l3) per row.
inline void storeCombined4(v128_t s0, v128_t s1, v128_t s2, v128_t s3, float* out) {
  const v128_t a01 = wasm_i32x4_shuffle(s0, s1, 0, 4, 1, 5);  // s0.0 s1.0 s0.1 s1.1
  const v128_t a23 = wasm_i32x4_shuffle(s2, s3, 0, 4, 1, 5);  // s2.0 s3.0 s2.1 s3.1
  const v128_t b01 = wasm_i32x4_shuffle(s0, s1, 2, 6, 3, 7);  // s0.2 s1.2 s0.3 s1.3
  const v128_t b23 = wasm_i32x4_shuffle(s2, s3, 2, 6, 3, 7);  // s2.2 s3.2 s2.3 s3.3
  const v128_t lane0 = wasm_i32x4_shuffle(a01, a23, 0, 1, 4, 5);
  const v128_t lane1 = wasm_i32x4_shuffle(a01, a23, 2, 3, 6, 7);
  const v128_t lane2 = wasm_i32x4_shuffle(b01, b23, 0, 1, 4, 5);
  const v128_t lane3 = wasm_i32x4_shuffle(b01, b23, 2, 3, 6, 7);
  wasm_v128_store(out, wasm_f32x4_add(wasm_f32x4_add(lane0, lane1), wasm_f32x4_add(lane2, lane3)));
}
#endif

inline float innerProduct(const float* a, const float* b, std::size_t paddedDim) {
#ifdef __wasm_simd128__
  v128_t sum = wasm_f32x4_splat(0.0f);
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  }
  return combine(sum);
#else
  float lane[kLaneWidth] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    for (std::size_t l = 0; l < kLaneWidth; ++l) lane[l] += a[i + l] * b[i + l];
  }
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
}

inline float squaredDistance(const float* a, const float* b, std::size_t paddedDim) {
#ifdef __wasm_simd128__
  v128_t sum = wasm_f32x4_splat(0.0f);
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    const v128_t difference = wasm_f32x4_sub(wasm_v128_load(a + i), wasm_v128_load(b + i));
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(difference, difference));
  }
  return combine(sum);
#else
  float lane[kLaneWidth] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    for (std::size_t l = 0; l < kLaneWidth; ++l) {
      const float difference = a[i + l] - b[i + l];
      lane[l] += difference * difference;
    }
  }
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
}

// Rows of at most this many floats go through innerProducts4; longer ones one at a time. In wasm
// (V8) four interleaved rows of 96 floats or more read memory about three times slower than one row
// at a time; at 64 floats and fewer the four rows are as fast or faster
// (bench/results/design-measurements.md). Both give the same bits.
constexpr std::size_t kInterleavedRowsMaxStride = 64;

// Four rows anywhere in memory against one query: the query is loaded once per step for four rows,
// and the four horizontal sums share one transpose. out[r] == innerProduct(row r, query).
inline void innerProducts4(const float* r0, const float* r1, const float* r2, const float* r3, const float* query,
                           std::size_t paddedDim, float* out) {
#ifdef __wasm_simd128__
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    const v128_t q = wasm_v128_load(query + i);
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(r0 + i), q));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(r1 + i), q));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(wasm_v128_load(r2 + i), q));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(wasm_v128_load(r3 + i), q));
  }
  storeCombined4(s0, s1, s2, s3, out);
#else
  const float* rows[4] = {r0, r1, r2, r3};
  for (std::size_t r = 0; r < 4; ++r) out[r] = innerProduct(rows[r], query, paddedDim);
#endif
}

// squaredDistance of two rows extended by one coordinate each, (a, ea) and (b, eb), where the extra
// coordinate sits at index `at` of the extended row (at >= the rows' last nonzero entry, so the
// rows' own entries there are padding): `extraDifference` is ea - eb, and the result has the bits
// squaredDistance gives over the extended rows laid out that way. The euclidean reduction's graphs
// keep the extra coordinate beside a reference to the item's row (hnsw_graph.hpp) instead of a
// second copy of the row: its term enters lane at % 4 after the rows' own terms, as it would at
// index `at`, and the zeros after it change nothing (lanes of squares are never -0).
inline float squaredDistanceExtended(const float* a, const float* b, std::size_t paddedDim, std::size_t at, float extraDifference) {
  float lane[kLaneWidth] = {0.0f, 0.0f, 0.0f, 0.0f};
#ifdef __wasm_simd128__
  v128_t sum = wasm_f32x4_splat(0.0f);
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    const v128_t difference = wasm_f32x4_sub(wasm_v128_load(a + i), wasm_v128_load(b + i));
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(difference, difference));
  }
  wasm_v128_store(lane, sum);
#else
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    for (std::size_t l = 0; l < kLaneWidth; ++l) {
      const float difference = a[i + l] - b[i + l];
      lane[l] += difference * difference;
    }
  }
#endif
  lane[at % kLaneWidth] += extraDifference * extraDifference;
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

// squaredDistanceExtended of four rows anywhere in memory to one query whose extra coordinate is 0,
// as innerProducts4 for inner products: out[r] == squaredDistanceExtended(row r, query, paddedDim,
// at, extra[r]). Graph searches score a node's new neighbours four at a time with these, so that
// four rows' memory is read at once rather than one row after another.
inline void squaredDistancesExtended4(const float* const* rows, const float* extra, const float* query, std::size_t paddedDim,
                                      std::size_t at, float* out) {
#ifdef __wasm_simd128__
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
  const float *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3];
  for (std::size_t i = 0; i < paddedDim; i += kLaneWidth) {
    const v128_t q = wasm_v128_load(query + i);
    const v128_t d0 = wasm_f32x4_sub(wasm_v128_load(r0 + i), q);
    const v128_t d1 = wasm_f32x4_sub(wasm_v128_load(r1 + i), q);
    const v128_t d2 = wasm_f32x4_sub(wasm_v128_load(r2 + i), q);
    const v128_t d3 = wasm_f32x4_sub(wasm_v128_load(r3 + i), q);
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(d0, d0));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(d1, d1));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(d2, d2));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(d3, d3));
  }
  // The extra terms into lane at % 4: e^2 times a unit vector (e^2 * 0 = +0 elsewhere).
  alignas(16) float unit[kLaneWidth] = {0.0f, 0.0f, 0.0f, 0.0f};
  unit[at % kLaneWidth] = 1.0f;
  const v128_t mask = wasm_v128_load(unit);
  const auto term = [&](float e) { return wasm_f32x4_mul(wasm_f32x4_splat(e * e), mask); };
  storeCombined4(wasm_f32x4_add(s0, term(extra[0])), wasm_f32x4_add(s1, term(extra[1])), wasm_f32x4_add(s2, term(extra[2])),
                 wasm_f32x4_add(s3, term(extra[3])), out);
#else
  for (std::size_t r = 0; r < 4; ++r) out[r] = squaredDistanceExtended(rows[r], query, paddedDim, at, extra[r]);
#endif
}

// Four consecutive rows (stride paddedDim), as the exact scan reads them.
inline void innerProducts4(const float* rows, const float* query, std::size_t paddedDim, float* out) {
  innerProducts4(rows, rows + paddedDim, rows + 2 * paddedDim, rows + 3 * paddedDim, query, paddedDim, out);
}

// hnswlib's two graph distances of `count` float rows to one row: 1 - <row r, query>, or in the
// euclidean reduction |row r - query|^2 with the extra coordinates' difference extras[r] - queryExtra
// (extras is read only then). Four rows at a time where four interleaved streams pay (paddedDim at most
// kInterleavedRowsMaxStride); returns how many it scored, a multiple of four, the rest being the
// caller's to score one at a time (with the same bits). Graph searches and insertions both score a
// node's new neighbours with it.
inline std::size_t graphDistances4(bool euclidean, const float* const* rows, const float* extras, float queryExtra, std::size_t count,
                                   const float* query, std::size_t paddedDim, std::size_t at, float* out) {
  if (paddedDim > kInterleavedRowsMaxStride) return 0;
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    if (euclidean) {
      const float differences[4] = {extras[i] - queryExtra, extras[i + 1] - queryExtra, extras[i + 2] - queryExtra, extras[i + 3] - queryExtra};
      squaredDistancesExtended4(rows + i, differences, query, paddedDim, at, out + i);
    } else {
      innerProducts4(rows[i], rows[i + 1], rows[i + 2], rows[i + 3], query, paddedDim, out + i);
      for (std::size_t r = i; r < i + 4; ++r) out[r] = 1.0f - out[r];
    }
  }
  return i;
}

// Graph distances (a search's and an insertion's) over rows longer than kInterleavedRowsMaxStride,
// one row at a time: innerProduct's one chain of dependent additions makes such a row cost an
// addition's latency per four floats (196 of them at 784 dimensions), so these keep four sums,
// each over every fourth group of four floats (lane l of sum k adds elements 16 j + 4 k + l in order;
// the groups past the last multiple of 16 go to sum 0), added as (s0 + s1) + (s2 + s3) lane by lane
// and then combined as innerProduct's lanes. Rows of kInterleavedRowsMaxStride floats or fewer are
// scored as innerProduct scores them (graphDistances4 scores them four at a time with its bits).
// Graph distances only steer the search: the candidates' scores are computed again with
// innerProduct, so the answers' scores keep its bits.
#ifdef __wasm_simd128__
template <class Term>
inline v128_t wideLaneSums(std::size_t paddedDim, Term term) {
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
  std::size_t i = 0;
  for (; i + 4 * kLaneWidth <= paddedDim; i += 4 * kLaneWidth) {
    s0 = wasm_f32x4_add(s0, term(i));
    s1 = wasm_f32x4_add(s1, term(i + kLaneWidth));
    s2 = wasm_f32x4_add(s2, term(i + 2 * kLaneWidth));
    s3 = wasm_f32x4_add(s3, term(i + 3 * kLaneWidth));
  }
  for (; i < paddedDim; i += kLaneWidth) s0 = wasm_f32x4_add(s0, term(i));
  return wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3));
}
#else
template <class Term>
inline void wideLaneSums(std::size_t paddedDim, Term term, float* lane) {
  float sums[4][kLaneWidth] = {};
  std::size_t i = 0;
  for (; i + 4 * kLaneWidth <= paddedDim; i += 4 * kLaneWidth) {
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::size_t l = 0; l < kLaneWidth; ++l) sums[k][l] += term(i + k * kLaneWidth + l);
    }
  }
  for (; i < paddedDim; i += kLaneWidth) {
    for (std::size_t l = 0; l < kLaneWidth; ++l) sums[0][l] += term(i + l);
  }
  for (std::size_t l = 0; l < kLaneWidth; ++l) lane[l] = (sums[0][l] + sums[1][l]) + (sums[2][l] + sums[3][l]);
}
#endif

inline float graphInnerProduct(const float* a, const float* b, std::size_t paddedDim) {
  if (paddedDim <= kInterleavedRowsMaxStride) return innerProduct(a, b, paddedDim);
#ifdef __wasm_simd128__
  return combine(wideLaneSums(paddedDim, [&](std::size_t i) { return wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)); }));
#else
  float lane[kLaneWidth];
  wideLaneSums(paddedDim, [&](std::size_t i) { return a[i] * b[i]; }, lane);
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
}

inline float graphSquaredDistanceExtended(const float* a, const float* b, std::size_t paddedDim, std::size_t at, float extraDifference) {
  if (paddedDim <= kInterleavedRowsMaxStride) return squaredDistanceExtended(a, b, paddedDim, at, extraDifference);
  float lane[kLaneWidth];
#ifdef __wasm_simd128__
  wasm_v128_store(lane, wideLaneSums(paddedDim, [&](std::size_t i) {
    const v128_t difference = wasm_f32x4_sub(wasm_v128_load(a + i), wasm_v128_load(b + i));
    return wasm_f32x4_mul(difference, difference);
  }));
#else
  wideLaneSums(paddedDim, [&](std::size_t i) {
    const float difference = a[i] - b[i];
    return difference * difference;
  }, lane);
#endif
  lane[at % kLaneWidth] += extraDifference * extraDifference;
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

}  // namespace sublinear::lanes
