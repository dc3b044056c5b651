// HnswIndex's private parts shared by its three source files: hnsw_index.cpp (construction, changes,
// searches), hnsw_build.cpp (the incremental build, the space trial, the threads) and
// hnsw_graph_state.cpp (the graph's serialisation). Not installed: nothing outside HnswIndex sees
// hnswlib.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/filtered_graph_search.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/quantised_rows.hpp"

// hnswlib 0.6.2's SSE path prefetches *(links + j + 1) one entry past the end of a link list, an
// out-of-bounds read that AddressSanitizer reports on upper layers (fixed in later hnswlib). Its SIMD
// distance functions are not used here (PaddedSpace below), so the manual vectorisation goes, and
// the native build runs the same code as the wasm build, which has no SSE.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib.h>

namespace hnswlib {
// hnswlib 0.6.2's getConnectionsWithLock copies a link list with memcpy into a vector of the list's
// size; for an empty list that is a memcpy to the null pointer of an empty vector, undefined
// behaviour that UBSan reports. updatePoint reads the reused slot's own lists with it, and a slot can
// have an empty one: a node alone on the top layer (the entry point), deleted and then reused. The
// same copy without the call when there is nothing to copy. Declared before anything here uses
// HierarchicalNSW<float>'s members (only this header includes hnswlib).
template <>
inline std::vector<tableint> HierarchicalNSW<float>::getConnectionsWithLock(tableint internalId, int level) {
  std::unique_lock<std::mutex> lock(link_list_locks_[internalId]);
  linklistsizeint* list = get_linklist_at_level(internalId, level);
  const auto* links = reinterpret_cast<const tableint*>(list + 1);
  return std::vector<tableint>(links, links + getListCount(list));
}
}  // namespace hnswlib

