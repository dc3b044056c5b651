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

// The type names makeMipsIndex accepts.
std::vector<std::string> mipsIndexTypes();

}  // namespace sublinear
