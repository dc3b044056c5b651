#include <emscripten/bind.h>

#include <memory>

#include "attribute_arguments.hpp"
#include "guard.hpp"
#include "persistent_binding.hpp"
#include "typed_array_source.hpp"
#include "sublinear/mips/persistent_index.hpp"

namespace sublinear::bindings {

namespace {
// One JS index object: the index and the buffers of its last search, which JS copies out.
struct IndexHandle {
  explicit IndexHandle(PersistentIndex index) : object(std::move(index)) {}
  PersistentIndex object;
  SearchResult last;
  // Where JS finds the last search's answer: its length and the addresses of its ids and scores.
  // search() returns this block's address, so that reading the answer takes no further call into
  // the module (in a loop of small searches the calls and their views cost as much as the search).
  std::uint32_t lastView[3] = {0, 0, 0};
  // The last searchBatch's answers, held only until JS has copied them (releaseBatch), and where
  // JS finds them: query count, stride, the addresses of ids, scores and counts.
  BatchSearchResult batch;
  std::uint32_t batchView[5] = {0, 0, 0, 0, 0};
};

// The vectors: `vectorLength` floats at `vectors` on the heap, or, when `vectors` is 0, the
// Float32Array `array` (a large batch, which JS leaves where it is).
void indexAdd(IndexHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t vectors, std::size_t vectorLength,
              emscripten::val array) {
  if (vectors == 0 && vectorLength > 0) {
    addUserItems(*self.object, fromAddress<const Id>(ids), idCount, TypedArraySource<float>(std::move(array)),
                 ItemAttributes::withLabels(nullptr, idCount));
    return;
  }
  addUserItems(*self.object, fromAddress<const Id>(ids), idCount, fromAddress<const float>(vectors), vectorLength);
}

// The attributes as attributeBatch reads them; the vectors as indexAdd takes them.
void indexAddWithAttributes(IndexHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t vectors,
                            std::size_t vectorLength, emscripten::val array, int labelForm, std::uintptr_t labels,
                            std::size_t labelCount, std::uintptr_t counts, const std::string& valueNames, std::uintptr_t values,
                            std::size_t valueCount) {
  const ItemAttributes attributes = attributeBatch(idCount, labelForm, labels, labelCount, counts, valueNames, values, valueCount);
  if (vectors == 0 && vectorLength > 0) {
    addUserItems(*self.object, fromAddress<const Id>(ids), idCount, TypedArraySource<float>(std::move(array)), attributes);
    return;
  }
  addUserItems(*self.object, fromAddress<const Id>(ids), idCount, fromAddress<const float>(vectors), vectorLength, attributes);
}

void indexSetLabels(IndexHandle& self, std::uintptr_t ids, std::size_t idCount, int labelForm, std::uintptr_t labels,
                    std::size_t labelCount, std::uintptr_t counts) {
  self.object->setLabels(fromAddress<const Id>(ids), idCount, attributeBatch(idCount, labelForm, labels, labelCount, counts, "", 0, 0));
}

void indexSetValues(IndexHandle& self, std::uintptr_t ids, std::size_t idCount, const std::string& valueNames,
                    std::uintptr_t values, std::size_t valueCount) {
  self.object->setValues(fromAddress<const Id>(ids), idCount, attributeBatch(idCount, 0, 0, 0, 0, valueNames, values, valueCount));
}

void indexSetFeatures(IndexHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t vectors, std::size_t vectorLength) {
  setUserFeatures(*self.object, fromAddress<const Id>(ids), idCount, fromAddress<const float>(vectors), vectorLength);
}

void indexRemove(IndexHandle& self, std::uintptr_t ids, std::size_t idCount) {
  self.object->remove(fromAddress<const Id>(ids), idCount);
}

std::uintptr_t indexSearch(IndexHandle& self, std::uintptr_t query, std::size_t queryLength, double k, double shortlist,
                        std::uintptr_t exclude, std::size_t excludeCount, std::uintptr_t labels, std::size_t labelCount,
                        const std::string& conditions) {
  require(k >= 1 && k <= kMaxUint32 && shortlist >= 0 && shortlist <= kMaxUint32, ErrorCode::InvalidArgument,
          "k must be a positive integer and shortlist a non-negative integer");
  SearchOptions options;
  options.shortlist = static_cast<std::size_t>(shortlist);
  const Id* excluded = fromAddress<const Id>(exclude);
  options.exclude.assign(excluded, excluded + excludeCount);
  readConditions(labels, labelCount, conditions, options);
  // Into the last answer's vectors, whose capacity a loop of searches reuses.
  searchForUser(*self.object, fromAddress<const float>(query), queryLength, static_cast<std::size_t>(k), options, self.last);
  self.lastView[0] = static_cast<std::uint32_t>(self.last.ids.size());
  self.lastView[1] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(self.last.ids.data()));
  self.lastView[2] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(self.last.scores.data()));
  return reinterpret_cast<std::uintptr_t>(self.lastView);
}

