#include "sublinear/mips/mips_index.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>

#include "sublinear/core/error.hpp"
#include "sublinear/core/id.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/mips/inner_product.hpp"
#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/quantised_rows.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

namespace {
// `first`: where values[0] lies in the whole array the message names.
void requireFinite(const float* values, std::size_t count, const char* what, std::size_t first = 0) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) {
      fail(ErrorCode::NonFinite, std::string(what) + " has a non-finite entry at position " + std::to_string(first + i));
    }
  }
}

// A query padded for the store's rows (queryStride() floats): on the stack for rows of up to
// kStackFloats floats, so that a search of short rows allocates nothing for it (a search may run
// inside another index's search, AdaptiveIndex's, so the buffer cannot be shared), on the heap beyond.
class PaddedQuery {
 public:
  PaddedQuery(const VectorStore& items, const float* query) {
    const std::size_t floats = items.queryStride();
    if (floats > kStackFloats) {
      heap_.resize(floats);
      data_ = heap_.data();
    }
    items.pad(query, data_);
  }
  PaddedQuery(const PaddedQuery&) = delete;
  PaddedQuery& operator=(const PaddedQuery&) = delete;
  const float* data() const { return data_; }

 private:
  static constexpr std::size_t kStackFloats = 256;
  alignas(16) float local_[kStackFloats];
  std::vector<float> heap_;
  float* data_ = local_;
};

// rankExactly's working buffers, one set per thread (a batch's searches rank on several threads at
// once): ranking calls nothing that ranks again, so one set a thread suffices. Kept between calls so
// that a search allocates nothing for its ranking; a ranking of more than kKeptCandidates ids (a
// long shortlist, a filtered scan's answer) gives its memory back afterwards.
struct RankingBuffers {
  static constexpr std::size_t kKeptCandidates = 4096;
  std::vector<const float*> rows;
  std::vector<float> knownScores;
  std::vector<std::pair<const float*, Id>> pending;
  TopK best;
  void release() {
    rows = {};
    knownScores = {};
    pending = {};
    best.release();
  }
};
thread_local RankingBuffers rankingBuffers;

std::size_t checkedDimension(std::size_t dim) {
  require(dim >= 1 && dim <= kMaxDimension, ErrorCode::InvalidArgument, "dim must be an integer in [1, 1000000]");
  return dim;
}
}  // namespace

VectorStorage storageOption(const OptionGroup& group, const Json& options) {
  return readStringOption(group, options, "storage") == "int8" ? VectorStorage::Int8 : VectorStorage::Float32;
}

MipsIndex::MipsIndex(std::size_t dim, VectorStorage storage) : items_(checkedDimension(dim), storage) {
  require(storage != VectorStorage::Int8 || dim <= quantised::kMaxDimension, ErrorCode::InvalidArgument,
          "storage 'int8' takes at most 65536 dimensions");
}

void MipsIndex::add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength) {
  add(ids, idCount, vectors, vectorLength, nullptr, idCount);
}

void MipsIndex::add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength, const Label* labels,
                    std::size_t labelCount) {
  if (labels != nullptr && labelCount != idCount) {
    fail(ErrorCode::DimensionMismatch, "expected one label per id (" + std::to_string(idCount) + "), got " + std::to_string(labelCount));
  }
  add(ids, idCount, vectors, vectorLength, ItemAttributes::withLabels(labels, idCount));
}

void MipsIndex::add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength, const ItemAttributes& attributes) {
  add(ids, idCount, FloatsInMemory(vectors, vectorLength), attributes);
}

