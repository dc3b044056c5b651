#pragma once

#include "sublinear/linear/sub_ts.hpp"

namespace sublinear {

// Linear Thompson sampling (Abeille and Lazaric 2017), the linear-time baseline of Sub-TS: the
// same algorithm with an exact scan as its MIPS (`index` defaults to { type: "exact" }; any other
// index type may be named, which makes it Sub-TS under another name). Options as SubTS.
class LinTS final : public SubTS {
 public:
  LinTS(int dim, const Json& options) : SubTS("lin-ts", "exact", dim, options) {}
  // Over a catalogue, the baseline scans the catalogue's rows exactly (MipsIndex::searchExactly),
  // whatever index the catalogue keeps for its Sub-TS users.
  LinTS(std::shared_ptr<Catalogue> catalogue, const Json& options) : SubTS("lin-ts", std::move(catalogue), options) {}
};

}  // namespace sublinear
