#include "sublinear/mips/persistent_index.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_inspection.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

namespace {
std::size_t indexDimOf(const Json& spec) {
  requireObject(spec, "index options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return static_cast<std::size_t>(readIntegerOption(option_groups::indexDim(), spec, "dim"));
}

// Checked on every vector and query that reaches an index from outside the core; a non-finite
// entry is left to the index (NON_FINITE).
// `first`: where values[0] lies in the whole array the message names.
void requireMagnitude(const float* values, std::size_t length, const char* what, std::size_t first = 0) {
  for (std::size_t i = 0; i < length; ++i) {
    const double value = values[i];
    if (std::isfinite(value) && std::fabs(value) > kMaxMagnitude) {
      fail(ErrorCode::InvalidArgument, std::string(what) + "[" + std::to_string(first + i) + "] = " + std::to_string(value) +
                                           " exceeds 1e15 in magnitude (inner products must stay finite in float32)");
    }
  }
}
}  // namespace

std::vector<std::string> PersistenceFamily<MipsIndex>::stateTypes() { return mipsIndexTypes(); }

std::unique_ptr<MipsIndex> PersistenceFamily<MipsIndex>::make(const Json& spec) { return makeMipsIndex(indexDimOf(spec), spec); }

std::unique_ptr<MipsIndex> PersistenceFamily<MipsIndex>::restore(StateReader& in, const Json& spec, const std::string&, const Context&) {
  const std::size_t dim = indexDimOf(spec);
  // What the constructor spends per coordinate must be in the state (leastSavedIndexBytes).
  in.check(leastSavedIndexBytes(dim, spec) <= in.remaining(), "the stored options ask for more data than the state holds");
  return makeMipsIndex(dim, spec);
}

void PersistenceFamily<MipsIndex>::afterLoad(const MipsIndex& index) {
  const VectorStore& items = index.items();
  std::vector<float> vector(items.dim());
  for (std::size_t row = 0; row < items.size(); ++row) {
    items.decode(row, vector.data());
    requireMagnitude(vector.data(), items.dim(), "saved item");
  }
}

namespace {
// inspectState: an index's payload starts with its item count (MipsIndex::save).
void describeIndexState(const std::string& type, const Json&, StateReader& in, Json& summary) {
  const std::vector<std::string> types = mipsIndexTypes();
  if (std::find(types.begin(), types.end(), type) == types.end()) return;
  summary["sizes"]["items"] = in.u64();
}
const bool kIndexStateDescribed = addStateDescriber(&describeIndexState);
}  // namespace

void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index.add(ids, idCount, vectors, vectorLength);
}

void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength,
                  const Label* labels, std::size_t labelCount) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index.add(ids, idCount, vectors, vectorLength, labels, labelCount);
}

void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength,
                  const ItemAttributes& attributes) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index.add(ids, idCount, vectors, vectorLength, attributes);
}

void addUserItems(MipsIndex& index, const Id* ids, std::size_t idCount, const FloatSource& vectors, const ItemAttributes& attributes) {
  forEachPiece(vectors, index.dim(), [](const float* piece, std::size_t first, std::size_t count) {
    requireMagnitude(piece, count, "vectors", first);
  });
  index.add(ids, idCount, vectors, attributes);
}

void setUserFeatures(MipsIndex& index, const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index.setFeatures(ids, idCount, vectors, vectorLength);
}

namespace {
// What searchForUser holds the filters to, whatever the queries: EMPTY when nothing is eligible.
void checkUserFilters(const MipsIndex& index, const SearchOptions& options) {
  options.check();
  Eligibility::checkValueNames(index.attributes(), options);
  if (options.filtersAnything() && index.eligibility(options).count() == 0) {
    fail(ErrorCode::Empty, "no item is eligible: of the " + std::to_string(index.size()) +
                               " items, none meets the filter without being excluded");
  }
}
}  // namespace

BatchSearchResult searchBatchForUser(MipsIndex& index, const float* queries, std::size_t queryLength, std::size_t queryCount,
                                     std::size_t k, const SearchOptions& options) {
  requireMagnitude(queries, queryLength, "queries");
  checkUserFilters(index, options);
  return index.searchBatch(queries, queryLength, queryCount, k, options);
}

SearchResult searchForUser(MipsIndex& index, const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options) {
  SearchResult result;
  searchForUser(index, query, queryLength, k, options, result);
  return result;
}

void searchForUser(MipsIndex& index, const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options,
                   SearchResult& out) {
  requireMagnitude(query, queryLength, "query");
  checkUserFilters(index, options);
  index.search(query, queryLength, k, options, out);
}

}  // namespace sublinear
