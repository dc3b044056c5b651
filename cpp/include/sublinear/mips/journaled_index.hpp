#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/operation_journal.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// A MIPS index as a user holds it: the index made from `{ type, dim, ...options }` and the journal
// that is its saved state (operation_journal.hpp). Adds, removes and searches are recorded once they
// succeed -- searches too, because some indexes draw random numbers or rebuild lazily while searching.
class JournaledIndex {
 public:
  // spec: { type, dim, ...options } as in makeMipsIndex; dim is required.
  explicit JournaledIndex(const Json& spec);

  // Restores toBytes() of an index of `expectedType` (any index type when empty); CORRUPT_STATE for
  // damaged bytes or the state of another type.
  static std::unique_ptr<JournaledIndex> fromBytes(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType);

  const MipsIndex& index() const { return *index_; }

  void add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength);
  void remove(const Id* ids, std::size_t idCount);
  SearchResult search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options = {});

  std::vector<std::uint8_t> toBytes() const { return journal_.toBytes(); }

 private:
  std::unique_ptr<MipsIndex> index_;
  OperationJournal journal_;
};

}  // namespace sublinear