void MipsIndex::add(const Id* ids, std::size_t idCount, const FloatSource& vectors, const ItemAttributes& attributes) {
  const std::size_t vectorLength = vectors.length();
  if (vectorLength != idCount * dim()) {
    fail(ErrorCode::DimensionMismatch, "expected " + std::to_string(idCount) + " x " + std::to_string(dim()) +
                                           " = " + std::to_string(idCount * dim()) + " vector entries, got " +
                                           std::to_string(vectorLength));
  }
  if (attributes.size() != idCount) {
    fail(ErrorCode::DimensionMismatch, "expected the attributes of " + std::to_string(idCount) + " items, got " + std::to_string(attributes.size()));
  }
  attributes_.checkColumns(attributes);
  forEachPiece(vectors, dim(), [](const float* piece, std::size_t first, std::size_t count) { requireFinite(piece, count, "vectors", first); });
  const std::size_t repeat = firstRepeatedId(ids, idCount);
  for (std::size_t i = 0; i < idCount; ++i) {
    if (items_.contains(ids[i])) fail(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " is already in the index");
    if (i == repeat) fail(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " appears twice in the batch");
  }
  items_.reserve(items_.size() + idCount);
  attributes_.reserve(items_.size() + idCount);
  std::size_t added = 0;
  try {
    // Every piece holds whole rows (forEachPiece; dim() >= 1).
    forEachPiece(vectors, dim(), [&](const float* piece, std::size_t, std::size_t count) {
      for (std::size_t at = 0; at < count; at += dim(), ++added) {
        items_.add(ids[added], piece + at);
        try {
          attributes_.appendRowOf(attributes, added);
        } catch (...) {
          items_.remove(ids[added]);
          throw;
        }
      }
    });
    onAdd(ids, idCount);
  } catch (...) {
    // Keep the store, the attributes and the structure in step if the items could not all be taken.
    for (std::size_t i = 0; i < added; ++i) removeItem(ids[i]);
    throw;
  }
}

void MipsIndex::checkStored(const Id* ids, std::size_t idCount) const {
  const std::size_t repeat = firstRepeatedId(ids, idCount);
  for (std::size_t i = 0; i < idCount; ++i) {
    if (!items_.contains(ids[i])) fail(ErrorCode::UnknownId, "id " + std::to_string(ids[i]) + " is not in the index");
    if (i == repeat) fail(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " appears twice in the batch");
  }
}

void MipsIndex::checkChanges(const Id* ids, std::size_t idCount, const ItemAttributes& batch) const {
  if (batch.size() != idCount) {
    fail(ErrorCode::DimensionMismatch, "expected the attributes of " + std::to_string(idCount) + " items, got " + std::to_string(batch.size()));
  }
  checkStored(ids, idCount);
  attributes_.checkColumns(batch);
}

void MipsIndex::setFeatures(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength) {
  if (vectorLength != idCount * dim()) {
    fail(ErrorCode::DimensionMismatch, "expected " + std::to_string(idCount) + " x " + std::to_string(dim()) +
                                           " = " + std::to_string(idCount * dim()) + " vector entries, got " +
                                           std::to_string(vectorLength));
  }
  requireFinite(vectors, vectorLength, "vectors");
  checkStored(ids, idCount);
  // Every structure indexes an item by its vector (a graph's links, a hash's buckets, a tree's
  // cells), so a changed item leaves the structure and comes back as a new one with its attributes:
  // an incremental graph scans it exactly until a later search's slice links it again, so no call
  // waits for the graph. The old vectors are kept to put the items back if the new ones cannot be
  // taken (out of memory), so that a failed call changes nothing.
  ItemAttributes kept;
  kept.reserve(idCount);
  std::vector<float> old(idCount * dim());
  for (std::size_t i = 0; i < idCount; ++i) {
    const std::size_t row = items_.rowOf(ids[i]);
    kept.appendRowOf(attributes_, row);
    items_.decode(row, old.data() + i * dim());
  }
  remove(ids, idCount);
  try {
    add(ids, idCount, vectors, vectorLength, kept);
  } catch (...) {
    add(ids, idCount, old.data(), old.size(), kept);
    throw;
  }
}

void MipsIndex::setLabels(const Id* ids, std::size_t idCount, const ItemAttributes& labels) {
  checkChanges(ids, idCount, labels);
  for (std::size_t i = 0; i < idCount; ++i) attributes_.setLabels(items_.rowOf(ids[i]), labels, i);
  onLabelsChanged(ids, idCount);
}

void MipsIndex::setValues(const Id* ids, std::size_t idCount, const ItemAttributes& values) {
  checkChanges(ids, idCount, values);
  for (std::size_t i = 0; i < idCount; ++i) attributes_.setValues(items_.rowOf(ids[i]), values, i);
  onValuesChanged(ids, idCount);
}