namespace sublinear {

namespace hnsw_detail {

struct DistanceParameter {
  // Where the nodes' rows are (their data holds the row or a reference to it, filtered_graph_search.hpp's GraphRows).
  GraphRows rows;
  // The item's dimension: the euclidean reduction's extra coordinate has this index.
  std::size_t dim;
  std::uint64_t evaluations;  // distance computations, the index's work counter
  // Int8 storage: the codes' length (codeBytes(dim)); 0 for float rows.
  std::size_t codeBytes;
};

inline void countEvaluation(DistanceParameter* p) { ++p->evaluations; }

// hnswlib calls these with two nodes' data (filtered_graph_search.hpp's GraphRows: the row or a
// reference to it, then the extra coordinate in the euclidean reduction), or with the data of a node
// being inserted, which is the same. Queries never reach hnswlib (FilteredGraphSearch scores them).
inline float innerProductDistance(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  countEvaluation(p);
  return 1.0f - lanes::graphInnerProduct(p->rows.rowOfData(a), p->rows.rowOfData(b), p->rows.rowFloats);
}

inline float euclideanDistance(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  countEvaluation(p);
  return lanes::graphSquaredDistanceExtended(p->rows.rowOfData(a), p->rows.rowOfData(b), p->rows.rowFloats, p->dim,
                                        p->rows.extraOfData(a) - p->rows.extraOfData(b));
}

inline float codedInnerProductSpace(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  countEvaluation(p);
  return quantised::innerProductDistance(p->rows.rowOfData(a), p->rows.rowOfData(b), p->codeBytes);
}

inline float codedEuclideanSpace(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  countEvaluation(p);
  return quantised::euclideanDistance(p->rows.rowOfData(a), p->rows.extraOfData(a), p->rows.rowOfData(b), p->rows.extraOfData(b),
                                      p->codeBytes);
}

// A referenced node's data: the reference (4 bytes), and in the euclidean reduction the extra coordinate.
inline void writeNodeData(float* out, std::uint32_t reference, float extra) {
  std::memcpy(out, &reference, sizeof(reference));
  out[1] = extra;
}
// Floats of a buffer for any node's data of `rows` (the extra coordinate included).
inline std::size_t nodeDataFloats(const GraphRows& rows) { return rows.inlined ? rows.rowFloats + 1 : 2; }
// The data of a node holding row `row` of the store, in `rows`' layout, into `out` (nodeDataFloats):
// the reference, or a copy of the row; then the extra coordinate.
inline void writeNodeData(const GraphRows& rows, std::size_t row, float extra, float* out) {
  if (!rows.inlined) return writeNodeData(out, static_cast<std::uint32_t>(row), extra);
  const float* stored = rows.store->rowData(row);
  std::copy(stored, stored + rows.rowFloats, out);
  out[rows.rowFloats] = extra;
}

// hnswlib's two spaces (InnerProductSpace: 1 - <a, b>; L2Space: |a - b|^2) over the store's
// zero-padded rows, computed with the project's kernels: hnswlib's own functions are SSE/AVX natively
// but scalar in wasm, and these give wasm SIMD and the same bits in both builds. With codeBytes > 0
// (int8 storage) the rows are codes and a scale. `stride` is the floats a graph vector of the space
// would take (the row and the extra coordinate, padded; quantised::graphVectorBytes in int8): the
// vector a distance reads, wherever it lives, by which the index weighs the work.
class PaddedSpace final : public hnswlib::SpaceInterface<float> {
 public:
  PaddedSpace(const GraphRows& rows, std::size_t dim, std::size_t stride, bool euclidean, std::size_t codeBytes = 0)
      : parameter_{rows, dim, 0, codeBytes}, stride_(stride), euclidean_(euclidean) {}
  std::size_t get_data_size() override { return parameter_.rows.dataBytes(euclidean_); }
  hnswlib::DISTFUNC<float> get_dist_func() override {
    if (parameter_.codeBytes > 0) return euclidean_ ? &codedEuclideanSpace : &codedInnerProductSpace;
    return euclidean_ ? &euclideanDistance : &innerProductDistance;
  }
  std::size_t codeBytes() const { return parameter_.codeBytes; }
  const GraphRows& rows() const { return parameter_.rows; }
  std::size_t dim() const { return parameter_.dim; }
  void* get_dist_func_param() override { return &parameter_; }
  std::uint64_t evaluations() const { return parameter_.evaluations; }
  std::size_t stride() const { return stride_; }
  bool euclidean() const { return euclidean_; }
  void setEvaluations(std::uint64_t evaluations) { parameter_.evaluations = evaluations; }

 private:
  DistanceParameter parameter_;
  std::size_t stride_;
  bool euclidean_;
};

// hnswlib 0.6.2's addPoint(data, label, level) for a label not yet in the graph, step for step: the
// same distances in the same order, the same heaps with the same comparisons (so the same choices on
// ties), the same links, the same count of distance computations, and the same locks taken (the
// update lock and the new node's own lock for the whole insertion, the global lock while the node
// raises the top level, a node's lock while its link list is read or changed): hnswlib's own
// addPoint builds the same graph (tests/cpp/graph_insertion_test.cpp). What differs is the hot
// part: a referenced node's row is found through the graph's dense references
// (GraphLayout::references), not through its record in hnswlib's memory (a cache miss before the
// row's), and an inlined node's in its record; the distances are the
// project's kernels inlined, a node's new neighbours four rows at a time as FilteredGraphSearch
// scores them; the heaps and lists live in this object and keep their capacity, where hnswlib
// allocates two priority queues per layer searched and more to select neighbours (in wasm under
// the allocator's one lock, which the threads of a parallel build then queue for); and a link list
// is copied under its node's lock and scored after the lock is released, where hnswlib scores it
// holding the lock. One inserter per thread; the visited marks come from hnswlib's pool, one list
// per insertion.
class GraphInserter {
 public:
  // Adds a node of data `data` (the space's layout: writeNodeData) to the graph `hnsw` of `space` at
  // `level`, labelled `label`, and returns its slot (the graph's node count before the call).
  // Referenced, `references` and `extras` (null in the inner-product space) are the graph's dense
  // copies with room for that slot (both null inlined): the node's entries are written there, and
  // its data in its record, before any link leads to it. Concurrent calls with distinct labels are
  // safe, as they are for addPoint, while nothing else changes the graph.
  hnswlib::tableint add(hnswlib::HierarchicalNSW<float>& hnsw, const PaddedSpace& space, std::uint32_t* references, float* extras,
                        const float* data, hnswlib::labeltype label, int level);
  // Distance computations since the last call.
  std::uint64_t takeEvaluations() {
    const std::uint64_t evaluations = evaluations_;
    evaluations_ = 0;
    return evaluations;
  }

