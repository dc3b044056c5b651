#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sublinear/core/piece_source.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/mips/eligibility.hpp"
#include "sublinear/mips/item_attributes.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

class TopK;

constexpr std::size_t kMaxDimension = 1000000;
// Like the linear policies' features (ArmSet::kMaxMagnitude) and the JS layer's MAX_MAGNITUDE: with
// |x_i| <= 1e15 and dim <= 10^6 an inner product stays finite in float32 arithmetic.
constexpr double kMaxMagnitude = 1e15;

// The `storage` option ("f32" or "int8") of an index whose option group has one.
VectorStorage storageOption(const OptionGroup& group, const Json& options);

struct SearchResult {
  std::vector<Id> ids;   // best first
  std::vector<float> scores; // the exact inner products of those ids
};

// The answers of a batch of queries (MipsIndex::searchBatch), query after query: query q's answer
// is ids[q * stride ...] and scores[q * stride ...], counts[q] of them, best first, as search()
// answers it; the slots beyond counts[q] hold id 0 and score NaN.
struct BatchSearchResult {
  std::size_t stride = 0;
  std::vector<Id> ids;
  std::vector<float> scores;
  std::vector<std::uint32_t> counts;
};

// The most queries one searchBatch takes, and the most answer slots (queries x min(k, size)): 2^28
// slots are 2 GiB of ids and scores, half the wasm heap.
constexpr std::size_t kMaxBatchQueries = std::size_t{1} << 24;
constexpr std::size_t kMaxBatchAnswers = std::size_t{1} << 28;

// The attribute conditions (AttributeFilter: labels, allLabels, noLabels, where) and exclusions,
// combined with AND, restrict a search to the eligible items: items whose id is listed in `exclude`
// are never returned (ids the index does not hold are ignored). A filtered search returns min(k,
// eligible count) items, only eligible ones, whatever the index type.
struct SearchOptions : AttributeFilter {
  // When larger than k: retrieve this many candidates and rank them exactly (Yang et al.,
  // arXiv:2103.02729, section 7).
  std::size_t shortlist = 0;
  // Items ranked with the index's own candidates whatever the index finds (ids it does not hold
  // are skipped): a caller that knows good answers from earlier exact scans keeps them reachable
  // when a graph cannot find them.
  std::vector<Id> alsoRank;
  std::vector<Id> exclude;
  // A caller that searches one index several times under the same conditions, with no change to the
  // index in between (a decision's choice, then its propensities' candidates), keeps the conditions'
  // eligibility here: the first search builds it, the later ones use it and the rows its walk kept
  // (Eligibility::forEachPostedRow). Never saved; searchBatch ignores it (its threads would share it).
  std::optional<Eligibility>* keptEligibility = nullptr;
  bool filtersAnything() const { return !exclude.empty() || !AttributeFilter::empty(); }
};

// Maximum inner product search over a changing set of items. Every index keeps its items in a
// VectorStore, so results always carry exact scores and removed items can never come back.
// The public methods validate and leave the index unchanged on error; subclasses implement the
// protected hooks and see only valid input.
class MipsIndex {
 public:
  explicit MipsIndex(std::size_t dim, VectorStorage storage = VectorStorage::Float32);
  virtual ~MipsIndex() = default;
  MipsIndex(const MipsIndex&) = delete;
  MipsIndex& operator=(const MipsIndex&) = delete;

  // Kebab-case name of the method, as in `index: { type }`.
  virtual std::string type() const = 0;

  std::size_t dim() const { return items_.dim(); }
  std::size_t size() const { return items_.size(); }
  bool contains(Id id) const { return items_.contains(id); }
  const VectorStore& items() const { return items_; }