void MipsIndex::remove(const Id* ids, std::size_t idCount) {
  checkStored(ids, idCount);
  onRemove(ids, idCount);
  for (std::size_t i = 0; i < idCount; ++i) removeItem(ids[i]);
}

void MipsIndex::removeItem(Id id) {
  attributes_.removeRow(items_.rowOf(id));
  items_.remove(id);
}

void MipsIndex::swapRows(std::size_t a, std::size_t b) {
  items_.swapRows(a, b);
  attributes_.swapRows(a, b);
}

Eligibility MipsIndex::eligibility(const SearchOptions& options) const {
  return Eligibility(items_, attributes_, options.exclude, options);
}

const Eligibility& MipsIndex::eligibility(const SearchOptions& options, std::optional<Eligibility>& built) const {
  std::optional<Eligibility>& slot = options.keptEligibility != nullptr ? *options.keptEligibility : built;
  if (!slot) slot.emplace(eligibility(options));
  return *slot;
}

void MipsIndex::checkQuery(const float* query, std::size_t queryLength, std::size_t k) const {
  if (queryLength != dim()) {
    fail(ErrorCode::DimensionMismatch, "query has " + std::to_string(queryLength) + " entries, the index has dim " + std::to_string(dim()));
  }
  requireFinite(query, queryLength, "query");
  require(k >= 1, ErrorCode::InvalidArgument, "k must be a positive integer");
}

SearchResult MipsIndex::search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options) {
  SearchResult result;
  search(query, queryLength, k, options, result);
  return result;
}

void MipsIndex::collectCandidates(const float* paddedQuery, std::size_t count, std::vector<Id>& ids) {
  const std::vector<Id> found = candidates(paddedQuery, count);
  ids.assign(found.begin(), found.end());
}

