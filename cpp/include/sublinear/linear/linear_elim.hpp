#pragma once

#include "sublinear/linear/staged_elimination.hpp"

namespace sublinear {

// Linear Elim, the linear-time baseline of Sub-Elim (Yang et al., arXiv:2103.02729, section 7): Algorithm 3
// unchanged except that each stage's MIPS is an exact scan (`index` defaults to { type: "exact" }). Options
// as StagedElimination.
class LinearElim final : public StagedElimination {
 public:
  LinearElim(int dim, const Json& options) : StagedElimination("linear-elim", "exact", false, dim, options) {}
};

}  // namespace sublinear