  // vectorLength must equal idCount * dim(). Every item gets label 0 and no values, or labels[i]
  // (labelCount must equal idCount), or the attributes of row i of `attributes` (idCount rows).
  void add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength);
  void add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength, const Label* labels,
           std::size_t labelCount);
  void add(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength, const ItemAttributes& attributes);
  // The same with the vectors read a piece at a time (FloatSource), with the same checks and answers.
  void add(const Id* ids, std::size_t idCount, const FloatSource& vectors, const ItemAttributes& attributes);
  // New labels for stored items (row i of `labels` for ids[i]), or new values (those `values` holds;
  // others stay): the attributes only, no index structure changes. UNKNOWN_ID / DUPLICATE_ID /
  // DIMENSION_MISMATCH (not one row per id) / INVALID_ARGUMENT (too many value names), nothing changed.
  void setLabels(const Id* ids, std::size_t idCount, const ItemAttributes& labels);
  void setValues(const Id* ids, std::size_t idCount, const ItemAttributes& values);
  void remove(const Id* ids, std::size_t idCount);
  // New vectors for stored items (idCount x dim() floats), their attributes kept: each leaves the
  // structure and comes back as a new item (an incremental graph scans it until a search's slice
  // links it). UNKNOWN_ID / DUPLICATE_ID / DIMENSION_MISMATCH / NON_FINITE, nothing changed.
  void setFeatures(const Id* ids, std::size_t idCount, const float* vectors, std::size_t vectorLength);
  // The min(k, size()) items of largest inner product with the query, best first, ties by smaller id;
  // with filters (options' exclude and attribute conditions), min(k, eligible count) eligible items.
  SearchResult search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options = {});
  // The same answer into `out` (replaced), whose vectors keep their capacity: a caller that searches
  // again and again with one SearchResult (the bindings, a batch thread) allocates nothing for the
  // answer, and an unfiltered search of an index that collects its candidates in place
  // (collectCandidates) nothing at all once the buffers have grown.
  void search(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options, SearchResult& out);

  // search() for each of `queryCount` queries (queryLength must be queryCount * dim()), with the same
  // k and options: the same answers as that many calls of search() in order, and the same work
  // counted. Every query is checked before any is searched (DIMENSION_MISMATCH, NON_FINITE,
  // INVALID_ARGUMENT for k 0 or a batch beyond kMaxBatchQueries / kMaxBatchAnswers), so a bad batch
  // changes nothing. Where searches only read the index (searchesConcurrently) they share out among
  // parallelism() threads, each with its own scratch, the counters being atomic.
  BatchSearchResult searchBatch(const float* queries, std::size_t queryLength, std::size_t queryCount, std::size_t k,
                                const SearchOptions& options = {});

  // The exact top-k by a scan of every stored item (of every eligible one, under options' filters),
  // whatever the index: the oracle an approximate index's answers are audited against (Sub-TS does
  // so online). Counted like a search's work.
  SearchResult searchExactly(const float* query, std::size_t queryLength, std::size_t k, const SearchOptions& options = {});
  // searchExactly for each of the queries (each of queryLength entries), under the same k and
  // options: the same answers, with each eligible row read once for all of them where the eligible
  // items come from posting lists (a caller searching a few eligible items with several queries, as
  // Thompson sampling's propensities do, pays one walk and one pass of cache misses).
  std::vector<SearchResult> searchExactlyEach(const std::vector<const float*>& queries, std::size_t queryLength, std::size_t k,
                                              const SearchOptions& options = {});
  // The exact top-k among the rows [firstRow, lastRow) of the store (lastRow clipped to size()), of
  // the eligible ones under options' filters: searchExactly in slices, which every index serves from
  // its store. A policy's audit runs its exact search so over later calls (ApproximationAudit), so
  // that no call carries a scan of every item. Rows are not ids: removal moves the last row into
  // the hole (see ApproximationAudit for what a scan in slices covers while items change). Counted
  // as exhaustive-scan work, one inner product per row in the range.
  SearchResult searchRowsExactly(const float* query, std::size_t queryLength, std::size_t k, std::size_t firstRow, std::size_t lastRow,
                                 const SearchOptions& options = {});

  // The attributes of every row (labels with their posting lists, values), and the label of a stored
  // item that has exactly one (precondition: contains(id); 0 for one with none or several).
  const ItemAttributes& attributes() const { return attributes_; }
  Label labelOf(Id id) const { return attributes_.singleLabel(items_.rowOf(id)); }
  // Which items a search with these options may return, and how many.
  Eligibility eligibility(const SearchOptions& options) const;
  // options.keptEligibility's, built there first if it is empty; else one built into `built`.
  const Eligibility& eligibility(const SearchOptions& options, std::optional<Eligibility>& built) const;

  // Whether a search may now return other than the exact top-k: false for the exact scan, and for
  // an HnswIndex whose graph holds nothing yet (it scans every item). Audits skip answers that
  // cannot miss.
  virtual bool approximates() const { return true; }

  // Whether exhaustive scans of at least kParallelScanFloats share their rows among parallelism()
  // threads (off by default). The elimination policies turn it on for the stages they scan. Linear
  // TS leaves it off: it is Sub-TS's baseline, whose scan is the rent Sub-TS's graph is paid from,
  // and a shared scan would speed up the baseline and not the rent
  // (bench/results/design-measurements.md).
  void shareScansAmongThreads(bool share) { shareScans_ = share; }
  // Waking a helper costs some tens of microseconds, a scan of 16 MB about a millisecond in wasm.
  static constexpr std::size_t kParallelScanFloats = std::size_t{1} << 22;

  // Structure still to be built, for indexes that build it a slice per search (HnswIndex by
  // default): builds the structure of up to `maxItems` waiting items at once (a Worker, or idle time
  // on a page, can finish it this way) and returns how many still wait. Other indexes build
  // everything in add() and return 0.
  std::size_t build(std::size_t maxItems) { return buildPending(maxItems); }

  // Work counters since creation: innerProducts counts full-dimension products (partial products of
  // sampling methods count as their fraction of dim), searches counts queries.
  virtual Json stats() const;
  std::uint64_t innerProducts() const { return innerProducts_.load(); }
  // Bytes of item vectors per stored item: the store's row, and any copy the structure keeps
  // (stats().vectorBytesPerItem; links and ids aside).
  virtual double vectorBytesPerItem() const { return static_cast<double>(items_.rowBytes()); }
  // The part of innerProducts() not spent in exhaustive scans (scan(): the exact index, an
  // HnswIndex's scan of the items not yet in its graph, searchExactly): the work whose answers can
  // miss, on which the policies' audits spend their budget. For differences only: the scans'
  // share is not saved, so after load() this restarts at innerProducts().
  std::uint64_t approximateInnerProducts() const { return innerProducts_ - scannedInnerProducts_; }

  // Snapshot (core/snapshot.hpp): the stored items in row order and the work counters, then the
  // structure's own fields. load() runs on an empty index constructed with the same options and
  // leaves it as the saved one was: the same answers, the same work, the same future.
  void save(StateWriter& out) const;
  void load(StateReader& in);

 protected:
  // The structure's fields after the items; loadStructure runs once the store holds them again and
  // validates everything it reads (CORRUPT_STATE).
  virtual void saveStructure(StateWriter& out) const = 0;
  virtual void loadStructure(StateReader& in) = 0;

  virtual std::size_t buildPending(std::size_t /*maxItems*/) { return 0; }

  // Called after the items are in the store.
  virtual void onAdd(const Id* ids, std::size_t count) = 0;
  // Called while the items are still in the store.
  virtual void onRemove(const Id* ids, std::size_t count) = 0;
  // Called after stored items' labels (or values) changed: for what keeps a copy of them (a graph's
  // labels beside its nodes, an adaptive index's copies), never for the structure.
  virtual void onLabelsChanged(const Id* /*ids*/, std::size_t /*count*/) {}
  virtual void onValuesChanged(const Id* /*ids*/, std::size_t /*count*/) {}
  // Up to `count` candidate ids for the padded query (stride() floats), any order; the base class
  // scores them exactly. Returning fewer (even none) is allowed for approximate methods.
  virtual std::vector<Id> candidates(const float* paddedQuery, std::size_t count) = 0;
  // candidates() into `ids` (replaced): by default a copy of its answer; an index on the hot path
  // (HnswIndex) writes them in place, into the buffer the search reuses.
  virtual void collectCandidates(const float* paddedQuery, std::size_t count, std::vector<Id>& ids);
  // Up to `count` candidates among the eligible items (eligible.filters() is true, count() > 0). The
  // base class drops any ineligible id and scans the eligible items exactly when fewer than
  // min(k, eligible count) remain. By default: count / fraction candidates() (what it takes to
  // expect `count` eligible among them), filtered, unless scanning the eligible items exactly costs
  // less than ranking that many or than the index's average work per search widened as much
  // (scanEligible() then).
  virtual std::vector<Id> filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible);

  // The ids of the `count` stored items of largest inner product among rows [firstRow, size()), by
  // a scan of the store. Shared among threads (shareScansAmongThreads), the answer is the same:
  // ties go to the smaller id whichever thread saw them.
  std::vector<Id> scan(const float* paddedQuery, std::size_t count, std::size_t firstRow = 0);
  // The ids of the `count` eligible items of largest inner product among rows [firstRow, size()),
  // exactly: every row with the scan's kernel (eligibility checked only where a score would enter
  // the top), or the allowed labels' posting lists when that costs less (eligibleScanRows). Counted
  // as exhaustive-scan work.
  std::vector<Id> scanEligible(const float* paddedQuery, std::size_t count, const Eligibility& eligible, std::size_t firstRow = 0);
  // scanEligible for each of the padded queries: the answers in their order.
  std::vector<std::vector<Id>> scanEligibleEach(const std::vector<const float*>& paddedQueries, std::size_t count,
                                                const Eligibility& eligible, std::size_t firstRow = 0);
  // What scanEligible over rows [firstRow, size()) costs, in rows of the exhaustive scan: the rows
  // themselves, or kGatheredRowCost per posting entry when that is less.
  double eligibleScanRows(const Eligibility& eligible, std::size_t firstRow = 0) const;
  // A row reached through a posting list is a random access (and the lists of many labels
  // interleave) where the scan streams: it costs several streamed rows (bench/results/filters.md).
  static constexpr double kGatheredRowCost = 6.0;
  // Exchanges two rows of the store with their attributes (see RowStore::swapRows).
  void swapRows(std::size_t a, std::size_t b);
  // rankExactly scores long rows four at a time only when there are at most 1 / kScatteredCandidates
  // of the store's rows to rank.
  static constexpr std::size_t kScatteredCandidates = 16;
  // Exact top-k of the given ids, counted as inner products (all of them, those candidateRows
  // scored too: the counters measure the work the search is modelled to cost, which the policies'
  // audits and build credits read, so they stay what they were before scores were reused).
  SearchResult rankExactly(const float* paddedQuery, const std::vector<Id>& ids, std::size_t k);
  // The same into `out` (replaced); `ids` may be out.ids itself.
  void rankExactly(const float* paddedQuery, const std::vector<Id>& ids, std::size_t k, SearchResult& out);
  // Where rankExactly reads the row of each of `ids` (rows[i], laid out as the store's rows): by
  // default the store's row, found through its map of ids. An index that has just read copies of
  // its candidates' rows answers from them: at a million items the map and the store's row are
  // each a cache miss per candidate, where the copies are still in cache. An index whose search has
  // already computed a candidate's score with the bits rankExactly computes (the store's scoreRow
  // of the row against the same padded query) sets rows[i] to null and scores[i] to that score,
  // and the ranking takes it as it is.
  virtual void candidateRows(const std::vector<Id>& ids, const float** rows, float* scores) const;
  void countInnerProducts(double count) { innerProducts_ += static_cast<std::uint64_t>(count); }
  // Whether searches under `options` may now run on several threads at once (after
  // prepareConcurrentSearches): each writes nothing but the atomic counters and what runSearchThread
  // gives its thread. By default no: a sampling index draws from its generator, a bucketing one keeps
  // buffers, and the default filteredCandidates reads the counters that earlier searches wrote, so
  // that only the order of one thread repeats them.
  virtual bool searchesConcurrently(const SearchOptions& /*options*/) const { return false; }
  // On the calling thread before concurrent searches start: what the first search would do or fill
  // lazily (a build, a sort, tables, a scratch's size), so that the batch's state is that of its
  // searches one after the other.
  virtual void prepareConcurrentSearches() {}
  // Runs `searches` (a batch thread's share) with the scratch this thread's searches write, and
  // folds what they counted there afterwards.
  virtual void runSearchThread(const std::function<void()>& searches) { searches(); }

  VectorStore items_;

 private:
  // UNKNOWN_ID / DUPLICATE_ID unless every id is stored once in the batch.
  void checkStored(const Id* ids, std::size_t idCount) const;
  // DIMENSION_MISMATCH, NON_FINITE or INVALID_ARGUMENT (k < 1) before any work.
  void checkQuery(const float* query, std::size_t queryLength, std::size_t k) const;
  // Rows [first, last) of the store into `best`; with `admits`, only rows for which admits(row) is
  // true, asked only of rows whose score would enter `best`.
  void scanRows(const float* paddedQuery, std::size_t first, std::size_t last, TopK& best) const;
  template <class Admits>
  void scanRows(const float* paddedQuery, std::size_t first, std::size_t last, TopK& best, const Admits& admits) const;
  // The given rows (any order) into `best`.
  void scoreRows(const float* paddedQuery, const std::uint32_t* rows, std::size_t count, TopK& best) const;
  // load()'s items in each storage.
  void loadCodes(StateReader& in);
  void loadFloats(StateReader& in);
  // Removes a stored item and its attributes.
  void removeItem(Id id);
  // UNKNOWN_ID / DUPLICATE_ID / DIMENSION_MISMATCH for setLabels and setValues.
  void checkChanges(const Id* ids, std::size_t idCount, const ItemAttributes& batch) const;

  // The attributes of each row of items_, moved with it.
  ItemAttributes attributes_;

  // Atomic: a batch's concurrent searches count into them (searchBatch); sums, so the totals are
  // those of the searches one after the other.
  std::atomic<std::uint64_t> innerProducts_{0};
  std::atomic<std::uint64_t> scannedInnerProducts_{0};
  std::atomic<std::uint64_t> searches_{0};
  bool shareScans_ = false;
};

}  // namespace sublinear