void MipsIndex::search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options, SearchResult& out) {
  checkQuery(query, queryLength, k);
  ++searches_;
  out.ids.clear();
  out.scores.clear();
  if (items_.size() == 0) return;
  const PaddedQuery padded(items_, query);
  const auto searchAll = [&] {
    const std::size_t retrieve = std::min(items_.size(), std::max(k, options.shortlist));
    // The candidates go into the answer's own ids, which rankExactly reads before it writes the answer.
    std::vector<Id>& ids = out.ids;
    collectCandidates(padded.data(), retrieve, ids);
    for (const Id id : options.alsoRank) {
      if (items_.contains(id) && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    rankExactly(padded.data(), ids, k, out);
  };
  // Without conditions or exclusions nothing is ineligible: no Eligibility to build.
  if (!options.filtersAnything()) return searchAll();
  std::optional<Eligibility> built;
  const Eligibility& eligible = eligibility(options, built);
  if (!eligible.filters()) return searchAll();
  if (eligible.count() == 0) return;
  const std::size_t retrieve = std::min(eligible.count(), std::max(k, options.shortlist));
  const auto admits = [&](Id id) { return eligible.admitsRow(items_.rowOf(id)); };
  std::vector<Id> ids = filteredCandidates(padded.data(), retrieve, eligible);
  // Whatever an index proposes, only eligible items are answered; an approximate index that found
  // too few is replaced by the exact answer over the eligible items.
  ids.erase(std::remove_if(ids.begin(), ids.end(), [&](Id id) { return !admits(id); }), ids.end());
  if (ids.size() < std::min(k, eligible.count())) ids = scanEligible(padded.data(), retrieve, eligible);
  for (const Id id : options.alsoRank) {
    if (items_.contains(id) && admits(id) && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  rankExactly(padded.data(), ids, k, out);
}

BatchSearchResult MipsIndex::searchBatch(const float* queries, std::size_t queryLength, std::size_t queryCount, std::size_t k,
                                         const SearchOptions& options) {
  require(k >= 1, ErrorCode::InvalidArgument, "k must be a positive integer");
  if (queryCount > kMaxBatchQueries) {
    fail(ErrorCode::InvalidArgument, "a batch takes at most " + std::to_string(kMaxBatchQueries) + " queries, got " + std::to_string(queryCount));
  }
  // A filtered search answers at most min(k, eligible count), any search at most min(k, size()).
  BatchSearchResult batch;
  batch.stride = std::min(k, items_.size());
  if (queryCount * batch.stride > kMaxBatchAnswers) {
    fail(ErrorCode::InvalidArgument, "a batch answers at most " + std::to_string(kMaxBatchAnswers) + " ids (queries x min(k, size)), asked for " +
                                         std::to_string(queryCount) + " x " + std::to_string(batch.stride));
  }
  if (queryLength != queryCount * dim()) {
    fail(ErrorCode::DimensionMismatch, "expected " + std::to_string(queryCount) + " x " + std::to_string(dim()) + " = " +
                                           std::to_string(queryCount * dim()) + " query entries, got " + std::to_string(queryLength));
  }
  for (std::size_t i = 0; i < queryLength; ++i) {
    if (!std::isfinite(queries[i])) {
      fail(ErrorCode::NonFinite, "query " + std::to_string(i / dim()) + " has a non-finite entry at position " + std::to_string(i % dim()));
    }
  }
  batch.ids.assign(queryCount * batch.stride, 0);
  batch.scores.assign(queryCount * batch.stride, std::numeric_limits<float>::quiet_NaN());
  batch.counts.assign(queryCount, 0);
  // A kept eligibility keeps rows on its first walk (mutable state): the batch's threads would share
  // it, so each query builds its own.
  SearchOptions each = options;
  each.keptEligibility = nullptr;
  // Each thread answers into one SearchResult of its own, reused query after query.
  const auto answer = [&](std::size_t q, SearchResult& result) {
    search(queries + q * dim(), dim(), k, each, result);
    std::copy(result.ids.begin(), result.ids.end(), batch.ids.begin() + static_cast<std::ptrdiff_t>(q * batch.stride));
    std::copy(result.scores.begin(), result.scores.end(), batch.scores.begin() + static_cast<std::ptrdiff_t>(q * batch.stride));
    batch.counts[q] = static_cast<std::uint32_t>(result.ids.size());
  };
  if (parallelism() > 1 && queryCount > 1 && searchesConcurrently(each)) {
    prepareConcurrentSearches();
    // Queries one at a time from a shared counter: a thread that wakes late takes fewer. Each answer
    // goes to its own slots, so the batch is the same whatever thread answered which query.
    std::atomic<std::size_t> next{0};
    runInParallel(parallelism(), [&] {
      runSearchThread([&] {
        SearchResult result;
        for (std::size_t q = next++; q < queryCount; q = next++) answer(q, result);
      });
    });
  } else {
    SearchResult result;
    for (std::size_t q = 0; q < queryCount; ++q) answer(q, result);
  }
  return batch;
}

SearchResult MipsIndex::searchExactly(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options) {
  return std::move(searchExactlyEach({query}, queryLength, k, options).front());
}

std::vector<SearchResult> MipsIndex::searchExactlyEach(const std::vector<const float*>& queries, std::size_t queryLength, std::size_t k,
                                                       const SearchOptions& options) {
  for (const float* query : queries) checkQuery(query, queryLength, k);
  std::vector<SearchResult> results(queries.size());
  if (items_.size() == 0 || queries.empty()) return results;
  std::optional<Eligibility> built;
  const Eligibility& eligible = eligibility(options, built);
  if (eligible.count() == 0) return results;
  std::vector<std::vector<float>> padded(queries.size(), std::vector<float>(items_.queryStride()));
  std::vector<const float*> paddedQueries(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    items_.pad(queries[q], padded[q].data());
    paddedQueries[q] = padded[q].data();
  }
  std::vector<std::vector<Id>> best;
  if (eligible.filters()) {
    best = scanEligibleEach(paddedQueries, std::min(k, eligible.count()), eligible);
  } else {
    for (const float* query : paddedQueries) best.push_back(scan(query, std::min(k, items_.size())));
  }
  // The scans counted every row they read; ranking their answers again only restores the order and scores.
  for (std::size_t q = 0; q < queries.size(); ++q) rankExactly(paddedQueries[q], best[q], k, results[q]);
  return results;
}

SearchResult MipsIndex::searchRowsExactly(const float* query, std::size_t queryLength, std::size_t k, std::size_t firstRow,
                                          std::size_t lastRow, const SearchOptions& options) {
  checkQuery(query, queryLength, k);
  lastRow = std::min(lastRow, items_.size());
  if (firstRow >= lastRow) return {};
  std::vector<float> padded(items_.queryStride());
  items_.pad(query, padded.data());
  const Eligibility eligible = eligibility(options);
  SearchResult result;
  if (eligible.count() == 0) return result;
  // The scan's kernel over the range, eligibility asked only of rows that would enter the top (as
  // scanEligible's streaming path); its scores are the bits rankExactly would compute.
  TopK best(k);
  if (eligible.filters()) {
    scanRows(padded.data(), firstRow, lastRow, best, [&](std::size_t row) { return eligible.admitsRow(row); });
  } else {
    scanRows(padded.data(), firstRow, lastRow, best);
  }
  countInnerProducts(static_cast<double>(lastRow - firstRow));
  scannedInnerProducts_ += lastRow - firstRow;
  for (const auto& [score, id] : best.take()) {
    result.ids.push_back(id);
    result.scores.push_back(score);
  }
  return result;
}

std::vector<Id> MipsIndex::filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) {
  const double n = static_cast<double>(items_.size());
  const double m = static_cast<double>(eligible.count());
  const double widened = std::ceil(static_cast<double>(count) * n / m);
  // What the widened search costs, in inner products: at least ranking its candidates, and the
  // index's own work per search so far (its counters) times the widening, which candidates() of a
  // sampling or bucketing method grows with. The exact scan of the eligible items wins below that.
  const double perSearch = searches_ > 1 ? static_cast<double>(innerProducts_) / static_cast<double>(searches_) : 0.0;
  const double widenedCost = std::max(widened, perSearch * n / m);
  if (m <= widened || eligibleScanRows(eligible) <= widenedCost) return scanEligible(paddedQuery, count, eligible);
  std::vector<Id> ids = candidates(paddedQuery, static_cast<std::size_t>(std::min(n, widened)));
  // The base class drops the ineligible ones.
  return ids;
}

std::vector<Id> MipsIndex::scan(const float* paddedQuery, std::size_t count, std::size_t firstRow) {
  TopK best(count);
  const std::size_t rows = items_.size();
  if (shareScans_ && (rows - firstRow) * items_.stride() >= kParallelScanFloats && parallelism() > 1) {
    // Each thread keeps its own top `count` of the grains it takes; the union's top is the answer.
    constexpr std::size_t kGrain = 16384;
    std::atomic<std::size_t> next{firstRow};
    std::mutex merging;
    runInParallel(parallelism(), [&] {
      TopK mine(count);
      for (std::size_t first = next.fetch_add(kGrain); first < rows; first = next.fetch_add(kGrain)) {
        scanRows(paddedQuery, first, std::min(rows, first + kGrain), mine);
      }
      const std::lock_guard<std::mutex> lock(merging);
      for (const auto& [score, id] : mine.take()) best.push(score, id);
    });
  } else {
    scanRows(paddedQuery, firstRow, rows, best);
  }
  countInnerProducts(static_cast<double>(rows - firstRow));
  scannedInnerProducts_ += rows - firstRow;
  std::vector<Id> ids;
  ids.reserve(count);
  for (const auto& entry : best.take()) ids.push_back(entry.second);
  return ids;
}

void MipsIndex::scanRows(const float* paddedQuery, std::size_t first, std::size_t last, TopK& best) const {
  scanRows(paddedQuery, first, last, best, [](std::size_t) { return true; });
}

template <class Admits>
void MipsIndex::scanRows(const float* paddedQuery, std::size_t first, std::size_t last, TopK& best, const Admits& admits) const {
  if (items_.quantised()) {
    // Codes stream at a quarter of the floats' bytes; a row at a time (codeInnerProduct).
    for (std::size_t row = first; row < last; ++row) {
      const float score = items_.score(row, paddedQuery);
      if (best.admits(score) && admits(row)) best.push(score, items_.idAt(row));
    }
    return;
  }
  const std::size_t stride = items_.stride();
  // Four rows per step (bit-identical to innerProduct per row, see lane_kernels.hpp): the scan is
  // bound by memory, and this keeps the query in registers and the loop free of calls. Long rows
  // are read one at a time (kInterleavedRowsMaxStride).
  // The store's rows are contiguous within a block: the kernel runs over each block's stretch.
  const bool interleave = stride <= lanes::kInterleavedRowsMaxStride;
  float scores[4];
  for (std::size_t row = first; row < last;) {
    const std::size_t end = std::min(last, row + items_.contiguousRows(row));
    const float* data = items_.rowData(row);
    for (; interleave && row + 4 <= end; row += 4, data += 4 * stride) {
      lanes::innerProducts4(data, paddedQuery, stride, scores);
      for (std::size_t r = 0; r < 4; ++r) {
        if (best.admits(scores[r]) && admits(row + r)) best.push(scores[r], items_.idAt(row + r));
      }
    }
    for (; row < end; ++row, data += stride) {
      const float score = lanes::innerProduct(data, paddedQuery, stride);
      if (best.admits(score) && admits(row)) best.push(score, items_.idAt(row));
    }
  }
}

void MipsIndex::scoreRows(const float* paddedQuery, const std::uint32_t* rows, std::size_t count, TopK& best) const {
  float scores[4];
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const float* four[4] = {items_.rowData(rows[i]), items_.rowData(rows[i + 1]), items_.rowData(rows[i + 2]), items_.rowData(rows[i + 3])};
    items_.scoreRows4(four, paddedQuery, scores);
    for (std::size_t r = 0; r < 4; ++r) {
      if (best.admits(scores[r])) best.push(scores[r], items_.idAt(rows[i + r]));
    }
  }
  for (; i < count; ++i) {
    const float score = items_.score(rows[i], paddedQuery);
    if (best.admits(score)) best.push(score, items_.idAt(rows[i]));
  }
}

double MipsIndex::eligibleScanRows(const Eligibility& eligible, std::size_t firstRow) const {
  const double rows = static_cast<double>(items_.size() - firstRow);
  if (!eligible.walksPostings()) return rows;
  return std::min(rows, kGatheredRowCost * static_cast<double>(eligible.postedRows()));
}

std::vector<Id> MipsIndex::scanEligible(const float* paddedQuery, std::size_t count, const Eligibility& eligible, std::size_t firstRow) {
  return std::move(scanEligibleEach({paddedQuery}, count, eligible, firstRow).front());
}

std::vector<std::vector<Id>> MipsIndex::scanEligibleEach(const std::vector<const float*>& paddedQueries, std::size_t count,
                                                         const Eligibility& eligible, std::size_t firstRow) {
  const std::size_t n = items_.size();
  const std::size_t queries = paddedQueries.size();
  std::size_t scored = 0;
  std::vector<std::vector<Id>> ids(queries);
  if (static_cast<double>(n - firstRow) <= eligibleScanRows(eligible, firstRow)) {
    // Every row in memory order, with the exhaustive scan's kernel, and eligibility checked only for
    // the few rows whose score would enter the top: a scan of the whole store costs the same whatever
    // the filter (checking each row's label first made a scan at 50% eligible several times slower
    // in wasm: a branch that cannot be predicted, and a kernel fed rows one by one;
    // bench/results/design-measurements.md). A stream, so one pass a query.
    const auto admits = [&](std::size_t row) { return eligible.admitsRow(row); };
    for (std::size_t q = 0; q < queries; ++q) {
      TopK best(count);
      scanRows(paddedQueries[q], firstRow, n, best, admits);
      scored += n - firstRow;
      for (const auto& entry : best.take()) ids[q].push_back(entry.second);
    }
  } else {
    // Few eligible items: their rows from the filter's posting lists. A few excluded items (a
    // page's shown ones) cost nothing per row: keep that many more of the best and drop them at the
    // end. Many are marked per row instead.
    const std::vector<std::uint32_t>& excluded = eligible.excludedRows();
    constexpr std::size_t kWidenedExclusions = 4096;
    const bool widen = excluded.size() <= kWidenedExclusions;
    std::vector<std::uint8_t> marked;
    if (!widen) {
      marked.assign(n, 0);
      for (const std::uint32_t row : excluded) marked[row] = 1;
    }
    std::vector<TopK> best(queries, TopK(count + (widen ? excluded.size() : 0)));
    // Rows go to the kernel in batches, four at a time; every query scores a batch while its rows
    // are in cache (rows of a posting list lie far apart: each is a miss the first time).
    constexpr std::size_t kBatch = 256;
    std::uint32_t batch[kBatch];
    std::size_t pending = 0;
    const auto scoreBatch = [&] {
      for (std::size_t q = 0; q < queries; ++q) scoreRows(paddedQueries[q], batch, pending, best[q]);
      scored += pending * queries;
      pending = 0;
    };
    eligible.forEachPostedRow(firstRow, [&](std::size_t row) {
      if (!widen && marked[row]) return;
      batch[pending++] = static_cast<std::uint32_t>(row);
      if (pending == kBatch) scoreBatch();
    });
    scoreBatch();
    for (std::size_t q = 0; q < queries; ++q) {
      for (const auto& entry : best[q].take()) {
        if (ids[q].size() == count) break;
        if (widen && eligible.excludesId(entry.second)) continue;
        ids[q].push_back(entry.second);
      }
    }
  }
  countInnerProducts(static_cast<double>(scored));
  scannedInnerProducts_ += scored;
  return ids;
}

SearchResult MipsIndex::rankExactly(const float* paddedQuery, const std::vector<Id>& ids, std::size_t k) {
  SearchResult result;
  rankExactly(paddedQuery, ids, k, result);
  return result;
}

void MipsIndex::rankExactly(const float* paddedQuery, const std::vector<Id>& ids, std::size_t k, SearchResult& out) {
  RankingBuffers& buffers = rankingBuffers;
  const std::size_t count = ids.size();
  buffers.rows.resize(count);
  buffers.knownScores.resize(count);
  candidateRows(ids, buffers.rows.data(), buffers.knownScores.data());
  TopK& best = buffers.best;
  best.reset(k);
  // Candidates whose scores the index's search computed already (a float graph's beam: rows[i] is
  // null) are taken as they are; the rest are scored here. `ids` may be out.ids: everything is read
  // from it before the answer is written.
  auto& pending = buffers.pending;
  pending.clear();
  for (std::size_t i = 0; i < count; ++i) {
    if (buffers.rows[i] == nullptr) {
      best.push(buffers.knownScores[i], ids[i]);
    } else {
      pending.emplace_back(buffers.rows[i], ids[i]);
    }
  }
  // Four rows at a time with innerProduct's bits (VectorStore::scoreRows4), over the candidates'
  // rows in memory order, wherever candidateRows finds them. Long rows too while the candidates are
  // a few scattered rows (a search's beam): each is a random access anyway, and four chains of
  // additions beat one (Fashion-MNIST's graph searches ranking beams of 192 to 384 took 0.86x to
  // 0.90x the time). Many candidates in memory order are a stream, which four interleaved long rows
  // read slower in wasm (kInterleavedRowsMaxStride): those go one at a time, as the scan's.
  std::sort(pending.begin(), pending.end());
  const bool interleave = items_.stride() <= lanes::kInterleavedRowsMaxStride || count * kScatteredCandidates <= items_.size();
  float scores[4];
  std::size_t i = 0;
  for (; interleave && i + 4 <= pending.size(); i += 4) {
    const float* four[4] = {pending[i].first, pending[i + 1].first, pending[i + 2].first, pending[i + 3].first};
    items_.scoreRows4(four, paddedQuery, scores);
    for (std::size_t r = 0; r < 4; ++r) best.push(scores[r], pending[i + r].second);
  }
  for (; i < pending.size(); ++i) best.push(items_.scoreRow(pending[i].first, paddedQuery), pending[i].second);
  countInnerProducts(static_cast<double>(count));
  const auto& ranked = best.sorted();
  out.ids.resize(ranked.size());
  out.scores.resize(ranked.size());
  for (std::size_t r = 0; r < ranked.size(); ++r) {
    out.ids[r] = ranked[r].second;
    out.scores[r] = ranked[r].first;
  }
  if (count > RankingBuffers::kKeptCandidates) buffers.release();
}

void MipsIndex::candidateRows(const std::vector<Id>& ids, const float** rows, float* /*scores*/) const {
  for (std::size_t i = 0; i < ids.size(); ++i) rows[i] = items_.vectorOf(ids[i]);
}

void MipsIndex::save(StateWriter& out) const {
  out.u64(items_.size());
  for (std::size_t row = 0; row < items_.size(); ++row) {
    out.u32(items_.idAt(row));
    if (items_.quantised()) {
      // Int8 storage: the scale and the codes themselves (decoding and encoding again could move a
      // scale by a rounding, and with it every code).
      out.f32(items_.scaleAt(row));
      const std::int8_t* codes = items_.codesAt(row);
      for (std::size_t i = 0; i < dim(); ++i) out.u8(static_cast<std::uint8_t>(codes[i]));
      continue;
    }
    const float* vector = items_.rowData(row);
    for (std::size_t i = 0; i < dim(); ++i) out.f32(vector[i]);
  }
  // The items' attributes in row order (labels since format 4, several labels and values since 5).
  attributes_.save(out);
  out.u64(innerProducts_);
  out.u64(searches_);
  saveStructure(out);
}

void MipsIndex::load(StateReader& in) {
  in.check(items_.size() == 0, "an index can only be restored into an empty one");
  if (items_.quantised()) {
    loadCodes(in);
  } else {
    loadFloats(in);
  }
  const std::size_t count = items_.size();
  attributes_.load(in, count);
  innerProducts_ = in.u64();
  searches_ = in.u64();
  loadStructure(in);
}

void MipsIndex::loadCodes(StateReader& in) {
  const std::size_t count = in.count(sizeof(Id) + sizeof(float) + dim());
  items_.reserve(count);
  std::vector<std::int8_t> codes(count > 0 ? quantised::codeBytes(dim()) : 0, 0);
  for (std::size_t row = 0; row < count; ++row) {
    const Id id = in.u32();
    in.check(!items_.contains(id), "item id " + std::to_string(id) + " is stored twice");
    const float scale = in.f32();
    in.check(std::isfinite(scale) && scale >= 0.0f, "an item's scale is not a finite nonnegative number");
    for (std::size_t i = 0; i < dim(); ++i) {
      codes[i] = static_cast<std::int8_t>(in.u8());
      in.check(codes[i] >= -quantised::kLargestCode, "an item code is out of range");
    }
    items_.addEncoded(id, codes.data(), scale);
  }
}

void MipsIndex::loadFloats(StateReader& in) {
  const std::size_t count = in.count(sizeof(Id) + dim() * sizeof(float));
  items_.reserve(count);
  // Only with items: an empty index saved with dim 10^6 (64 times over in an AdaptiveIndex) must not
  // allocate and clear a row per copy for nothing.
  std::vector<float> vector(count > 0 ? dim() : 0);
  for (std::size_t row = 0; row < count; ++row) {
    const Id id = in.u32();
    in.check(!items_.contains(id), "item id " + std::to_string(id) + " is stored twice");
    for (auto& value : vector) {
      value = in.f32();
      // Only finite: indexes inside policies hold products of features (Sub-Elim's lifts), beyond
      // the 1e15 a user's vectors are held to (addUserItems checks that).
      in.check(std::isfinite(value), "an item vector has an entry that is not finite");
    }
    items_.add(id, vector.data());
  }
}

Json MipsIndex::stats() const {
  return Json{{"innerProducts", innerProducts_.load()},
              {"searches", searches_.load()},
              {"size", items_.size()},
              {"type", type()},
              {"storage", items_.quantised() ? "int8" : "f32"},
              {"vectorBytesPerItem", vectorBytesPerItem()}};
}

}  // namespace sublinear
