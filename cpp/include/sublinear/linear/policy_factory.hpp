#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/type_registry.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// Builds a linear policy from the JavaScript API's `policy` object plus the run's `horizon` and `seed`:
//
//   { type: "lin-ucb" | "lin-ts" | "linear-elim" | "sub-elim" | "sub-ts", ...options,
//     index: { type, ...index options }, horizon, seed }
//
// `dim` (the arms' feature dimension) must be in [1, 4096]. Every option is optional; a bad value
// throws INVALID_ARGUMENT naming the option. Unknown keys are ignored (simulate() passes its
// own keys through).
//
// Options shared by all policies (RidgePolicy):
//   radius   "practical"  how the confidence radius is set (below)      ("practical" | "theoretical")
//   lambda   1       ridge regulariser, V_1 = lambda I                            (> 0)
//   delta    0.05    failure probability of the confidence radius                 (in (0, 1))
//   noise    -       R, the reward noise's scale; estimated from the ridge residuals when not given
//                    (practical rule), 1 when not given (theoretical rule)       (>= 0)
//   bound    1       S, bound on ||theta*||_2 (theoretical rule only)            (>= 0)
//   horizon  10000   T: enters the radii of TS (delta / 4T) and Elim              (integer >= 1)
//   beta     -       a fixed confidence radius, replacing either rule             (>= 0)
//   seed     0       all randomness of the policy and (unless index.seed) its index
//
// The radius rules. "practical" (the default): beta = c sigma + lambda ||theta^||_{V^-1}, sigma the
// noise scale (given or estimated), c = sqrt(2 log(1/delta)) for LinUCB and the elimination policies
// and c = 1 for Thompson sampling (a draw from the posterior N(theta^, sigma^2 V^-1)); it assumes
// neither ||theta*|| <= 1 nor noise 1, and tests/battery checks that every policy learns with it
// on problems from ||theta*|| 0.5 to 5, noise 0.1 to 1, d 4 to 64. "theoretical": the papers'
// worst-case radii below, which hold with probability 1 - delta when noise and bound are true
// bounds, and explore for far longer.
//
// "lin-ucb" (LinUCB, OFUL): argmax x^T theta^ + beta_t ||x||_{V^-1},
//   theoretical beta_t = R sqrt(2 log(1/delta) + log(det V / lambda^d)) + sqrt(lambda) S. Scans every arm.
//
// "lin-ts" (LinTS) and "sub-ts" (SubTS, Yang et al., arXiv:2103.02729, Algorithm 4 + section 7):
//   theta~ = theta^ + inflation * v V^-1/2 xi, v the practical scale or the theoretical
//   beta_t(delta / 4T); the index returns `shortlist` candidates for theta~ and the best by exact
//   inner product is played.
//   inflation                1       multiplies the sampling scale               (>= 0)
//   shortlist                30      p, candidates ranked exactly                (integer >= 1)
//   index                    { type: "exact" } for lin-ts, { type: "hnsw" } for sub-ts
//   negativeRewardTransform  false   x -> [x/sqrt2, sqrt2/2], r -> r/2 + 1/2 (paper section 6)
//   subspace                 "auto"  learn theta in the arms' principal subspace: "arms", "none", or
//                                    "auto" ("arms" above 64 dimensions or with modelDim or
//                                    subspaceEnergy; "none" with prior or negativeRewardTransform)
//   modelDim                 min(d, 256)  the subspace model's dimension     (integer in [1, 4096], d above d)
//   subspaceEnergy           the fewest principal directions holding this share of the arms'
//                                    squared norms (at least 8, at most modelDim); default and range:
//                                    the armSubspace group's (cpp/src/linear/linear_option_tables.cpp)
//   Arm removals supported.
//
// "linear-elim" (LinearElim) and "sub-elim" (SubElim, Yang et al. Algorithms 2 and 3): stages
//   Psi_0..Psi_smax of arms with beta ||x||_{V^-1} <= 2^-s, each with a min-heap for elimination
//   and a MIPS index over vec(x x^T / d) (symmetric lift, d(d+1)/2 dims) queried with vec(V^-1 / d).
//   Under the practical rule every arm in play is re-examined whenever the observations grow by a
//   quarter (re-keyed, moved, eliminated against the best lower bound): see StagedElimination::review.
//   eta           MIPS accuracy eta(T); smax = max(0, ceil(log2(1/(8 eta)))); default and range: the
//                 elimination group's (cpp/src/linear/linear_option_tables.cpp)
//   featureBound  1           L, bound on ||x||_2 in the theoretical radius
//                 beta = R sqrt(2 log(2/delta) + d log(1 + T L^2 / (lambda d))) + sqrt(lambda) S
//   shortlist     30          candidates the index retrieves before exact ranking  (integer >= 1)
//   index         { type: "exact" } for linear-elim, { type: "hnsw" } for sub-elim
//   Arm removals always work; removing the arm that set the elimination threshold (the "witness")
//   brings the arms eliminated against it back.
//   search        "auto"      "lifted": the stage indexes above (StagedElimination); "widths":
//                 every arm's ||x||^2_{V^-1} kept by rank-one corrections, exact stages at O(n d) a
//                 step for n arms in play, 13 bytes an arm (ScanElim); "auto": lifted at d <= 16
//                 over own arms, widths above (the lift outgrows the arms, and measured, widths step
//                 as fast or faster from d = 24 on; bench/results/elimination-search.md) and over a
//                 catalogue.
//
// Unknown `type` or an index type that makeMipsIndex does not know: INVALID_ARGUMENT.
std::unique_ptr<LinearPolicy> makeLinearPolicy(int dim, const Json& options);
// The dimension of the ridge model the policy `spec` (with `type`) makes at `dim`: d, d + 1 for
// Sub-TS's negativeRewardTransform, modelDim for a Thompson policy in the arms' subspace.
int linearModelDimension(int dim, const Json& spec);

