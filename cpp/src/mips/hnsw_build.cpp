// HnswIndex: the incremental build (a slice per search, or all at once), the space trial that picks
// the inner-product or the euclidean graph, and the parallel build.
#include "sublinear/mips/hnsw_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "hnsw_graph.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

using namespace hnsw_detail;

void HnswIndex::retire(std::unique_ptr<Graph> graph) {
  if (graph) retiredEvaluations_ += graph->evaluations();
}

void HnswIndex::startOver() {
  retire(std::move(graph_));
  retire(std::move(trialGraph_));
  trialTarget_ = 0;
  built_ = 0;
}

void HnswIndex::startGraph() {
  startOver();
  const std::size_t n = items_.size();
  if (!spaceDecided_ && n >= kGraphMinimum) {
    // The trial's euclidean graph needs an R for the items it will hold: the largest norm so far.
    transformNorm_ = largestNorm_ == 0.0 ? 1.0 : largestNorm_;
    trialTarget_ = std::min(kSpaceTrialItems, n - kSpaceTrialQueries);
    trialGraph_ = newGraph(true);
  } else if (euclidean_ && (transformNorm_ == 0.0 || largestNorm_ > transformNorm_)) {
    // The first R is the largest norm itself; later ones add headroom, so that restarts stay rare.
    transformNorm_ = largestNorm_ == 0.0 ? 1.0 : (transformNorm_ == 0.0 ? 1.0 : kNormHeadroom) * largestNorm_;
  }
  graph_ = newGraph(euclidean_);
}

double HnswIndex::buildStep() {
  const Id id = items_.idAt(built_);
  // The insertions' distance computations, each weighted by its graph's row length against the
  // store's (the euclidean reduction's extra coordinate makes its rows longer).
  const auto weighted = [this](const Graph& graph, std::uint64_t before) {
    return static_cast<double>(graph.evaluations() - before) * static_cast<double>(graph.space.stride()) /
           static_cast<double>(items_.stride());
  };
  double cost = 0.0;
  try {
    const std::uint64_t before = graph_->evaluations();
    insert(*graph_, id);
    cost += weighted(*graph_, before);
    if (trialGraph_) {
      const std::uint64_t trialBefore = trialGraph_->evaluations();
      insert(*trialGraph_, id);
      cost += weighted(*trialGraph_, trialBefore);
    }
  } catch (...) {
    // A graph that could not take an item (out of memory) is dropped whole: the items wait again
    // and searches stay exact, so graph and store never disagree.
    startOver();
    throw;
  }
  ++built_;
  if (trialGraph_ && (built_ >= trialTarget_ || built_ == items_.size())) decideSpace();
  return cost;
}

