#pragma once

// Double-precision dot products for the scans that keep per-arm confidence widths (KeptWidths):
// wasm runs them with f64x2 SIMD, native code with the same two-lane operations (SSE2, or scalar
// pairs), so both builds return the same bits (the cross-build checksums compare them).
//
// The order of operations, which both forms follow exactly: accumulator l (0..7) sums x[i] a[i]
// for i = l, l + 8, l + 16, ... over the first dim - dim % 8 entries; the remaining pairs go to
// accumulators 0 and 1; the accumulators are combined as
//   ((A0 + A2) + (A4 + A6)) + ((A1 + A3) + (A5 + A7))
// (four f64x2 vectors added as (v0 + v1) + (v2 + v3), then lane 0 + lane 1), and an odd last
// entry's product is added at the end. Eight accumulators rather than two: each vector add waits
// for the previous one on its accumulator, and four independent chains keep the adder busy.
//
// Eigen cannot serve here: the build sets EIGEN_DONT_VECTORIZE so that its products have the same
// bits in both builds, and its scalar row-major products (four rows at a time) were the bulk of the
// kept widths' step, in wasm as natively.
#include <cstddef>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sublinear::lanes {

// Two doubles, added and multiplied lane by lane: f64x2 in wasm, SSE2 on x86-64 (the native build's
// baseline), a plain pair elsewhere. All three are IEEE double operations lane by lane, so every
// form gives the same bits.
namespace pair {
#if defined(__wasm_simd128__)
using Pair = v128_t;
inline Pair zero() { return wasm_f64x2_splat(0.0); }
inline Pair load(const double* p) { return wasm_v128_load(p); }
// Two floats widened to doubles (exactly).
inline Pair load(const float* p) { return wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(p)); }
inline Pair add(Pair a, Pair b) { return wasm_f64x2_add(a, b); }
inline Pair mul(Pair a, Pair b) { return wasm_f64x2_mul(a, b); }
inline Pair sub(Pair a, Pair b) { return wasm_f64x2_sub(a, b); }
inline Pair splat(double v) { return wasm_f64x2_splat(v); }
inline void store(double* p, Pair a) { wasm_v128_store(p, a); }
inline double sumLanes(Pair a) { return wasm_f64x2_extract_lane(a, 0) + wasm_f64x2_extract_lane(a, 1); }
#elif defined(__SSE2__)
using Pair = __m128d;
inline Pair zero() { return _mm_setzero_pd(); }
inline Pair load(const double* p) { return _mm_loadu_pd(p); }
inline Pair load(const float* p) { return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))); }
inline Pair add(Pair a, Pair b) { return _mm_add_pd(a, b); }
inline Pair mul(Pair a, Pair b) { return _mm_mul_pd(a, b); }
inline Pair sub(Pair a, Pair b) { return _mm_sub_pd(a, b); }
inline Pair splat(double v) { return _mm_set1_pd(v); }
inline void store(double* p, Pair a) { _mm_storeu_pd(p, a); }
inline double sumLanes(Pair a) { return _mm_cvtsd_f64(a) + _mm_cvtsd_f64(_mm_unpackhi_pd(a, a)); }
#else
struct Pair {
  double lo, hi;
};
inline Pair zero() { return {0.0, 0.0}; }
inline Pair load(const double* p) { return {p[0], p[1]}; }
inline Pair load(const float* p) { return {static_cast<double>(p[0]), static_cast<double>(p[1])}; }
inline Pair add(Pair a, Pair b) { return {a.lo + b.lo, a.hi + b.hi}; }
inline Pair mul(Pair a, Pair b) { return {a.lo * b.lo, a.hi * b.hi}; }
inline Pair sub(Pair a, Pair b) { return {a.lo - b.lo, a.hi - b.hi}; }
inline Pair splat(double v) { return {v, v}; }
inline void store(double* p, Pair a) { p[0] = a.lo, p[1] = a.hi; }
inline double sumLanes(Pair a) { return a.lo + a.hi; }
#endif
// (v0 + v1) + (v2 + v3), then lane 0 + lane 1.
inline double combine(Pair v0, Pair v1, Pair v2, Pair v3) { return sumLanes(add(add(v0, v1), add(v2, v3))); }
}  // namespace pair