// A user over a shared catalogue (catalogue.hpp): the same options without `dim` (the catalogue's)
// and, for lin-ts and sub-ts, without `index` (Sub-TS searches the catalogue's index, Linear TS scans
// the catalogue's rows) or negativeRewardTransform. linear-elim and sub-elim run with kept widths
// (ScanElim: 13 bytes an arm per user, no copy of the features, no lifted index); `index` and
// search "lifted" are refused for them (INVALID_ARGUMENT).
std::unique_ptr<LinearPolicy> makeLinearPolicy(std::shared_ptr<Catalogue> catalogue, const Json& options);

// One linear policy type: its kebab-case name (its option table is optionTable("linear-policy",
// type)), its JavaScript class's name and its constructors; the options have passed the table's key check.
struct LinearPolicyType {
  std::string type;
  // sb.<className> (web/src/linear.js makes the class from the registry), e.g. "LinUCB".
  std::string className;
  // Over its own arms, `dim` in [1, 4096].
  std::function<std::unique_ptr<LinearPolicy>(int dim, const Json& options)> make;
  // A user over a catalogue.
  std::function<std::unique_ptr<LinearPolicy>(std::shared_ptr<Catalogue> catalogue, const Json& options)> makeForCatalogue;
  // linearModelDimension for this type; empty: `dim`.
  std::function<int(int dim, const Json& options)> modelDimension;
  // The groups of its option table, for a type whose options live beside its class; empty for the
  // built-in types, whose tables are in linear/linear_option_tables.cpp.
  std::vector<const OptionGroup*> groups;
  // Whether a user of this type with these options learns in the catalogue's subspace (its model is
  // then the catalogue's subspaceModelDim(), and its snapshot's head holds the basis lineage); empty: never.
  std::function<bool(const Catalogue& catalogue, const Json& options)> catalogueSubspace;
};

// Whether the user `spec` (with `type`) over `catalogue` learns in the catalogue's subspace.
bool linearUsesCatalogueSubspace(const Catalogue& catalogue, const Json& spec);

// Every linear policy type, in the order the documentation lists them.
TypeRegistry<LinearPolicyType>& linearPolicyRegistry();

// The type names makeLinearPolicy accepts.
std::vector<std::string> linearPolicyTypes();

}  // namespace sublinear
