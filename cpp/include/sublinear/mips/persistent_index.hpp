#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// A MIPS index as a user holds it: the index made from `{ type, dim, ...options }`, the checks on
// vectors that come from outside the core, and its saved state: a snapshot of the options and the
// structure (core/snapshot.hpp).
class PersistentIndex {
 public:
  // spec: { type, dim, ...options } as in makeMipsIndex; dim is required.
  explicit PersistentIndex(const Json& spec);

  // Restores toBytes() of an index of `expectedType` (any index type when empty); CORRUPT_STATE for
  // damaged bytes or the state of another type.
  static std::unique_ptr<PersistentIndex> fromBytes(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType);

  const MipsIndex& index() const { return *index_; }
  const Json& spec() const { return spec_; }

  void add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength);
  // With one label per id (labelCount == idCount, DIMENSION_MISMATCH otherwise).
  void add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength, const Label* labels,
           std::size_t labelCount);
  void remove(const Id* ids, std::size_t idCount);
  // A search whose filters (options.exclude, options.labels) leave nothing eligible is EMPTY, before
  // any work: a caller who filtered asked for something, and an empty answer would hide that.
  SearchResult search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options = {});
  // MipsIndex::build: up to maxItems waiting items into the structure; returns how many still wait.
  std::size_t build(std::size_t maxItems) { return index_->build(maxItems); }

  std::vector<std::uint8_t> toBytes() const;

 private:
  Json spec_;
  std::unique_ptr<MipsIndex> index_;
};

}  // namespace sublinear