// <x, a> over `dim` entries (no padding, no alignment needed). x may be a float row (ArmSet's float
// copy): its entries are widened to double exactly and the arithmetic is the same double arithmetic.
template <class Row>
inline double dot(const Row* x, const double* a, std::size_t dim) {
  using namespace pair;
  Pair a0 = zero(), a1 = a0, a2 = a0, a3 = a0;
  std::size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    a0 = add(a0, mul(load(x + i), load(a + i)));
    a1 = add(a1, mul(load(x + i + 2), load(a + i + 2)));
    a2 = add(a2, mul(load(x + i + 4), load(a + i + 4)));
    a3 = add(a3, mul(load(x + i + 6), load(a + i + 6)));
  }
  for (; i + 2 <= dim; i += 2) a0 = add(a0, mul(load(x + i), load(a + i)));
  double sum = combine(a0, a1, a2, a3);
  if (i < dim) sum += x[i] * a[i];
  return sum;
}

// The loop dotPair and downdateDotPair share: <x, a> and <x, b> in one pass over x, where `x`
// gives the row's entries: x.quad(i, lo, hi) entries i .. i + 3 as two pairs, x.pair(i) entries i
// and i + 1, x.last(i) the odd last entry. The order of operations is dot()'s, for each product.
template <class Entries>
inline void dotPairOver(Entries x, const double* a, const double* b, std::size_t dim, double& xa, double& xb) {
  using namespace pair;
  Pair a0 = zero(), a1 = a0, a2 = a0, a3 = a0;
  Pair b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  std::size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    Pair x0, x1, x2, x3;
    x.quad(i, x0, x1);
    x.quad(i + 4, x2, x3);
    a0 = add(a0, mul(x0, load(a + i)));
    b0 = add(b0, mul(x0, load(b + i)));
    a1 = add(a1, mul(x1, load(a + i + 2)));
    b1 = add(b1, mul(x1, load(b + i + 2)));
    a2 = add(a2, mul(x2, load(a + i + 4)));
    b2 = add(b2, mul(x2, load(b + i + 4)));
    a3 = add(a3, mul(x3, load(a + i + 6)));
    b3 = add(b3, mul(x3, load(b + i + 6)));
  }
  for (; i + 2 <= dim; i += 2) {
    const Pair x0 = x.pair(i);
    a0 = add(a0, mul(x0, load(a + i)));
    b0 = add(b0, mul(x0, load(b + i)));
  }
  double sa = combine(a0, a1, a2, a3);
  double sb = combine(b0, b1, b2, b3);
  if (i < dim) {
    const double last = x.last(i);
    sa += last * a[i];
    sb += last * b[i];
  }
  xa = sa;
  xb = sb;
}

// A row of doubles or floats read as dotPairOver's entries (floats widened exactly, two at a time).
template <class Row>
struct RowEntries {
  const Row* x;
  void quad(std::size_t i, pair::Pair& lo, pair::Pair& hi) const {
    lo = pair::load(x + i);
    hi = pair::load(x + i + 2);
  }
  pair::Pair pair(std::size_t i) const { return pair::load(x + i); }
  double last(std::size_t i) const { return x[i]; }
};

// <x, a> and <x, b> in one read of x: each equals dot() of the same vectors, bit for bit.
template <class Row>
inline void dotPair(const Row* x, const double* a, const double* b, std::size_t dim, double& xa, double& xb) {
  dotPairOver(RowEntries<Row>{x}, a, b, dim, xa, xb);
}

// Column j of a symmetric rank-one downdate A - g g^T, in place: a[k] -= g[k] * gj for every k, then
// <a, b> and <a, c> of the new column from the same read (each equal to dot() of the new column,
// bit for bit). Entry (k, j) loses g[k] gj and entry (j, k) gj g[k], the same product: a symmetric
// A stays symmetric bit for bit (RidgeRegression's inverse-only form).
inline void downdateDotPair(double* a, const double* g, double gj, const double* b, const double* c, std::size_t dim, double& ab,
                            double& ac) {
  // The entries of the new column, each stored as it is made.
  struct Downdated {
    double* a;
    const double* g;
    pair::Pair scale;
    double gj;
    pair::Pair pair(std::size_t i) const {
      const pair::Pair x = pair::sub(pair::load(a + i), pair::mul(pair::load(g + i), scale));
      pair::store(a + i, x);
      return x;
    }
    void quad(std::size_t i, pair::Pair& lo, pair::Pair& hi) const {
      lo = pair(i);
      hi = pair(i + 2);
    }
    double last(std::size_t i) const { return a[i] -= g[i] * gj; }
  };
  dotPairOver(Downdated{a, g, pair::splat(gj), gj}, b, c, dim, ab, ac);
}

