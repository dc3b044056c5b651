#pragma once

#include "sublinear/linear/staged_elimination.hpp"

namespace sublinear {

// Sub-Elim (Yang et al., arXiv:2103.02729, Algorithm 3): staged elimination whose stage searches go
// through the uncertainty bounds first (boundsFirst) and then an approximate index, `index`
// { type: "hnsw" } unless given. Options as StagedElimination.
class SubElim final : public StagedElimination {
 public:
  SubElim(int dim, const Json& options) : StagedElimination("sub-elim", "hnsw", true, dim, options) {}
};

}  // namespace sublinear
