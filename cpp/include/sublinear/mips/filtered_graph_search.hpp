#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <cstring>
#include <utility>
#include <vector>

#include "sublinear/mips/eligibility.hpp"
#include "sublinear/mips/item_attributes.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

// Where a graph node's vector lives, in one of two layouts of the node's data (what hnswlib's
// level-0 record holds between the node's links and its label):
//   referenced: a reference to a row of the index's store, or for a deleted node (whose item is gone
//     from the store but which still steers searches) to a row of the graph's own `retired` rows,
//     marked by kRetiredRow; in the euclidean reduction's graph followed by the item's extra
//     coordinate as a float. One copy of the vectors; rows move in the store only through HnswIndex,
//     which updates the references (hnsw_index.hpp).
//   inlined: the row itself (rowFloats floats, as the store holds it), then in the euclidean
//     reduction the extra coordinate: hnswlib's own layout, a second copy of short rows that a
//     search reads with the node's record instead of after it (HnswIndex::kInlineRowBytes).
struct GraphRows {
  static constexpr std::uint32_t kRetiredRow = 0x80000000u;
  const VectorStore* store = nullptr;
  const std::vector<float>* retired = nullptr;
  // Floats of a row, in the store and in `retired` alike.
  std::size_t rowFloats = 0;
  bool inlined = false;
  const float* row(std::uint32_t reference) const {
    return (reference & kRetiredRow) != 0 ? retired->data() + static_cast<std::size_t>(reference & ~kRetiredRow) * rowFloats
                                          : store->rowData(reference);
  }
  // The row and the extra coordinate of a node's data, in either layout.
  const float* rowOfData(const void* data) const;
  float extraOfData(const void* data) const;
  // Bytes of a node's data.
  std::size_t dataBytes(bool euclidean) const {
    return inlined ? (rowFloats + (euclidean ? 1 : 0)) * sizeof(float) : sizeof(std::uint32_t) + (euclidean ? sizeof(float) : 0);
  }
};

// A referenced node's data: the reference and, in the euclidean reduction, the extra coordinate.
inline std::uint32_t nodeReference(const void* data) {
  std::uint32_t reference;
  std::memcpy(&reference, data, sizeof(reference));
  return reference;
}
inline float nodeExtra(const void* data) {
  float extra;
  std::memcpy(&extra, static_cast<const char*>(data) + sizeof(std::uint32_t), sizeof(extra));
  return extra;
}

inline const float* GraphRows::rowOfData(const void* data) const {
  return inlined ? static_cast<const float*>(data) : row(nodeReference(data));
}
inline float GraphRows::extraOfData(const void* data) const {
  if (!inlined) return nodeExtra(data);
  float extra;
  std::memcpy(&extra, static_cast<const char*>(data) + rowFloats * sizeof(float), sizeof(extra));
  return extra;
}

// An hnswlib 0.6.2 graph's memory as HierarchicalNSW lays it out (hnswalg.h), read-only. Per node
// in `level0`: a link-list header (count in the low 16 bits, the deleted mark in the third byte), up
// to maxM0 links (uint32), the node's data (GraphRows), then its label (the item's id, a size_t);
// per node above level 0, `upperLinks[node]` holds one header-and-links list of upperLinkBytes per
// layer 1..level. hnswlib 0.6.2's searchKnn takes no filter (0.7 added one), so the filtered search
// reads the graph here and never calls into hnswlib: only HnswIndex's sources include its header.
struct GraphLayout {
  const char* level0 = nullptr;
  std::size_t elementBytes = 0;
  std::size_t dataOffset = 0;
  std::size_t labelOffset = 0;
  const char* const* upperLinks = nullptr;
  std::size_t upperLinkBytes = 0;
  const int* levels = nullptr;
  std::size_t nodes = 0;
  std::uint32_t entry = 0;
  int maxLevel = -1;
  GraphRows rows;
  // Referenced layout: every node's reference and (euclidean) extra coordinate, as in its record,
  // when the graph keeps them densely (HnswIndex does); null to read the records (and inlined).
  const std::uint32_t* references = nullptr;
  const float* extras = nullptr;
  // The item's dimension: in the euclidean reduction the extra coordinate is its index `dim`.
  std::size_t dim = 0;
  // The distance of the graph's space: |x - q|^2 (the euclidean reduction) or 1 - <x, q>.
  bool euclidean = false;
  // Int8 storage: rows are codes (codeBytes) and a scale, queries quantised::graphVectorBytes(codeBytes)
  // bytes of codes, scale and extra coordinate, and distances those of quantised_rows.hpp; 0 for
  // float rows.
  std::size_t codeBytes = 0;
};

// Reads one byte at each end of `count` rows of `rowBytes` bytes and returns their sum, which the
// caller keeps (so that the compiler keeps the reads). wasm has no prefetch instruction: a graph
// search that scores a node's new neighbours one row after another waits for each row's cache miss
// in turn, where these reads, independent of each other, put all of them in flight at once and the
// scoring then finds the rows in cache (queries 0.86x the time in f32 and 0.70x in int8 at
// 10^6 x 16; bench/results/native-million.md). Longer rows get no more reads: the hardware
// prefetcher follows a row once it is read, and touching every line of 3 KB rows made
// Fashion-MNIST's searches slower.
inline std::uint32_t touchRows(const float* const* rows, std::size_t count, std::size_t rowBytes) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(rows[i]);
    sum += bytes[0] + bytes[rowBytes - 1];
  }
  return sum;
}

// The rows and extra coordinates of the nodes a search scores together, and the sum of the bytes
// touchRows read.
struct ScoringBuffers {
  std::vector<const float*> rows;
  std::vector<float> extras;
  std::uint32_t touched = 0;
};

