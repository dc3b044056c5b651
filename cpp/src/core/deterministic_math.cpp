#include "sublinear/core/deterministic_math.hpp"

#include <cmath>
#include <limits>

namespace sublinear::deterministic {

namespace {
// ln 2 split so that k * kLn2High is exact for the exponents that occur.
constexpr double kLn2High = 6.93147180369123816490e-01;
constexpr double kLn2Low = 1.90821492927058770002e-10;
constexpr double kInverseLn2 = 1.44269504088896338700e+00;
constexpr double kSqrtHalf = 0.70710678118654752440;
}  // namespace

double log(double x) {
  if (std::isnan(x) || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int exponent = 0;
  double mantissa = std::frexp(x, &exponent);  // exact: x = mantissa * 2^exponent, mantissa in [0.5, 1)
  if (mantissa < kSqrtHalf) {
    mantissa *= 2.0;
    exponent -= 1;
  }
  // log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716: the odd series converges fast.
  const double s = (mantissa - 1.0) / (mantissa + 1.0);
  const double s2 = s * s;
  double series = 1.0 / 23.0;
  for (int denominator = 21; denominator >= 1; denominator -= 2) series = series * s2 + 1.0 / denominator;
  const double k = exponent;
  return k * kLn2High + (k * kLn2Low + 2.0 * s * series);
}

double exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.1332191019412) return 0.0;
  const double k = std::floor(x * kInverseLn2 + 0.5);
  const double r = (x - k * kLn2High) - k * kLn2Low;  // |r| <= ln2 / 2
  // Taylor series of e^r to degree 14, Horner form: the error is below 1e-17 for |r| <= 0.35.
  double sum = 1.0;
  for (int n = 14; n >= 1; --n) sum = 1.0 + sum * r / n;
  return std::ldexp(sum, static_cast<int>(k));
}

}  // namespace sublinear::deterministic