void HnswIndex::decideSpace() {
  spaceDecided_ = true;
  // Queries like the data (on isotropic data also like a linear bandit's random directions): the
  // waiting items after the trial's rows, each scored by recall@10 against the exact top 10 within
  // those rows. Deterministic: rows are in the order items came.
  const std::size_t queries = std::min(kSpaceTrialQueries, items_.size() - built_);
  std::vector<float> query(items_.queryStride(), 0.0f);
  const std::size_t top = std::min<std::size_t>(10, built_);
  // The beam the index's searches use (hnsw_index.hpp): the search's whose slice this is, or a
  // top-10 search's with at least the default efSearch when no search is running.
  const std::size_t beam = slicingSearchCount_ > 0 ? searchBeam(efSearch_, std::max(top, slicingSearchCount_))
                                                   : searchBeam(std::max(efSearch_, defaultEfSearch(dim())), top);
  double found[2] = {0.0, 0.0};
  double wanted = 0.0;
  for (std::size_t q = 0; q < queries; ++q) {
    items_.decode(built_ + q, query.data());
    TopK best(top);
    for (std::size_t row = 0; row < built_; ++row) best.push(items_.score(row, query.data()), items_.idAt(row));
    std::vector<Id> truth;
    for (const auto& entry : best.take()) truth.push_back(entry.second);
    Graph* graphs[2] = {graph_.get(), trialGraph_.get()};
    for (int g = 0; g < 2; ++g) {
      const float* graphQueryData = graphQuery(query.data());
      // hnswlib's searchKnn with that beam, as candidates() searches (hnswlib's own would read the
      // query as a node's data, which is a reference here).
      Graph& graph = *graphs[g];
      FilteredGraphSearch& search = searchScratch_.search;
      const auto& answer = search.nearest(graph.layout(), graphQueryData, beam, top, graph.hnsw.num_deleted_ != 0);
      graph.space.setEvaluations(graph.evaluations() + search.evaluations());
      for (const auto node : answer) {
        found[g] += std::count(truth.begin(), truth.end(), static_cast<Id>(graph.hnsw.getExternalLabel(node))) > 0 ? 1.0 : 0.0;
      }
    }
    wanted += static_cast<double>(top);
  }
  innerProductTrialRecall_ = wanted == 0.0 ? 1.0 : found[0] / wanted;
  euclideanTrialRecall_ = wanted == 0.0 ? 0.0 : found[1] / wanted;
  trialEvaluations_ = trialGraph_->evaluations();
  trialTarget_ = 0;
  // Ties go to the inner-product space: no extra coordinate and no restart when norms grow.
  if (euclideanTrialRecall_ > innerProductTrialRecall_ + kSpaceTrialMargin) {
    setSpace(true);
    retire(std::move(graph_));
    graph_ = std::move(trialGraph_);
    // Items added since the trial began may lie beyond its R: start over with a larger one.
    if (largestNorm_ > transformNorm_) {
      ++rebuilds_;
      startGraph();
    }
  } else {
    retire(std::move(trialGraph_));
  }
}

double HnswIndex::evaluationCost(double graphBytes) {
  if (graphBytes <= kCachedGraphBytes) return kEvaluationCost;
  return kEvaluationCost * (1.0 + kEvaluationCostGrowth * deterministic::log(graphBytes / kCachedGraphBytes) / deterministic::log(2.0));
}

double HnswIndex::currentEvaluationCost() const {
  // The memory a visit touches: hnswlib's base layer (links, the node's data and label of every
  // node) and the vector the node refers to.
  const auto bytes = [](const Graph* graph) {
    if (!graph) return 0.0;
    const double node = static_cast<double>(graph->hnsw.size_data_per_element_ - graph->hnsw.data_size_) +
                        static_cast<double>(graph->space.stride() * sizeof(float));
    return static_cast<double>(graph->hnsw.cur_element_count) * node;
  };
  return evaluationCost(bytes(graph_.get()) + bytes(trialGraph_.get()));
}

void HnswIndex::buildFor(double evaluations, std::size_t maxItems) {
  if (built_ == items_.size() || maxItems == 0) return;
  if (!graph_) startGraph();
  double spent = 0.0;
  for (std::size_t steps = 0; built_ < items_.size() && steps < maxItems && spent < evaluations; ++steps) spent += buildStep();
  compactIfStranded();
}

void HnswIndex::compactIfStranded() {
  // Relinking a reused node can strand nodes that were reachable only through its old links; after
  // as many reuses as nodes in use, start over with a fresh graph.
  if (graph_ && graph_->reused >= kCompactionFloor && graph_->reused > graph_->live()) {
    ++compactions_;
    startOver();
  }
}