// Best-first beam search over the graph in which every node may be traversed but only eligible
// ones (not deleted, label allowed, not excluded) enter the result set: the greedy descent through
// the upper layers as hnswlib's, then on layer 0 a beam of `ef` eligible nodes. Ineligible nodes still
// carry the search between eligible regions, which is what keeps recall when many items are filtered
// out; the beam stops, as hnswlib's, when the nearest unexpanded node is farther than the beam's
// worst and the beam is full, or once `maxEvaluations` distances are spent (a beam that cannot fill,
// because few items are eligible, would otherwise walk the whole graph: the caller's exact scan of the
// eligible items answers such searches better). Holds its visited marks between searches.
class FilteredGraphSearch {
 public:
  // The unfiltered search: hnswlib 0.6.2's searchKnn(query, k) with its beam at `ef`, step for step
  // (the same heaps with the same comparisons, so the same nodes on ties and the same distance
  // count), into buffers this object keeps: hnswlib allocates both heaps and the result's on every
  // query, locks its visited-list pool and calls the distance through a pointer, which in wasm cost
  // more than the search's own distances at small beams. `skipDeleted` is hnswlib's num_deleted_ != 0.
  // Returns the k nodes in the order searchKnn's result queue pops them (farthest first, ties by
  // larger label first); the view lasts until the next search.
  const std::vector<std::uint32_t>& nearest(const GraphLayout& graph, const float* query, std::size_t ef, std::size_t k,
                                            bool skipDeleted);
  // Whether nearest() over this graph keeps the inner products <row, query> of the nodes it returns
  // (foundScores): float rows in the inner-product space of at most kInterleavedRowsMaxStride floats,
  // where the graph distance 1 - <row, query> is computed from innerProduct's bits (lane_kernels.hpp),
  // so that the kept products are the bits an exact ranking of the same rows against the same padded
  // query computes. 1 - <x, q> itself cannot be turned back into <x, q> without rounding, and
  // longer rows are summed in another order (graphInnerProduct), euclidean graphs score distances
  // and 8-bit graphs codes: none of those keeps scores.
  static bool keepsScores(const GraphLayout& graph);
  // The inner products of the last nearest()'s nodes, in its order, when keepsScores(graph) held for
  // it; empty otherwise. The view lasts until the next search.
  const std::vector<float>& foundScores() const { return foundScores_; }
  // Up to `ef` eligible nodes nearest the query (a row padded for the store, or in int8 storage a
  // quantised graph query), nearest first. When the filter reads only one label a row
  // (Eligibility::byOneLabel), slotLabels[node] is the label of the item a live node holds; otherwise
  // (slotLabels null) rowOf(id) finds the row of a node's item, whose attributes are checked.
  std::vector<std::uint32_t> search(const GraphLayout& graph, const float* query, std::size_t ef, const Label* slotLabels,
                                    const std::function<std::size_t(Id)>& rowOf, const Eligibility& eligible,
                                    std::uint64_t maxEvaluations);
  // Distance computations of the last search.
  std::uint64_t evaluations() const { return evaluations_; }
  // Whether the last search stopped at maxEvaluations.
  bool exhausted() const { return exhausted_; }

 private:
  using Entry = std::pair<float, std::uint32_t>;  // (distance, node)
  // A beam entry of nearest() when it keeps scores: ordered by distance alone, as Entry, so the heaps
  // move the same entries; `score` is the node's inner product with the query. Searches that keep
  // none use Entry's smaller beam (a wider one in int8, moved about by every heap operation).
  struct Scored {
    float distance;
    std::uint32_t node;
    float score;
  };
  // Layer 0 of nearest() into `beam` (beam_, or scoredBeam_ to keep scores).
  template <bool Euclidean, bool SkipDeleted, class BeamEntry>
  void nearestOnLayer0(const GraphLayout& graph, const float* query, std::uint32_t entry, std::size_t ef, std::vector<BeamEntry>& beam);
  // The k nearest of `beam` into found_ (and foundScores_) in searchKnn's order.
  template <class BeamEntry>
  void takeNearest(const GraphLayout& graph, std::vector<BeamEntry>& beam, std::size_t k);
  // Starts a search: sizes the visited marks for the graph and moves to a fresh epoch.
  void beginSearch(std::size_t nodes);
  bool visit(std::uint32_t node);
  // Marks the unvisited neighbours in the link list at `header` visited and scores them together:
  // their nodes in fresh_, their distances in freshDistances_, counted; returns how many.
  std::size_t scoreUnvisited(const GraphLayout& graph, const float* query, const char* header);

  // The heaps of the last search, kept for their capacity.
  std::vector<Entry> frontier_;
  std::vector<Entry> beam_;
  std::vector<Scored> scoredBeam_;
  struct Labelled {
    float distance;
    std::size_t label;
    std::uint32_t node;
    float score;
  };
  std::vector<Labelled> labelled_;
  // A node's neighbours not yet visited and their distances, scored together (layer 0), and where
  // their rows are.
  std::vector<std::uint32_t> fresh_;
  ScoringBuffers scoring_;
  std::vector<float> freshDistances_;
  // Their inner products, while a search keeps scores (scoresKept_).
  std::vector<float> freshScores_;
  std::vector<std::uint32_t> found_;
  std::vector<float> foundScores_;
  bool scoresKept_ = false;

  // Visited marks: a node is visited in this search when its mark equals epoch_. 16 bits, as
  // hnswlib's: half the memory (and cache) of 32-bit marks, at the cost of clearing them once every
  // 65,535 searches.
  std::vector<std::uint16_t> visited_;
  std::uint16_t epoch_ = 0;
  std::uint64_t evaluations_ = 0;
  bool exhausted_ = false;
};

}  // namespace sublinear
