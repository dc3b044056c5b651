#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// Builds a linear policy from API.md's `policy` object plus the run's `horizon` and `seed`:
//
//   { type: "lin-ucb" | "lin-ts" | "linear-elim" | "sub-elim" | "sub-ts", ...options,
//     index: { type, ...index options }, horizon, seed }
//
// `dim` (the arms' feature dimension) must be in [1, 1000]. Every option is optional; a bad value
// throws INVALID_ARGUMENT naming the option. Unknown keys are ignored (simulate() passes its
// own keys through).
//
// Options shared by all policies (RidgePolicy):
//   lambda   1       ridge regulariser, V_1 = lambda I                            (> 0)
//   delta    0.05    failure probability of the confidence radius                 (in (0, 1))
//   noise    1       R, sub-Gaussian scale of the reward noise                    (>= 0)
//   bound    1       S, bound on ||theta*||_2                                     (>= 0)
//   horizon  10000   T: enters the radii of TS (delta / 4T) and Elim              (integer >= 1)
//   beta     -       a fixed confidence radius, replacing the formulas below      (>= 0)
//   seed     0       all randomness of the policy and (unless index.seed) its index
//
// "lin-ucb" (LinUCB, OFUL): argmax x^T theta^ + beta_t ||x||_{V^-1},
//   beta_t = R sqrt(2 log(1/delta) + log(det V / lambda^d)) + sqrt(lambda) S. Scans every arm.
//
// "lin-ts" (LinTS) and "sub-ts" (SubTS, paper 000 Algorithm 4 + section 7):
//   theta~ = theta^ + inflation * beta_t(delta / 4T) V^-1/2 xi; the index returns `shortlist`
//   candidates for theta~ and the best by exact inner product is played.
//   inflation                1       multiplies the sampling radius              (>= 0)
//   shortlist                30      p, candidates ranked exactly                (integer >= 1)
//   index                    { type: "exact" } for lin-ts, { type: "hnsw" } for sub-ts
//   negativeRewardTransform  false   x -> [x/sqrt2, sqrt2/2], r -> r/2 + 1/2 (paper section 6)
//   Arm removals supported.
//
// "linear-elim" (LinearElim) and "sub-elim" (SubElim, paper 000 Algorithms 2 and 3): stages
//   Psi_0..Psi_smax of arms with beta ||x||_{V^-1} <= 2^-s, each with a min-heap for elimination
//   and a MIPS index over vec(x x^T / d) (symmetric lift, d(d+1)/2 dims) queried with vec(V^-1 / d).
//   eta           1/sqrt(T)   MIPS accuracy eta(T); smax = max(0, ceil(log2(1/(8 eta))))  (in (0, 1))
//   featureBound  1           L, bound on ||x||_2 in the fixed radius
//                 beta = R sqrt(2 log(2/delta) + d log(1 + T L^2 / (lambda d))) + sqrt(lambda) S
//   shortlist     30          candidates the index retrieves before exact ranking  (integer >= 1)
//   index         { type: "exact" } for linear-elim, { type: "hnsw" } for sub-elim
//   Arm removals supported except for the arm that set the current elimination threshold (the
//   "witness"): removing it is refused with INVALID_ARGUMENT, since arms eliminated against it could
//   never come back.
//
// Unknown `type` or an index type that makeMipsIndex does not know: INVALID_ARGUMENT.
std::unique_ptr<LinearPolicy> makeLinearPolicy(int dim, const Json& options);

// The type names makeLinearPolicy accepts.
std::vector<std::string> linearPolicyTypes();

}  // namespace sublinear
