#pragma once

#include "sublinear/linear/thompson_sampling.hpp"

namespace sublinear {

// Linear Thompson sampling (Abeille and Lazaric 2017), the linear-time baseline of Sub-TS: the
// same algorithm with an exact scan as its MIPS (`index` defaults to { type: "exact" }; any other
// index type may be named, which makes it Sub-TS under another name). Options as ThompsonSampling.
class LinTS final : public ThompsonSampling {
 public:
  LinTS(int dim, const Json& options) : ThompsonSampling("lin-ts", "exact", dim, options) {}
  // Over a catalogue, the baseline scans the catalogue's rows exactly (MipsIndex::searchExactly),
  // whatever index the catalogue keeps for its Sub-TS users.
  LinTS(std::shared_ptr<Catalogue> catalogue, const Json& options)
      : ThompsonSampling("lin-ts", std::move(catalogue), true, options) {}
};

}  // namespace sublinear
