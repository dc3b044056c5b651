#pragma once

// log and exp computed with plain IEEE double arithmetic only (no libm), so that the native build
// (glibc, possibly FMA code paths chosen at run time) and the wasm build (musl) produce the same
// bits. A seed must mean the same run everywhere, and every random transform that needs a
// logarithm or an exponential goes through these.
namespace sublinear::deterministic {

// Natural logarithm; x must be positive and finite (returns -inf for 0, NaN for negatives).
double log(double x);

// e^x; overflows to +inf and underflows to 0 like std::exp.
double exp(double x);

}  // namespace sublinear::deterministic
