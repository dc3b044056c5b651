#include "sublinear/mips/persistent_index.hpp"

#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear {

namespace {
std::unique_ptr<MipsIndex> makeIndexFromSpec(const Json& spec) {
  requireObject(spec, "index options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  const auto dim = static_cast<std::size_t>(readIntegerOption(option_groups::indexDim(), spec, "dim"));
  return makeMipsIndex(dim, spec);
}

// Checked on every vector and query that reaches an index from outside the core; a non-finite
// entry is left to the index (NON_FINITE).
void requireMagnitude(const float* values, std::size_t length, const char* what) {
  for (std::size_t i = 0; i < length; ++i) {
    const double value = values[i];
    if (std::isfinite(value) && std::fabs(value) > kMaxMagnitude) {
      fail(ErrorCode::InvalidArgument, std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(value) +
                                           " exceeds 1e15 in magnitude (inner products must stay finite in float32)");
    }
  }
}
}  // namespace

PersistentIndex::PersistentIndex(const Json& spec) : spec_(spec), index_(makeIndexFromSpec(spec)) {}

std::unique_ptr<PersistentIndex> PersistentIndex::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                            const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, mipsIndexTypes(), expectedType, "MIPS index");
  std::unique_ptr<PersistentIndex> restored;
  loadSnapshot(bytes, length, type, [&](StateReader& in) {
    const Json spec = readOptions(in);
    requireObject(spec, "index options");
    require(spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
    const auto dim = static_cast<std::size_t>(readIntegerOption(option_groups::indexDim(), spec, "dim"));
    // What the constructor spends per coordinate must be in the state (leastSavedIndexBytes).
    in.check(leastSavedIndexBytes(dim, spec) <= in.remaining(), "the stored options ask for more data than the state holds");
    restored = std::make_unique<PersistentIndex>(spec);
    in.check(restored->index().type() == type, "saved options are of another index type");
    restored->index_->load(in);
    // The bound add() holds a user's vectors to (loadSnapshot reports it as CORRUPT_STATE).
    const VectorStore& items = restored->index().items();
    std::vector<float> vector(items.dim());
    for (std::size_t row = 0; row < items.size(); ++row) {
      items.decode(row, vector.data());
      requireMagnitude(vector.data(), items.dim(), "saved item");
    }
  });
  return restored;
}

std::vector<std::uint8_t> PersistentIndex::toBytes() const {
  StateWriter out(index_->type());
  out.json(spec_);
  index_->save(out);
  return out.finish();
}

void PersistentIndex::add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index_->add(ids, idCount, vectors, vectorLength);
}

void PersistentIndex::add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength, const Label* labels,
                          std::size_t labelCount) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index_->add(ids, idCount, vectors, vectorLength, labels, labelCount);
}

void PersistentIndex::remove(const Id* ids, std::size_t idCount) { index_->remove(ids, idCount); }

SearchResult PersistentIndex::search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options) {
  requireMagnitude(query, queryLength, "query");
  if ((!options.exclude.empty() || !options.labels.empty()) && index_->eligibility(options).count() == 0) {
    fail(ErrorCode::Empty, "no item is eligible: of the " + std::to_string(index_->size()) +
                               " items, none has an allowed label without being excluded");
  }
  return index_->search(query, queryLength, k, options);
}

}  // namespace sublinear
