#pragma once

#include "sublinear/linear/sub_elim.hpp"

namespace sublinear {

// Linear Elim, the linear-time baseline of Sub-Elim (Yang et al., arXiv:2103.02729, section 7): Algorithm 3
// unchanged except that each stage's MIPS is an exact scan (`index` defaults to { type: "exact" }). Options
// as SubElim.
class LinearElim final : public SubElim {
 public:
  LinearElim(int dim, const Json& options) : SubElim("linear-elim", "exact", dim, options) {}
};

}  // namespace sublinear