std::size_t HnswIndex::buildInParallel(std::size_t maxItems, std::size_t threads) {
  if (built_ == items_.size() || maxItems == 0) return 0;
  if (!graph_) startGraph();
  std::size_t steps = trialGraph_ ? buildTrialInParallel(maxItems) : 0;
  // One thread: freed slots (updatePoint relinks a node that searches can reach, outside hnswlib's
  // insertion locks), the first kParallelSeed nodes (see there), and a space trial's last rows if
  // maxItems stopped it.
  while (steps < maxItems && built_ < items_.size() &&
         (trialGraph_ || !graph_->freeSlots.empty() || graph_->hnsw.cur_element_count < kParallelSeed)) {
    buildStep();
    ++steps;
  }
  const std::size_t count = std::min(maxItems - steps, items_.size() - built_);
  if (count < kParallelBatch) {
    buildFor(std::numeric_limits<double>::infinity(), count);
    return steps + count;
  }
  auto& hnsw = graph_->hnsw;
  std::atomic<std::uint64_t> evaluations{0};
  try {
    // resizeIndex reallocates what addPoint works in: the graph grows first, to hold the whole batch
    // (doubling, as insert() grows it).
    std::size_t capacity = hnsw.max_elements_;
    while (capacity < hnsw.cur_element_count + count) capacity *= 2;
    if (capacity != hnsw.max_elements_) hnsw.resizeIndex(capacity);
    // Levels in row order from the graph's generator, as insert() draws them one at a time: the
    // same levels whatever the thread count, and the generator where a one-thread build leaves it.
    std::vector<int> levels(count);
    for (int& level : levels) level = graph_->nextLevel();
    const std::size_t first = built_;
    // Each insertion writes its node's dense reference (referenced layout): room for the batch first.
    graph_->reserveReferences(hnsw.cur_element_count + count);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    // GraphInserter, as hnswlib 0.6.2's addPoint, takes a fresh slot and links it under the
    // per-node locks, so distinct new labels may be inserted concurrently; each thread has its own
    // inserter (its heaps and buffers) and counts its distances there.
    runInParallel(threads, [&] {
      GraphInserter inserter;
      std::vector<float> data(nodeDataFloats(graph_->space.rows()));
      try {
        for (std::size_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) {
          nodeData(*graph_, first + i, data.data());
          graph_->add(inserter, data.data(), items_.idAt(first + i), levels[i]);
        }
      } catch (...) {
        failed = true;
        evaluations += inserter.takeEvaluations();
        throw;
      }
      evaluations += inserter.takeEvaluations();
    });
  } catch (...) {
    // As buildStep: a graph that could not take the batch is dropped whole; its work still counts.
    graph_->space.setEvaluations(graph_->evaluations() + evaluations.load());
    startOver();
    throw;
  }
  graph_->space.setEvaluations(graph_->evaluations() + evaluations.load());
  built_ += count;
  compactIfStranded();
  return steps + count;
}

std::size_t HnswIndex::buildTrialInParallel(std::size_t maxItems) {
  const std::size_t count = std::min({maxItems, trialTarget_ - built_, items_.size() - built_});
  const std::size_t first = built_;
  Graph* graphs[2] = {graph_.get(), trialGraph_.get()};
  std::atomic<std::size_t> next{0};
  try {
    runInParallel(2, [&] {
      // Each thread takes a graph (the calling thread both, if no other started) and inserts the rows
      // in order, with its own buffer: the graphs a single thread would build.
      for (std::size_t g = next++; g < 2; g = next++) {
        std::vector<float> data(nodeDataFloats(graphs[g]->space.rows()));
        for (std::size_t row = first; row < first + count; ++row) insert(*graphs[g], items_.idAt(row), data.data());
      }
    });
  } catch (...) {
    startOver();
    throw;
  }
  built_ += count;
  if (built_ >= trialTarget_ || built_ == items_.size()) decideSpace();
  return count;
}

std::size_t HnswIndex::buildPending(std::size_t maxItems) {
  buildWaiting(maxItems);
  orderGraph();
  return items_.size() - built_;
}

void HnswIndex::buildWaiting(std::size_t maxItems) {
  const std::size_t threads = parallelism();
  if (threads > 1 && efConstruction_ * paddedDimension(dim()) >= kParallelWork) {
    buildInParallel(maxItems, threads);
  } else {
    buildFor(std::numeric_limits<double>::infinity(), maxItems);
  }
}