std::uintptr_t indexSearchBatch(IndexHandle& self, std::uintptr_t queries, std::size_t queryLength, double queryCount, double k,
                                double shortlist, std::uintptr_t exclude, std::size_t excludeCount, std::uintptr_t labels,
                                std::size_t labelCount, const std::string& conditions) {
  require(k >= 1 && k <= kMaxUint32 && shortlist >= 0 && shortlist <= kMaxUint32 && queryCount >= 0 && queryCount <= kMaxUint32,
          ErrorCode::InvalidArgument, "k must be a positive integer, shortlist and the query count non-negative integers");
  SearchOptions options;
  options.shortlist = static_cast<std::size_t>(shortlist);
  const Id* excluded = fromAddress<const Id>(exclude);
  options.exclude.assign(excluded, excluded + excludeCount);
  readConditions(labels, labelCount, conditions, options);
  self.batch = searchBatchForUser(*self.object, fromAddress<const float>(queries), queryLength, static_cast<std::size_t>(queryCount),
                                  static_cast<std::size_t>(k), options);
  const auto address = [](const void* data) { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data)); };
  self.batchView[0] = static_cast<std::uint32_t>(self.batch.counts.size());
  self.batchView[1] = static_cast<std::uint32_t>(self.batch.stride);
  self.batchView[2] = address(self.batch.ids.data());
  self.batchView[3] = address(self.batch.scores.data());
  self.batchView[4] = address(self.batch.counts.data());
  return reinterpret_cast<std::uintptr_t>(self.batchView);
}

void indexReleaseBatch(IndexHandle& self) { self.batch = BatchSearchResult{}; }

std::size_t indexBuild(IndexHandle& self, double maxItems) {
  require(maxItems >= 0 && maxItems <= kMaxUint32, ErrorCode::InvalidArgument, "maxItems must be a non-negative integer");
  return self.object->build(static_cast<std::size_t>(maxItems));
}

std::size_t indexSize(IndexHandle& self) { return self.object->size(); }
std::size_t indexDim(IndexHandle& self) { return self.object->dim(); }
bool indexHas(IndexHandle& self, double id) { return id >= 0 && id <= kMaxUint32 && self.object->contains(static_cast<Id>(id)); }
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_mips) {
  using namespace sublinear::bindings;
  bindPersistent(emscripten::class_<IndexHandle>("MipsIndexHandle"))
      .function("add", guard<&indexAdd>)
      .function("addWithAttributes", guard<&indexAddWithAttributes>)
      .function("setLabels", guard<&indexSetLabels>)
      .function("setValues", guard<&indexSetValues>)
      .function("setFeatures", guard<&indexSetFeatures>)
      .function("remove", guard<&indexRemove>)
      .function("search", guard<&indexSearch>)
      .function("searchBatch", guard<&indexSearchBatch>)
      .function("releaseBatch", guard<&indexReleaseBatch>)
      .function("build", guard<&indexBuild>)
      .function("size", guard<&indexSize>)
      .function("dim", guard<&indexDim>)
      .function("has", guard<&indexHas>);
  emscripten::function("createMipsIndex", guard<&createHandle<IndexHandle>>, emscripten::allow_raw_pointers());
  emscripten::function("restoreMipsIndex", guard<&restoreHandle<IndexHandle>>, emscripten::allow_raw_pointers());
}
