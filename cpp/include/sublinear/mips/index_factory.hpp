#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// Builds an index from `{ type, ...options }` (type in kebab case, e.g. "exact", "hnsw").
// Policies hold the result as a MipsIndex and never name a concrete class.
std::unique_ptr<MipsIndex> makeMipsIndex(std::size_t dim, const Json& spec);

// The fewest payload bytes that a saved index of `spec` over `dim` coordinates holds, counting only
// what grows with the options (BoundedME's column bounds: 8 bytes a coordinate; AdaptiveIndex: its
// copies'). A restore checks it against the bytes present before it constructs the index, so that
// a constructor's per-coordinate work is paid for by the state; the other indexes build nothing
// per coordinate until items arrive. Invalid options throw as makeMipsIndex would.
std::uint64_t leastSavedIndexBytes(std::size_t dim, const Json& spec);

// The type names makeMipsIndex accepts.
std::vector<std::string> mipsIndexTypes();

}  // namespace sublinear