void HnswIndex::orderGraph() {
  if (!orderNodes_ || !graph_ || trialGraph_ || built_ != items_.size()) return;
  Graph& graph = *graph_;
  const std::size_t nodes = graph.hnsw.cur_element_count;
  if (nodes < kGraphMinimum || nodes < kOrderGrowth * graph.ordered) return;
  // Referenced, a search reads each visited node's row in the store: the built rows follow the
  // nodes' new order (live nodes only: a deleted node's row is a retired one), so the rows of the
  // neighbours a search scores together lie together too. Allocated first: nothing after the
  // renumbering allocates, so a failure leaves graph and store as they were.
  std::vector<std::size_t> target(graph.inlined() ? 0 : built_);
  graph.orderForLocality();
  if (graph.inlined()) return;
  const auto& hnsw = graph.hnsw;
  std::size_t next = 0;
  for (hnswlib::tableint node = 0; node < nodes; ++node) {
    if (!hnsw.isMarkedDeleted(node)) target[items_.rowOf(static_cast<Id>(hnsw.getExternalLabel(node)))] = next++;
  }
  for (std::size_t row = 0; row < built_; ++row) {
    while (target[row] != row) {
      const std::size_t to = target[row];
      swapRows(row, to);
      std::swap(target[row], target[to]);
    }
  }
  for (hnswlib::tableint node = 0; node < nodes; ++node) {
    if (!hnsw.isMarkedDeleted(node)) graph.setRow(node, items_.rowOf(static_cast<Id>(hnsw.getExternalLabel(node))));
  }
}

void HnswIndex::insert(Graph& graph, Id id) { insert(graph, id, scratch_.data()); }

void HnswIndex::insert(Graph& graph, Id id, float* buffer) {
  auto& hnsw = graph.hnsw;
  nodeData(graph, items_.rowOf(id), buffer);
  const float* vector = buffer;
  if (graph.freeSlots.empty()) {
    if (hnsw.cur_element_count >= hnsw.max_elements_) hnsw.resizeIndex(2 * hnsw.max_elements_);
    const std::size_t slot = hnsw.cur_element_count;
    graph.reserveReferences(slot + 1);
    graph.add(graph.inserter, vector, id, graph.nextLevel());
    graph.space.setEvaluations(graph.evaluations() + graph.inserter.takeEvaluations());
    if (graph.slotLabels.size() == slot) graph.slotLabels.push_back(labelOf(id));
    return;
  }
  // Reuse a deleted node: relabel it, clear the mark, and let updatePoint move it to the new vector
  // and relink its neighbourhood (what later hnswlib versions call replace_deleted).
  const hnswlib::tableint slot = graph.freeSlots.back();
  graph.freeSlots.pop_back();
  hnsw.label_lookup_[id] = slot;
  hnsw.setExternalLabel(slot, id);
  hnsw.unmarkDeletedInternal(slot);
  // The vector of the item the slot held is no longer needed once the new item's data is in place.
  graph.release(slot);
  hnsw.updatePoint(vector, slot, 1.0f);
  graph.syncReferences();
  if (!graph.inlined() && slot < graph.references.size()) {
    graph.references[slot] = nodeReference(vector);
    if (graph.euclidean) graph.extras[slot] = nodeExtra(vector);
  }
  if (slot < graph.slotLabels.size()) graph.slotLabels[slot] = labelOf(id);
  ++graph.reused;
}

void HnswIndex::erase(Graph& graph, Id id) {
  auto& hnsw = graph.hnsw;
  const auto found = hnsw.label_lookup_.find(id);
  const hnswlib::tableint slot = found->second;
  // The deleted node keeps steering searches with the item's vector, which leaves the store.
  graph.retire(slot, items_.vectorOf(id));
  hnsw.markDeletedInternal(slot);
  hnsw.label_lookup_.erase(found);
  graph.freeSlots.push_back(slot);
}

}  // namespace sublinear
