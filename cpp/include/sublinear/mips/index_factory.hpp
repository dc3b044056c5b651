#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/type_registry.hpp"
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

// One MIPS index type: its kebab-case name (its option table is optionTable("index", type)), its
// JavaScript class's name, its constructor, and what leastSavedIndexBytes counts for it.
struct MipsIndexType {
  std::string type;
  // sb.<className> (web/src/mips.js makes the class from the registry), e.g. "HnswIndex".
  std::string className;
  // The index over `dim` coordinates; `spec` has passed the table's key check.
  std::function<std::unique_ptr<MipsIndex>(std::size_t dim, const Json& spec)> make;
  // Empty: 0 (the index builds nothing per coordinate until items arrive).
  std::function<std::uint64_t(std::size_t dim, const Json& spec)> leastSavedBytes;
  // The groups of its option table, for a type whose options live beside its class; empty for the
  // built-in types, whose tables are in mips/mips_option_tables.cpp.
  std::vector<const OptionGroup*> groups;
};

// Every index type, in the order the documentation lists them; makeMipsIndex, restores and the
// tests that cover every type read it.
TypeRegistry<MipsIndexType>& mipsIndexRegistry();

// The type names makeMipsIndex accepts.
std::vector<std::string> mipsIndexTypes();

}  // namespace sublinear
