#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sublinear {

// The project's one source of randomness: xoshiro256** seeded through splitmix64, with transforms
// written here rather than taken from <random>, whose distributions differ between libstdc++
// (native) and libc++ (wasm). The same seed yields the same numbers in every build.
class Random {
 public:
  explicit Random(std::uint64_t seed = 0);

  std::uint64_t nextU64();
  // Uniform on [0, 1) with 53 random bits.
  double uniform();
  // Uniform on [low, high).
  double uniform(double low, double high);
  // Uniform integer in [0, bound), without modulo bias (Lemire's method); bound > 0.
  std::uint64_t uniformInt(std::uint64_t bound);
  // Standard normal by Marsaglia's polar method (no sin/cos, whose last bits vary between libms).
  double normal();
  double normal(double mean, double standardDeviation);
  double exponential(double rate);
  // Gamma(shape, 1) by Marsaglia and Tsang; shape > 0.
  double gamma(double shape);
  // Beta(alpha, beta) as a ratio of gammas.
  double beta(double alpha, double beta);
  bool bernoulli(double probability);
  void fillNormal(double* out, std::size_t count);
  // Fisher-Yates shuffle.
  template <typename T>
  void shuffle(std::vector<T>& values) {
    for (std::size_t i = values.size(); i > 1; --i) {
      const std::size_t j = static_cast<std::size_t>(uniformInt(i));
      std::swap(values[i - 1], values[j]);
    }
  }
  // An independent stream derived from this one (for per-seed or per-copy generators).
  Random split();
  // A stream derived from this one's state without advancing it: draws that must not change the
  // numbers this engine gives next (a propensity estimate beside the choice it estimates). Another
  // `stream` gives another one; the same state and stream give the same numbers.
  Random derived(std::uint64_t stream) const;

  // The engine's full state, for saving and restoring objects exactly.
  struct State {
    std::uint64_t words[4];
    bool hasSpareNormal;
    double spareNormal;
  };
  State state() const;
  void setState(const State& state);

 private:
  std::uint64_t s_[4];
  bool hasSpareNormal_ = false;
  double spareNormal_ = 0.0;
};

}  // namespace sublinear
