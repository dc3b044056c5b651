#include "sublinear/mips/journaled_index.hpp"

#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear {

namespace {
enum Operation : std::uint8_t { kAdd = 1, kRemove = 2, kSearch = 3 };

std::unique_ptr<MipsIndex> makeIndexFromSpec(const Json& spec) {
  requireObject(spec, "index options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  const auto dim = static_cast<std::size_t>(readIntegerOption(option_groups::indexDim(), spec, "dim"));
  return makeMipsIndex(dim, spec);
}

// Like the linear policies' features (ArmSet::kMaxMagnitude) and the JS layer's MAX_MAGNITUDE:
// with |x_i| <= 1e15 and dim <= 10^6 an inner product stays finite in float32 arithmetic. Checked
// here, on every vector and query that reaches an index from outside the core; a non-finite entry
// is left to the index (NON_FINITE).
constexpr double kMaxMagnitude = 1e15;

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

JournaledIndex::JournaledIndex(const Json& spec) : index_(makeIndexFromSpec(spec)), journal_(index_->type(), spec) {}

std::unique_ptr<JournaledIndex> JournaledIndex::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                          const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, mipsIndexTypes(), expectedType, "MIPS index");
  std::unique_ptr<JournaledIndex> restored;
  replayJournal(
      bytes, length, type,
      [&](const Json& options) {
        restored = std::make_unique<JournaledIndex>(options);
        require(restored->index().type() == type, ErrorCode::CorruptState, "saved options are of another index type");
      },
      [&](std::uint8_t operation, StateReader& in) {
        switch (operation) {
          case kAdd: {
            const auto ids = in.u32s();
            const auto vectors = in.f32s();
            restored->add(ids.data(), ids.size(), vectors.data(), vectors.size());
            break;
          }
          case kRemove: {
            const auto ids = in.u32s();
            restored->remove(ids.data(), ids.size());
            break;
          }
          case kSearch: {
            const auto query = in.f32s();
            const std::uint64_t k = in.u64();
            SearchOptions options;
            options.shortlist = static_cast<std::size_t>(in.u64());
            restored->search(query.data(), query.size(), static_cast<std::size_t>(k), options);
            break;
          }
          default:
            fail(ErrorCode::CorruptState, "unknown operation " + std::to_string(operation));
        }
      });
  return restored;
}

void JournaledIndex::add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength) {
  requireMagnitude(vectors, vectorLength, "vectors");
  index_->add(ids, idCount, vectors, vectorLength);
  StateWriter& out = journal_.record(kAdd);
  out.u32s(ids, idCount);
  out.f32s(vectors, vectorLength);
}

void JournaledIndex::remove(const Id* ids, std::size_t idCount) {
  index_->remove(ids, idCount);
  journal_.record(kRemove).u32s(ids, idCount);
}

SearchResult JournaledIndex::search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options) {
  requireMagnitude(query, queryLength, "query");
  SearchResult result = index_->search(query, queryLength, k, options);
  StateWriter& out = journal_.record(kSearch);
  out.f32s(query, queryLength);
  out.u64(k);
  out.u64(options.shortlist);
  return result;
}

}  // namespace sublinear
