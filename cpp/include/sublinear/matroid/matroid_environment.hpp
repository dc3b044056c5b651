#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// The `matroid` environment of simulate(): K arms on a matroid, each with a reward distribution on
// [a, b] of mean mu_k. Options (all optional):
//   K: number of arms (default 1000; for graphic, the number of edges)
//   matroid: { kind: 'uniform', rank: D = 10 }
//          | { kind: 'partition', groups: G = 10 (arm k in group k mod G) or groupOfArm: [...] }
//          | { kind: 'graphic', vertices: V = 11 (K random edges between distinct vertices) or edges: [u,v,...] }
//          | { kind: 'transversal', right: R = 10, degree: 2 (random right neighbours per arm) or edges: [arm,right,...] }
//   rewards: 'bernoulli' (default; [a, b] = [0, 1]) or 'bounded' (uniform on [mu - r, mu + r],
//            r = min(mu - a, b - mu), so the mean is mu), a, b (bounded only; default 0, 1)
//   means: K numbers in [a, b] (default: uniform on [a, b]), seed (instance; default: the run's seed).
class MatroidEnvironment {
 public:
  MatroidEnvironment(const Json& options, std::uint64_t fallbackSeed);

  const Matroid& matroid() const { return *matroid_; }
  const std::vector<double>& means() const { return means_; }
  double rewardLow() const { return a_; }
  double rewardHigh() const { return b_; }
  bool bernoulli() const { return bernoulli_; }
  // Expected reward of the best basis (the greedy basis under the means).
  double optimalValue() const { return optimalValue_; }
  double expectedValue(const std::vector<Id>& basis) const;
  // One reward draw for `arm`.
  double draw(Id arm, Random& random) const;
  // Option `drift` ({ kind: 'switch', every }): at round t (from 1) the means are turned over
  // (m -> a + b - m, the best arms the worst) in every other stretch of `every` rounds; call before
  // the round's draws. Without drift nothing changes.
  void atRound(std::int64_t round);

 private:
  std::unique_ptr<Matroid> matroid_;
  std::vector<double> means_;
  double a_ = 0.0;
  double b_ = 1.0;
  bool bernoulli_ = true;
  double optimalValue_ = 0.0;
  std::int64_t driftEvery_ = 0;
  bool turnedOver_ = false;
  // The means turned over (m -> a + b - m) and the best basis's value for them.
  void turnOver();
};

}  // namespace sublinear