 private:
  using Entry = std::pair<float, hnswlib::tableint>;  // (distance, node), as hnswlib's heaps hold them
  template <class Metric>
  hnswlib::tableint addWith(hnswlib::HierarchicalNSW<float>& hnsw, const Metric& metric, std::uint32_t* references, float* extras,
                            const float* data, hnswlib::labeltype label, int level);
  template <class Metric>
  void searchLayer(hnswlib::HierarchicalNSW<float>& hnsw, const Metric& metric, hnswlib::VisitedList& visited, hnswlib::tableint entry,
                   const float* row, float extra, int layer);
  template <class Metric>
  hnswlib::tableint connect(hnswlib::HierarchicalNSW<float>& hnsw, const Metric& metric, hnswlib::tableint node, int layer);
  template <class Metric>
  void selectNeighbours(std::vector<Entry>& heap, std::size_t M, const Metric& metric);
  // out[i] = the distance between nodes[i] and the vector (row, extra), for `count` nodes.
  template <class Metric>
  void score(const Metric& metric, const hnswlib::tableint* nodes, std::size_t count, const float* row, float extra, float* out);

  // searchBaseLayer's top_candidates and candidateSet.
  std::vector<Entry> beam_;
  std::vector<Entry> frontier_;
  // getNeighborsByHeuristic2's queue_closest (sorted) and return_list; a full neighbour's candidates.
  std::vector<Entry> closest_;
  std::vector<Entry> chosen_;
  std::vector<Entry> overflow_;
  std::vector<hnswlib::tableint> selected_;
  // A link list's nodes to score, their rows, extra coordinates and distances.
  std::vector<hnswlib::tableint> fresh_;
  std::vector<const float*> rows_;
  std::vector<float> extras_;
  std::vector<float> distances_;
  std::uint32_t touched_ = 0;  // touchRows' sums
  std::uint64_t evaluations_ = 0;
};

// The nodes of `hnsw` breadth first from the entry point (hnsw_graph_order.cpp): order[p] is the
// node to become node p, so that the neighbours a search scores after expanding a node lie near each
// other in memory.
std::vector<hnswlib::tableint> breadthFirstOrder(hnswlib::HierarchicalNSW<float>& hnsw);
// newNode[order[p]] = p.
std::vector<hnswlib::tableint> inverse(const std::vector<hnswlib::tableint>& order);
// Renumbers the nodes of `hnsw` by `order` (newNode its inverse): records, upper-layer lists, levels,
// links, the label map and the entry point. The same graph; only its numbering changes. Allocates
// before it changes anything, so a failed allocation leaves the graph as it was.
void renumber(hnswlib::HierarchicalNSW<float>& hnsw, const std::vector<hnswlib::tableint>& order,
              const std::vector<hnswlib::tableint>& newNode);
// result[p] = values[order[p]]: a per-node array in the new numbering.
template <class T>
std::vector<T> permuted(const std::vector<T>& values, const std::vector<hnswlib::tableint>& order) {
  std::vector<T> result(order.size());
  for (std::size_t p = 0; p < order.size(); ++p) result[p] = values[order[p]];
  return result;
}

// An hnswlib graph's memory as FilteredGraphSearch reads it, with its space's rows and distance.
inline GraphLayout layoutOf(const hnswlib::HierarchicalNSW<float>& hnsw, const PaddedSpace& space) {
  GraphLayout layout;
  layout.level0 = hnsw.data_level0_memory_;
  layout.elementBytes = hnsw.size_data_per_element_;
  layout.dataOffset = hnsw.offsetData_;
  layout.labelOffset = hnsw.label_offset_;
  layout.upperLinks = hnsw.linkLists_;
  layout.upperLinkBytes = hnsw.size_links_per_element_;
  layout.levels = hnsw.element_levels_.data();
  layout.nodes = hnsw.cur_element_count;
  layout.entry = hnsw.enterpoint_node_;
  layout.maxLevel = hnsw.maxlevel_;
  layout.rows = space.rows();
  layout.dim = space.dim();
  layout.codeBytes = space.codeBytes();
  layout.euclidean = space.euclidean();
  return layout;
}

inline double squaredNorm(const float* vector, std::size_t dim) {
  double sum = 0.0;
  for (std::size_t i = 0; i < dim; ++i) sum += static_cast<double>(vector[i]) * vector[i];
  return sum;
}

inline constexpr std::size_t kMinimumCapacity = 16;
// Int8 storage searches a beam of kQuantisedBeamWidening x efSearch + count - 1: the decoded rows
// move some near-ties of the true top 10 out of it (on 100k x 32 Gaussian items an exact scan of
// the decoded rows finds 98.2% of the float top 10), and the wider beam brings recall@10 against
// the float answer back to float storage's at the same options (measured at 20k x 32, M 16,
// efConstruction 100: f32 0.950 at a beam of 73, int8 0.945 at 73 and 0.961 at 95).
inline constexpr double kQuantisedBeamWidening = 1.5;
// space "auto": the trial builds both spaces' graphs over the first rows, up to kSpaceTrialItems,
// searches them for the next kSpaceTrialQueries waiting items with the index's own beam for a top
// 10, and keeps the euclidean reduction only when its recall is higher by more than
// kSpaceTrialMargin. Smaller trials mislead: on Fashion-MNIST (60k x 784) a 2,000-item trial, or a
// 10,000-item one with a beam of 10, favoured the inner-product graph, although over all 60,000
// items the reduction finds far more of the true top 10.
inline constexpr std::size_t kSpaceTrialItems = 10000;
inline constexpr std::size_t kSpaceTrialQueries = 64;
inline constexpr double kSpaceTrialMargin = 0.02;
// Below this many freed slots a compaction is not worth it.
inline constexpr std::size_t kCompactionFloor = 64;
// A bulk build of fewer rows stays on one thread: an add() of a few items to an immediate index
// would spend more on starting threads (a Worker's message round trip in wasm) than they save.
inline constexpr std::size_t kParallelBatch = 64;
// A graph whose insertions are cheap stays on one thread: efConstruction times the row length (a
// rough cost of one insertion's searches) must reach this: in wasm 2 threads gained nothing at
// 128 x 16 and lost below (bench/results/design-measurements.md). The threads pay for every lock they
// share (the per-node locks, and then the allocator's one lock: hnswlib's insertions allocated their
// search queues every time; GraphInserter does not, and the threshold has not been measured again
// since), and in wasm a wait for a lock costs far more than natively, so the lighter the insertion,
// the more of it is waiting.
inline constexpr std::size_t kParallelWork = 3200;
// A filtered beam's distance computation costs about this many rows of the exhaustive scan (a random
// access to a node, heap updates and the visited marks, against the scan's stream;
// bench/results/filters.md). A beam that has spent what the exact scan of the eligible items would
// cost gives up for that scan: where the crossover misjudged (labels that cluster away from the
// query make a beam wander further than beam / f), a search costs at most twice the scan.
inline constexpr double kSearchEvaluationRows = 24.0;

}  // namespace hnsw_detail

struct HnswIndex::Graph {
  // `store` holds the live nodes' rows (rowFloats floats each); `stride`, `dim` and `codeBytes` are
  // PaddedSpace's; `inlineRows` keeps a copy of each node's row in its record (GraphRows).
  Graph(const VectorStore& store, std::size_t dim, std::size_t stride, bool euclideanSpace, std::size_t capacity, std::size_t M,
        std::size_t efConstruction, std::uint64_t seed, std::size_t codeBytes, bool inlineRows)
      : space(GraphRows{&store, &retired, store.stride(), inlineRows}, dim, stride, euclideanSpace, codeBytes),
        hnsw(&space, capacity, M, efConstruction, static_cast<std::size_t>(seed)),
        levels(seed),
        levelScale(1.0 / deterministic::log(static_cast<double>(M))),
        euclidean(euclideanSpace) {
    // hnswlib draws node levels with std::uniform_real_distribution, whose numbers differ between
    // libstdc++ (native) and libc++ (wasm). Insertions (GraphInserter) take nextLevel()'s instead,
    // the same in every build; with its multiplier at zero any draw of hnswlib's own is level 0.
    hnsw.mult_ = 0.0;
  }
  // The level of a new node: floor(-ln(U) / ln(M)), hnswlib's distribution from our engine.
  int nextLevel() { return static_cast<int>(-deterministic::log(1.0 - levels.uniform()) * levelScale); }
  std::uint64_t evaluations() const { return space.evaluations(); }
  // Referenced layout: the rows of deleted nodes (GraphRows::kRetiredRow), which still steer
  // searches with the vector of the item they held; released when the slot is reused. (Inlined, a
  // deleted node's record keeps its row.) Declared before `space`, which points here.
  std::vector<float> retired;
  std::vector<std::uint32_t> freeRetired;
  hnsw_detail::PaddedSpace space;
  hnswlib::HierarchicalNSW<float> hnsw;
  Random levels;
  double levelScale;
  bool euclidean;
  // Internal ids of deleted nodes, reused by later insertions (last freed first).
  std::vector<hnswlib::tableint> freeSlots;
  std::size_t reused = 0;  // freed slots taken by insertions since the graph was started
  // The label of the item each slot holds, for filtered searches: kept by insert(); any other way of
  // adding nodes (a parallel build, a load) leaves it shorter than the graph, and the next filtered
  // search fills it again (syncSlotLabels).
  std::vector<Label> slotLabels;
  bool holds(Id id) const { return hnsw.label_lookup_.count(id) != 0; }
  bool inlined() const { return space.rows().inlined; }
  // A node's data in hnswlib's memory (GraphRows).
  char* data(hnswlib::tableint node) { return hnsw.getDataByInternalId(node); }
  // Referenced layout: every node's reference and extra coordinate again, densely, for searches
  // (GraphLayout): a search reads them for every node it scores, and in the records each would be a
  // cache miss before the row's (4 or 8 bytes a node: vectorBytesPerItem counts them). Kept by every
  // change made here and by every insertion (add); the nodes of a load are copied from their records
  // by syncReferences(). Empty inlined: the record holds the row.
  std::vector<std::uint32_t> references;
  std::vector<float> extras;
  void setReference(hnswlib::tableint node, std::uint32_t reference) {
    std::memcpy(data(node), &reference, sizeof(reference));
    if (node < references.size()) references[node] = reference;
  }
  // Room in the dense copies for `nodes` nodes, those so far copied from their records: an
  // insertion (add) writes its node's entries itself, on whatever thread it runs.
  void reserveReferences(std::size_t nodes) {
    if (inlined()) return;
    syncReferences();
    if (references.size() >= nodes) return;
    references.resize(nodes);
    if (euclidean) extras.resize(nodes);
  }
  // hnswlib's addPoint of a new item (data: HnswIndex::nodeData's, in this graph's layout) at
  // `level`, through `inserter` (GraphInserter): each thread of a parallel build with its own, after
  // reserveReferences() made room for every node of the batch. Counts its distances in the inserter.
  hnswlib::tableint add(hnsw_detail::GraphInserter& with, const float* nodeData, hnswlib::labeltype label, int level) {
    if (inlined()) return with.add(hnsw, space, nullptr, nullptr, nodeData, label, level);
    return with.add(hnsw, space, references.data(), euclidean ? extras.data() : nullptr, nodeData, label, level);
  }
  // The inserter of insertions on one thread (each graph its own: a space trial builds its two
  // graphs on a thread each).
  hnsw_detail::GraphInserter inserter;
  // Copies the records of nodes added since (a load) into the dense copies.
  void syncReferences() {
    if (inlined()) return;
    const std::size_t nodes = hnsw.cur_element_count;
    for (std::size_t node = references.size(); node < nodes; ++node) {
      const char* record = data(static_cast<hnswlib::tableint>(node));
      references.push_back(nodeReference(record));
      if (euclidean) extras.push_back(nodeExtra(record));
    }
  }
  // The graph as FilteredGraphSearch reads it, its dense copies current.
  GraphLayout layout() {
    // A reused slot's record changes in updatePoint; its copy is set by HnswIndex::insert.
    syncReferences();
    GraphLayout result = hnsw_detail::layoutOf(hnsw, space);
    if (inlined()) return result;
    result.references = references.data();
    result.extras = euclidean ? extras.data() : nullptr;
    return result;
  }
  // Points the node of a live item at its row (after the row moved in the store; an inlined node
  // keeps its copy).
  void setRow(hnswlib::tableint node, std::size_t row) {
    if (!inlined()) setReference(node, static_cast<std::uint32_t>(row));
  }
  // Keeps a copy of the row of a node being deleted (`rowFloats` floats) and points the node at it
  // (an inlined node's record has its copy already).
  void retire(hnswlib::tableint node, const float* row) {
    if (inlined()) return;
    const std::size_t rowFloats = space.rows().rowFloats;
    std::uint32_t index;
    if (!freeRetired.empty()) {
      index = freeRetired.back();
      freeRetired.pop_back();
      std::copy(row, row + rowFloats, retired.begin() + static_cast<std::ptrdiff_t>(index * rowFloats));
    } else {
      index = static_cast<std::uint32_t>(retired.size() / rowFloats);
      retired.insert(retired.end(), row, row + rowFloats);
    }
    setReference(node, index | GraphRows::kRetiredRow);
  }
  // Frees the retired row of a deleted node whose slot is being reused.
  void release(hnswlib::tableint node) {
    if (inlined()) return;
    const std::uint32_t reference = nodeReference(data(node));
    if ((reference & GraphRows::kRetiredRow) != 0) freeRetired.push_back(reference & ~GraphRows::kRetiredRow);
  }
  std::size_t live() const { return hnsw.label_lookup_.size(); }
  // Renumbers the nodes for locality (hnsw_detail::breadthFirstOrder, renumber) with everything
  // here that is kept per node; a failed allocation leaves the graph as it was.
  void orderForLocality();
  // Nodes at the last orderForLocality (a loaded graph's count: it is kept in its saved order).
  std::size_t ordered = 0;
  // The row of item `id` as a search reads it, if node `node` holds that item (null otherwise):
  // inlined, the copy in the node's record; referenced, the row its dense reference names.
  const float* rowHeldBy(hnswlib::tableint node, Id id) const {
    if (node >= hnsw.cur_element_count || hnsw.isMarkedDeleted(node) || hnsw.getExternalLabel(node) != id) return nullptr;
    if (inlined()) return reinterpret_cast<const float*>(hnsw.data_level0_memory_ + node * hnsw.size_data_per_element_ + hnsw.offsetData_);
    return node < references.size() ? space.rows().row(references[node]) : nullptr;
  }
};

}  // namespace sublinear
