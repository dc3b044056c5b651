#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// A hierarchical navigable small-world graph (hnswlib's HierarchicalNSW, Malkov & Yashunin) over the
// items, in one of two spaces:
//   "inner-product": hnswlib's inner-product distance 1 - <x, q> directly.
//   "euclidean": the reduction of Bachrach et al. (paper 000, Appendix A.1). Every item x is stored as
//     (x, sqrt(R^2 - |x|^2)) and the query as (q, 0), so |x' - q'|^2 = R^2 + |q|^2 - 2<x, q>: the nearest
//     neighbour is the maximum inner product, in a true metric.
// Which one serves depends on the data, so the default, "auto", measures it: once the index holds
// 1,000 items it builds both graphs over a sample of up to 10,000 of them and keeps the space of
// higher recall@10 (stats().space, stats().spaceTrial). On Gaussian data (bench/mips.mjs) the
// inner-product graph finds more of the true top 10 than the reduction at the same efSearch (after
// the reduction every query (q, 0) is about R away from every item, so the greedy descent has little
// gradient to follow); on real image vectors (Fashion-MNIST, 60k x 784,
// nonnegative, all in one narrow cone) the inner-product graph funnels every search to a few
// large-norm hubs and the reduction wins (bench mips --real).
// Candidates come from searchKnn with ef = efSearch + count - 1 (count = max(k, shortlist)), so
// both knobs widen the search; the base class ranks them exactly.
//
// A changing set: removal marks the node deleted (hnswlib's markDelete) and frees its slot; the next
// addition takes a freed slot (new label, new vector, hnswlib's updatePoint relinks it), so the graph
// does not grow under add/remove cycles. When freed slots outnumber live items, or slots have been
// reused more often than there are live items (relinking can strand a few nodes), a compaction
// starts: a fresh successor graph of the stored items is built a few insertions per later call (4
// per item added, 2 per item removed, 1 per search) while the current graph keeps answering, and
// replaces it when complete. So no call pays for a whole rebuild (a pause long enough to notice),
// at the price of two graphs in memory while it runs. Capacity doubles with resizeIndex when full. In the
// euclidean space R starts at the largest norm of the first batch; an item beyond R triggers a rebuild
// with R = kNormHeadroom times the new largest norm, so R grows geometrically and rebuilds are rare
// (at most log_1.25 of the norms' dynamic range). Removals never shrink R.
class HnswIndex final : public MipsIndex {
 public:
  static constexpr double kNormHeadroom = 1.25;

  // Options: M (>= 2, default 16), efConstruction (>= 1, 200), efSearch (>= 1, 64), seed,
  // space ("inner-product" | "euclidean").
  HnswIndex(std::size_t dim, const Json& options);
  ~HnswIndex() override;
  std::string type() const override { return "hnsw"; }
  Json stats() const override;

 protected:
  void onAdd(const Id* ids, std::size_t count) override;
  void onRemove(const Id* ids, std::size_t count) override;
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  void saveStructure(StateWriter& out) const override;
  void loadStructure(StateReader& in) override;

 private:
  // hnswlib.h defines non-inline functions, so its types stay inside hnsw_index.cpp.
  struct Graph;

  // An empty graph with capacity for every stored item.
  std::unique_ptr<Graph> newGraph();
  // A fresh graph of every stored item (row order), at once: the first use, a new euclidean R.
  void rebuild();
  void ensureGraph();
  // Adds the work of a graph being dropped to the work counter.
  void retire(std::unique_ptr<Graph> graph);
  void startCompaction();
  // Up to `steps` insertions into the successor; swaps it in when every queued item is in it.
  void advanceCompaction(std::size_t steps);
  void insert(Graph& graph, Id id);
  void erase(Graph& graph, Id id);
  void setSpace(bool euclidean);
  // space "auto": builds both spaces' graphs over a sample of the items and keeps the one of higher
  // recall (see the constants in hnsw_index.cpp).
  void chooseSpace();
  // A graph's nodes (links per layer, labels, deleted marks and the vectors only deleted nodes
  // still hold), validated on load against the items and, for a successor, the current graph.
  void saveGraph(const Graph& graph, StateWriter& out) const;
  // queueLength: a successor's compaction queue, which its capacity was sized for.
  std::unique_ptr<Graph> loadGraph(StateReader& in, const Graph* current, std::size_t queueLength);
  // The item's vector in the graph's space (augmented in the euclidean space), in scratch_.
  const float* graphVector(const float* paddedItem);

  std::size_t M_;
  std::size_t efConstruction_;
  std::size_t efSearch_;
  std::uint64_t seed_;
  bool euclidean_ = false;
  bool spaceDecided_ = true;
  double innerProductTrialRecall_ = -1.0;
  double euclideanTrialRecall_ = -1.0;
  std::uint64_t trialEvaluations_ = 0;
  std::size_t graphStride_ = 0;
  // R of the euclidean reduction and the largest item norm seen so far (R >= kNormHeadroom * it).
  double transformNorm_ = 0.0;
  double largestNorm_ = 0.0;
  std::uint64_t graphsBuilt_ = 0;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t compactions_ = 0;
  std::uint64_t retiredEvaluations_ = 0;
  std::vector<float> scratch_;
  std::unique_ptr<Graph> graph_;
  // The compaction under way: the successor graph and the items it still has to take, in order.
  std::unique_ptr<Graph> successor_;
  std::vector<Id> successorQueue_;
  std::size_t successorNext_ = 0;
};

}  // namespace sublinear
