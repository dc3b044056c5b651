#include "sublinear/core/random.hpp"

#include <cmath>
#include <cstring>

#include "sublinear/core/deterministic_math.hpp"

namespace sublinear {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Random::Random(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& word : s_) word = splitmix64(x);
}

std::uint64_t Random::nextU64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Random::uniform() { return static_cast<double>(nextU64() >> 11) * 0x1.0p-53; }

double Random::uniform(double low, double high) { return low + (high - low) * uniform(); }

std::uint64_t Random::uniformInt(std::uint64_t bound) {
  // Lemire's multiply-shift with rejection, on 64 bits via 32-bit halves when the bound is small,
  // otherwise by plain rejection sampling on the smallest covering power of two.
  if (bound <= 1) return 0;
  if (bound <= 0xFFFFFFFFULL) {
    const std::uint64_t threshold = (0x100000000ULL - bound) % bound;
    for (;;) {
      const std::uint64_t product = (nextU64() >> 32) * bound;
      if ((product & 0xFFFFFFFFULL) >= threshold) return product >> 32;
    }
  }
  std::uint64_t mask = bound - 1;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  for (;;) {
    const std::uint64_t candidate = nextU64() & mask;
    if (candidate < bound) return candidate;
  }
}

double Random::normal() {
  if (hasSpareNormal_) {
    hasSpareNormal_ = false;
    return spareNormal_;
  }
  for (;;) {
    const double u = 2.0 * uniform() - 1.0;
    const double v = 2.0 * uniform() - 1.0;
    const double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    const double factor = std::sqrt(-2.0 * deterministic::log(s) / s);
    spareNormal_ = v * factor;
    hasSpareNormal_ = true;
    return u * factor;
  }
}

double Random::normal(double mean, double standardDeviation) { return mean + standardDeviation * normal(); }

double Random::exponential(double rate) { return -deterministic::log(1.0 - uniform()) / rate; }

double Random::gamma(double shape) {
  if (shape < 1.0) {
    // Boost to shape + 1 and scale by U^(1/shape) (Marsaglia and Tsang, section 6).
    const double u = 1.0 - uniform();
    return gamma(shape + 1.0) * deterministic::exp(deterministic::log(u) / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x;
    double v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (deterministic::log(u) < 0.5 * x * x + d * (1.0 - v + deterministic::log(v))) return d * v;
  }
}

double Random::beta(double alpha, double betaShape) {
  const double x = gamma(alpha);
  const double y = gamma(betaShape);
  return x / (x + y);
}

bool Random::bernoulli(double probability) { return uniform() < probability; }

void Random::fillNormal(double* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = normal();
}

Random Random::split() {
  Random child(0);
  for (auto& word : child.s_) word = nextU64();
  return child;
}

Random Random::derived(std::uint64_t stream) const {
  // Every word of the state and the spare normal mixed into the seed, one splitmix64 step each.
  std::uint64_t seed = stream;
  std::uint64_t spare = 0;
  static_assert(sizeof spare == sizeof spareNormal_);
  std::memcpy(&spare, &spareNormal_, sizeof spare);
  for (const std::uint64_t word : {s_[0], s_[1], s_[2], s_[3], hasSpareNormal_ ? spare : 0}) {
    seed ^= word;
    seed = splitmix64(seed);
  }
  return Random(seed);
}

Random::State Random::state() const { return State{{s_[0], s_[1], s_[2], s_[3]}, hasSpareNormal_, spareNormal_}; }

void Random::setState(const State& state) {
  for (int i = 0; i < 4; ++i) s_[i] = state.words[i];
  hasSpareNormal_ = state.hasSpareNormal;
  spareNormal_ = state.spareNormal;
}

}  // namespace sublinear