// <x, a> and <x, b> in single precision, for the kept widths' scans over an arm set's float rows:
// four float lanes a SIMD operation (f32x4 in wasm, SSE natively, a plain quadruple elsewhere), twice
// the double form's, where at d = 32 the scan was most of LinUCB's step. The rows are floats
// already, so the products' rounding (2^-24 an operation, accumulated over the dimension) is of the
// order of the rows' own. Order of operations, in every form: accumulator l (0..7) sums x[i] a[i] for
// i = l, l + 8, ... over the first dim - dim % 8 entries, accumulators 0..3 take the next four
// entries when dim % 8 >= 4; the accumulators combine as ((A0 + A4) + (A1 + A5)) + ((A2 + A6) +
// (A3 + A7)) and the last dim % 4 products are added in order.
namespace quad {
#if defined(__wasm_simd128__)
using Quad = v128_t;
inline Quad zero() { return wasm_f32x4_splat(0.0f); }
inline Quad load(const float* p) { return wasm_v128_load(p); }
inline Quad add(Quad a, Quad b) { return wasm_f32x4_add(a, b); }
inline Quad mul(Quad a, Quad b) { return wasm_f32x4_mul(a, b); }
inline float sumLanes(Quad a) {
  return (wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 1)) + (wasm_f32x4_extract_lane(a, 2) + wasm_f32x4_extract_lane(a, 3));
}
#elif defined(__SSE2__)
using Quad = __m128;
inline Quad zero() { return _mm_setzero_ps(); }
inline Quad load(const float* p) { return _mm_loadu_ps(p); }
inline Quad add(Quad a, Quad b) { return _mm_add_ps(a, b); }
inline Quad mul(Quad a, Quad b) { return _mm_mul_ps(a, b); }
inline float sumLanes(Quad a) {
  alignas(16) float lane[4];
  _mm_store_ps(lane, a);
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}
#else
struct Quad {
  float l[4];
};
inline Quad zero() { return {{0.0f, 0.0f, 0.0f, 0.0f}}; }
inline Quad load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline Quad add(Quad a, Quad b) { return {{a.l[0] + b.l[0], a.l[1] + b.l[1], a.l[2] + b.l[2], a.l[3] + b.l[3]}}; }
inline Quad mul(Quad a, Quad b) { return {{a.l[0] * b.l[0], a.l[1] * b.l[1], a.l[2] * b.l[2], a.l[3] * b.l[3]}}; }
inline float sumLanes(Quad a) { return (a.l[0] + a.l[1]) + (a.l[2] + a.l[3]); }
#endif
}  // namespace quad

inline void floatDotPair(const float* x, const float* a, const float* b, std::size_t dim, float& xa, float& xb) {
  using namespace quad;
  Quad a0 = zero(), a1 = a0, b0 = a0, b1 = a0;
  std::size_t i = 0;
  for (; i + 8 <= dim; i += 8) {
    const Quad x0 = load(x + i), x1 = load(x + i + 4);
    a0 = add(a0, mul(x0, load(a + i)));
    b0 = add(b0, mul(x0, load(b + i)));
    a1 = add(a1, mul(x1, load(a + i + 4)));
    b1 = add(b1, mul(x1, load(b + i + 4)));
  }
  if (i + 4 <= dim) {
    const Quad x0 = load(x + i);
    a0 = add(a0, mul(x0, load(a + i)));
    b0 = add(b0, mul(x0, load(b + i)));
    i += 4;
  }
  float sa = sumLanes(add(a0, a1));
  float sb = sumLanes(add(b0, b1));
  for (; i < dim; ++i) {
    sa += x[i] * a[i];
    sb += x[i] * b[i];
  }
  xa = sa;
  xb = sb;
}

}  // namespace sublinear::lanes
