#pragma once

#include "sublinear/core/options.hpp"

namespace sublinear {

// The stage ladder of the elimination policies (Yang et al., arXiv:2103.02729, Algorithm 3), shared
// by the lifted search (StagedElimination) and the kept-widths one (ScanElim): stages Psi_0 .. Psi_smax,
// an arm of uncertainty u = beta ||x||_{V^-1} belonging to Psi_s with s = floor(-log2 u) clamped.
namespace elimination_stages {

// The `eta` option, or its default: 1/(T + 1) under the practical radius, 1/sqrt(T + 1) under the
// theoretical one (see defaultEta in elimination_stages.cpp for why).
double eta(const Json& options);
// smax = max(0, ceil(log2(1 / (8 eta)))), at most 60.
int maxStage(double eta);
// floor(-log2 u) clamped to [0, maxStage]; maxStage for u = 0.
int stageFor(double uncertainty, int maxStage);

}  // namespace elimination_stages
}  // namespace sublinear
