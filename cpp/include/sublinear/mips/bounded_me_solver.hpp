#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"

namespace sublinear {

// BoundedME (Liu et al., arXiv:1812.06360, Algorithm 1) for the Multi-Armed Bandit with Bounded Pulls: every
// arm owns a finite list of N rewards, a pull draws the next reward of the arm *without* replacement, and the
// goal is K arms whose K-th best true mean is within epsilon of the best K-th mean with probability
// at least 1 - delta. Median elimination with the without-replacement sample sizes m(u) (eq. 6):
// round l pulls every surviving arm up to t_l = m(2/eps_l^2 log(2(|S_l|-K) / (delta_l (ceil((|S_l|-K)/2)+1))))
// times, then drops the ceil((|S_l|-K)/2) arms of least empirical mean; eps_l = eps/4 (3/4)^(l-1),
// delta_l = delta/2^l. No arm is ever pulled more than N times (Corollary 2).
//
// Scale: the paper states the bound for rewards in [0, 1]. Rewards in [a, b] are read as mapped to
// [0, 1] by (r - a)/(b - a); elimination only compares sums, so the run is identical and the
// guarantee reads: best K-th mean minus returned K-th mean <= epsilon * (b - a).
class BoundedMESolver {
 public:
  // Sum of the rewards of `arm` at positions [from, to) of its draw order (0 <= from < to <= N).
  using PullSum = std::function<double(std::size_t arm, std::size_t from, std::size_t to)>;
  // One round at once: sums[arm] += rewards of `arm` at positions [from, to), for every arm in `arms`
  // (ascending). Lets a caller walk memory in its own order (the MIPS index streams column panels).
  using RoundPulls = std::function<void(const std::vector<std::size_t>& arms, std::size_t from, std::size_t to, std::vector<double>& sums)>;

  struct Result {
    std::vector<std::size_t> arms;  // K arms, best empirical mean first
    std::uint64_t pulls = 0;        // rewards drawn in total
    std::size_t rounds = 0;         // elimination rounds run
  };

  // Both in (0, 1) (INVALID_ARGUMENT otherwise).
  BoundedMESolver(double epsilon, double delta);

  double epsilon() const { return epsilon_; }
  double delta() const { return delta_; }

  // m(u) of equation (6) for lists of length N: the without-replacement sample size, below N for u > 0.
  static double sampleSize(double u, std::size_t listLength);
  // t_l of line 7 (an integer: the real m rounded up, at most N).
  static std::size_t roundPulls(double epsilonRound, double deltaRound, std::size_t survivors, std::size_t k,
                                std::size_t listLength);

  // Runs Algorithm 1 over arms 0..armCount-1 (k <= armCount). Ties in empirical mean go to the smaller arm.
  Result solve(std::size_t armCount, std::size_t listLength, std::size_t k, const PullSum& pullSum) const;
  Result solveRounds(std::size_t armCount, std::size_t listLength, std::size_t k, const RoundPulls& roundPulls) const;

  // How a list is drawn without replacement when the rewards are given explicitly.
  enum class DrawOrder {
    Shared,       // one uniformly random order of positions, the same for every arm (as in MIPS)
    Independent,  // an independent uniformly random order per arm
    Given,        // the list's own order (no randomness: the caller decides, the guarantee needs it random)
  };
  static DrawOrder parseDrawOrder(const std::string& name);

  // Algorithm 1 on explicit lists: rewards[arm * N + j], all within [low, high] (validated).
  Result solveLists(const double* rewards, std::size_t armCount, std::size_t listLength, std::size_t k,
                    DrawOrder order, double low, double high, Random& random) const;

 private:
  double epsilon_;
  double delta_;
};

// The generic MAB-BP entry point (sb.boundedME in JavaScript): K lists of N rewards, options
// { epsilon = 0.1, delta = 0.1, k = 1, seed = 0, low = 0, high = 1, order = "shared" }.
BoundedMESolver::Result solveBoundedPulls(const double* rewards, std::size_t rewardCount, std::size_t armCount,
                                          std::size_t listLength, const Json& options);

}  // namespace sublinear
