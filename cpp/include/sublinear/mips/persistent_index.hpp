#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/persistent.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// A MIPS index as a user holds it: the index made from `{ type, dim, ...options }` (dim is
// required) and its saved state, the options then the structure (MipsIndex::save).
template <>
struct PersistenceFamily<MipsIndex> : PersistenceFamilyDefaults {
  static constexpr const char* kName = "MIPS index";
  static constexpr const char* kNoun = "index";
  static std::vector<std::string> stateTypes();
  static std::unique_ptr<MipsIndex> make(const Json& spec);
  static std::unique_ptr<MipsIndex> restore(StateReader& in, const Json& spec, const std::string& type, const Context&);
  // The saved items are held to what addUserItems holds a user's vectors to.
  static void afterLoad(const MipsIndex& index);
};

using PersistentIndex = Persistent<MipsIndex>;

// A user's calls into an index, with the checks on what comes from outside the core: every entry of
// the vectors and the query at most 1e15 in magnitude (INVALID_ARGUMENT; a non-finite entry is left
// to the index, NON_FINITE). Indexes inside policies are called directly: they hold products of
// features (Sub-Elim's lifts), beyond that bound.
void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength);
// With one label per id (labelCount == idCount, DIMENSION_MISMATCH otherwise), or the attributes of
// one row per id.
void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength,
                  const Label* labels, std::size_t labelCount);
void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength,
                  const ItemAttributes& attributes);
// The same with the vectors read a piece at a time (a JS array beside the wasm heap).
void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const FloatSource& vectors, const ItemAttributes& attributes);
// MipsIndex::setFeatures with the vectors held as addUserItems holds them.
void setUserFeatures(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength);
// A search whose filters (options.exclude and the attribute conditions) leave nothing eligible is
// EMPTY, before any work: a user who filtered asked for something, and an empty answer would hide
// that. A filter that cannot be met as written (AttributeFilter::check) or names a value no item was
// given is INVALID_ARGUMENT.
SearchResult searchForUser(MipsIndex& index, const float* query, std::size_t queryLength, std::size_t k,
                           const SearchOptions& options = {});
// The same into `out` (MipsIndex::search's reusing form).
void searchForUser(MipsIndex& index, const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options,
                   SearchResult& out);
// searchForUser for each of a batch of queries (MipsIndex::searchBatch): every query and the
// filters checked before any search.
BatchSearchResult searchBatchForUser(MipsIndex& index, const float* queries, std::size_t queryLength, std::size_t queryCount,
                                     std::size_t k, const SearchOptions& options = {});

}  // namespace sublinear
