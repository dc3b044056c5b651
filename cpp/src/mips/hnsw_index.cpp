#include "sublinear/mips/hnsw_index.hpp"

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/core/random.hpp"

// hnswlib 0.6.2's SSE path prefetches *(links + j + 1) one entry past the end of a link list, an
// out-of-bounds read that AddressSanitizer reports on upper layers (fixed in later hnswlib). Its SIMD
// distance functions are not used here (PaddedSpace below), so the manual vectorisation goes, and
// the native build runs the same code as the wasm build, which has no SSE.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "sublinear/core/error.hpp"
#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

namespace {

struct DistanceParameter {
  std::size_t stride;
  std::uint64_t evaluations;  // distance computations, the index's work counter
};

// The threads of a parallel build count their distance computations here, each its own, and add them
// to the graph's counter when they finish (CountedThread): one shared counter would be a data race,
// or, atomic, a cache line contended on every computation. The totals stay exact.
thread_local std::uint64_t* threadEvaluations = nullptr;

void countEvaluation(DistanceParameter* p) { ++(threadEvaluations != nullptr ? *threadEvaluations : p->evaluations); }

class CountedThread {
 public:
  explicit CountedThread(std::atomic<std::uint64_t>& total) : total_(total) { threadEvaluations = &counted_; }
  ~CountedThread() {
    threadEvaluations = nullptr;
    total_ += counted_;
  }
  CountedThread(const CountedThread&) = delete;
  CountedThread& operator=(const CountedThread&) = delete;

 private:
  std::atomic<std::uint64_t>& total_;
  std::uint64_t counted_ = 0;
};

float innerProductDistance(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  countEvaluation(p);
  return 1.0f - lanes::innerProduct(static_cast<const float*>(a), static_cast<const float*>(b), p->stride);
}

float euclideanDistance(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  countEvaluation(p);
  return lanes::squaredDistance(static_cast<const float*>(a), static_cast<const float*>(b), p->stride);
}

// hnswlib's two spaces (InnerProductSpace: 1 - <a, b>; L2Space: |a - b|^2) over zero-padded rows,
// computed with the project's kernels: hnswlib's own functions are SSE/AVX natively but scalar in
// wasm, and these give wasm SIMD and the same bits in both builds.
class PaddedSpace final : public hnswlib::SpaceInterface<float> {
 public:
  PaddedSpace(std::size_t stride, bool euclidean) : parameter_{stride, 0}, euclidean_(euclidean) {}
  std::size_t get_data_size() override { return parameter_.stride * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return euclidean_ ? &euclideanDistance : &innerProductDistance; }
  void* get_dist_func_param() override { return &parameter_; }
  std::uint64_t evaluations() const { return parameter_.evaluations; }
  std::size_t stride() const { return parameter_.stride; }
  void setEvaluations(std::uint64_t evaluations) { parameter_.evaluations = evaluations; }

 private:
  DistanceParameter parameter_;
  bool euclidean_;
};

double squaredNorm(const float* vector, std::size_t dim) {
  double sum = 0.0;
  for (std::size_t i = 0; i < dim; ++i) sum += static_cast<double>(vector[i]) * vector[i];
  return sum;
}

constexpr std::size_t kMinimumCapacity = 16;
// space "auto": the trial builds both spaces' graphs over the first rows, up to kSpaceTrialItems,
// searches them for the next kSpaceTrialQueries waiting items with the index's own beam for a top
// 10, and keeps the euclidean reduction only when its recall is higher by more than
// kSpaceTrialMargin. Smaller trials mislead: on Fashion-MNIST (60k x 784) a 2,000-item trial, or a
// 10,000-item one with a beam of 10, favoured the inner-product graph, although over all 60,000
// items the reduction finds far more of the true top 10.
constexpr std::size_t kSpaceTrialItems = 10000;
constexpr std::size_t kSpaceTrialQueries = 64;
constexpr double kSpaceTrialMargin = 0.02;
// Below this many freed slots a compaction is not worth it.
constexpr std::size_t kCompactionFloor = 64;
// A bulk build of fewer rows stays on one thread: an add() of a few items to an immediate index
// would spend more on starting threads (a Worker's message round trip in wasm) than they save.
constexpr std::size_t kParallelBatch = 64;
// A graph whose insertions are cheap stays on one thread: efConstruction times the row length (a
// rough cost of one insertion's searches) must reach this: in wasm 2 threads gained nothing at
// 128 x 16 and lost below (bench/results/design-measurements.md). The threads pay for every lock they
// share (hnswlib's per-node locks, and most likely the allocator's one lock: hnswlib allocates its
// search queues on every insertion), and in wasm a wait for a lock costs far more than natively, so
// the lighter the insertion, the more of it is waiting.
constexpr std::size_t kParallelWork = 3200;
// A filtered beam's distance computation costs about this many rows of the exhaustive scan (a random
// access to a node, heap updates and the visited marks, against the scan's stream;
// bench/results/filters.md). A beam that has spent what the exact scan of the eligible items would
// cost gives up for that scan: where the crossover misjudged (labels that cluster away from the
// query make a beam wander further than beam / f), a search costs at most twice the scan.
constexpr double kSearchEvaluationRows = 24.0;

}  // namespace

struct HnswIndex::Graph {
  Graph(std::size_t stride, bool euclideanSpace, std::size_t capacity, std::size_t M, std::size_t efConstruction,
        std::uint64_t seed)
      : space(stride, euclideanSpace),
        hnsw(&space, capacity, M, efConstruction, static_cast<std::size_t>(seed)),
        levels(seed),
        levelScale(1.0 / deterministic::log(static_cast<double>(M))),
        euclidean(euclideanSpace) {
    // hnswlib draws node levels with std::uniform_real_distribution, whose numbers differ between
    // libstdc++ (native) and libc++ (wasm). With its multiplier at zero its own draw is always
    // level 0, and nextLevel() supplies the level instead, the same in every build.
    hnsw.mult_ = 0.0;
  }
  // The level of a new node: floor(-ln(U) / ln(M)), hnswlib's distribution from our engine.
  int nextLevel() { return static_cast<int>(-deterministic::log(1.0 - levels.uniform()) * levelScale); }
  std::uint64_t evaluations() const { return space.evaluations(); }
  PaddedSpace space;
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
  std::size_t live() const { return hnsw.label_lookup_.size(); }
};

namespace {
// hnswlib keeps a node's link count in the low 16 bits of its list header and the deleted mark in
// the third byte (hnswalg.h); upper-layer lists are allocated as in addPoint.
using LinkHeader = hnswlib::linklistsizeint;
constexpr int kMaxLevel = 64;  // levels are floor(-ln U / ln M) <= 53 / log2(M) for a double U

void writeLinks(StateWriter& out, const LinkHeader* list, unsigned short count) {
  out.u32(count);
  const auto* links = reinterpret_cast<const hnswlib::tableint*>(list + 1);
  for (unsigned short j = 0; j < count; ++j) out.u32(links[j]);
}
}  // namespace

void HnswIndex::saveGraph(const Graph& graph, StateWriter& out) const {
  const auto& hnsw = graph.hnsw;
  out.u64(hnsw.max_elements_);
  out.u64(hnsw.cur_element_count);
  out.u32(static_cast<std::uint32_t>(hnsw.maxlevel_ + 1));
  out.u32(hnsw.enterpoint_node_);
  out.random(graph.levels);
  out.u64(graph.reused);
  out.u64(graph.evaluations());
  out.u32s(graph.freeSlots.data(), graph.freeSlots.size());
  const std::size_t floats = hnsw.data_size_ / sizeof(float);
  for (hnswlib::tableint node = 0; node < hnsw.cur_element_count; ++node) {
    out.u32(static_cast<Id>(hnsw.getExternalLabel(node)));
    const bool deleted = hnsw.isMarkedDeleted(node);
    out.u8(deleted ? 1 : 0);
    const int level = hnsw.element_levels_[node];
    out.u32(static_cast<std::uint32_t>(level));
    for (int layer = 0; layer <= level; ++layer) {
      const LinkHeader* list = hnsw.get_linklist_at_level(node, layer);
      writeLinks(out, list, hnsw.getListCount(const_cast<LinkHeader*>(list)));
    }
    // A live node's vector is its item's, mapped into the graph's space: recomputed on load. A
    // deleted node keeps steering searches with the vector of the item it once held, which only
    // the graph still has.
    if (deleted) {
      const auto* vector = reinterpret_cast<const float*>(hnsw.getDataByInternalId(node));
      for (std::size_t i = 0; i < floats; ++i) out.f32(vector[i]);
    }
  }
}

std::unique_ptr<HnswIndex::Graph> HnswIndex::loadGraph(StateReader& in, bool euclidean) {
  // Everything is read and checked before the graph is touched, so a rejected state frees cleanly.
  const std::uint64_t savedCapacity = in.u64();
  const std::size_t nodes = in.count(4 + 1 + 4 + 4);
  const int maxLevel = static_cast<int>(in.u32()) - 1;
  const hnswlib::tableint entry = in.u32();
  in.check(nodes <= std::numeric_limits<hnswlib::tableint>::max() / 2 && savedCapacity >= nodes, "graph capacity is below its node count");
  in.check(maxLevel >= -1 && maxLevel <= kMaxLevel, "graph level out of range");
  in.check(nodes == 0 ? maxLevel == -1 : entry < nodes, "graph entry point out of range");
  Random levels(0);
  in.random(levels);
  const std::uint64_t reused = in.u64();
  const std::uint64_t evaluations = in.u64();
  const std::vector<std::uint32_t> freeSlots = in.u32s();

  const std::size_t maxM = M_, maxM0 = 2 * M_;
  const std::size_t floats = paddedDimension(dim() + (euclidean ? 1 : 0));
  std::vector<Id> labels(nodes);
  std::vector<std::uint8_t> deleted(nodes);
  std::vector<int> nodeLevels(nodes);
  std::vector<std::uint32_t> linkCounts;  // per node and layer, in order
  std::vector<hnswlib::tableint> links;
  std::vector<float> deletedVectors;
  for (std::size_t node = 0; node < nodes; ++node) {
    labels[node] = in.u32();
    deleted[node] = in.u8();
    in.check(deleted[node] <= 1, "bad deleted mark");
    const std::uint32_t level = in.u32();
    in.check(static_cast<int>(level) <= maxLevel, "node level above the graph's");
    nodeLevels[node] = static_cast<int>(level);
    for (std::uint32_t layer = 0; layer <= level; ++layer) {
      const std::size_t count = in.u32();
      in.check(count <= (layer == 0 ? maxM0 : maxM), "too many links");
      linkCounts.push_back(static_cast<std::uint32_t>(count));
      for (std::size_t j = 0; j < count; ++j) links.push_back(in.u32());
    }
    if (deleted[node]) {
      in.check(in.remaining() / sizeof(float) >= floats, "payload ends early");
      for (std::size_t i = 0; i < floats; ++i) {
        const float value = in.f32();
        in.check(std::isfinite(value), "a deleted node's vector is not finite");
        deletedVectors.push_back(value);
      }
    }
  }
  if (nodes > 0) in.check(nodeLevels[entry] == maxLevel, "the entry point is not on the top layer");
  // Links point at nodes that exist on their layer (searches read the target's list there).
  {
    std::size_t at = 0, list = 0;
    for (std::size_t node = 0; node < nodes; ++node) {
      for (int layer = 0; layer <= nodeLevels[node]; ++layer, ++list) {
        for (std::uint32_t j = 0; j < linkCounts[list]; ++j, ++at) {
          in.check(links[at] < nodes && nodeLevels[links[at]] >= layer, "a link points outside its layer");
        }
      }
    }
  }
  // Deleted nodes are exactly the free slots; live labels are the items of the first built_ rows,
  // each once.
  std::size_t deletedCount = 0;
  for (const auto mark : deleted) deletedCount += mark;
  in.check(freeSlots.size() == deletedCount, "free slots do not match the deleted nodes");
  {
    std::vector<std::uint8_t> seen(nodes, 0);
    for (const auto slot : freeSlots) {
      in.check(slot < nodes && deleted[slot] && !seen[slot], "a free slot is not a deleted node");
      seen[slot] = 1;
    }
  }
  std::unordered_map<hnswlib::labeltype, hnswlib::tableint> lookup;
  lookup.reserve(nodes - deletedCount);
  for (std::size_t node = 0; node < nodes; ++node) {
    if (deleted[node]) continue;
    in.check(items_.contains(labels[node]) && items_.rowOf(labels[node]) < built_, "a graph node holds an item outside the built rows");
    in.check(lookup.emplace(labels[node], static_cast<hnswlib::tableint>(node)).second, "an item is in a graph twice");
  }
  in.check(lookup.size() == built_, "the graph does not hold every built row");

  // A graph is sized for the store when started and doubles when full: its capacity is at most
  // twice its nodes or the store. Anything larger would allocate more than the input describes.
  const std::size_t bound = std::max(kMinimumCapacity, 2 * std::max(nodes, items_.size()));
  in.check(savedCapacity <= bound, "graph capacity beyond what its nodes need");
  const auto capacity = static_cast<std::size_t>(savedCapacity);
  auto graph = std::make_unique<Graph>(floats, euclidean, capacity, M_, efConstruction_, 0);
  graph->levels = levels;
  graph->reused = static_cast<std::size_t>(reused);
  graph->space.setEvaluations(evaluations);
  graph->freeSlots.assign(freeSlots.begin(), freeSlots.end());
  auto& hnsw = graph->hnsw;
  std::size_t at = 0, list = 0, vectorAt = 0;
  for (std::size_t node = 0; node < nodes; ++node) {
    const auto slot = static_cast<hnswlib::tableint>(node);
    char* data = hnsw.data_level0_memory_ + node * hnsw.size_data_per_element_;
    std::memset(data, 0, hnsw.size_data_per_element_);
    const float* vector = deleted[node] ? deletedVectors.data() + (vectorAt++) * floats : graphVector(items_.vectorOf(labels[node]), euclidean);
    std::memcpy(data + hnsw.offsetData_, vector, hnsw.data_size_);
    const int level = nodeLevels[node];
    hnsw.element_levels_[node] = level;
    if (level > 0) {
      // As addPoint allocates them; the destructor frees the lists of nodes below cur_element_count.
      hnsw.linkLists_[node] = static_cast<char*>(std::malloc(hnsw.size_links_per_element_ * level + 1));
      if (hnsw.linkLists_[node] == nullptr) throw std::bad_alloc();
      std::memset(hnsw.linkLists_[node], 0, hnsw.size_links_per_element_ * level + 1);
    }
    for (int layer = 0; layer <= level; ++layer, ++list) {
      LinkHeader* header = hnsw.get_linklist_at_level(slot, layer);
      hnsw.setListCount(header, static_cast<unsigned short>(linkCounts[list]));
      auto* target = reinterpret_cast<hnswlib::tableint*>(header + 1);
      for (std::uint32_t j = 0; j < linkCounts[list]; ++j) target[j] = links[at++];
    }
    hnsw.setExternalLabel(slot, labels[node]);
    hnsw.cur_element_count = node + 1;
    if (deleted[node]) hnsw.markDeletedInternal(slot);
  }
  hnsw.label_lookup_ = std::move(lookup);
  hnsw.maxlevel_ = maxLevel;
  hnsw.enterpoint_node_ = nodes == 0 ? static_cast<hnswlib::tableint>(-1) : entry;
  return graph;
}


void HnswIndex::saveStructure(StateWriter& out) const {
  out.u8(euclidean_ ? 1 : 0);
  out.u8(spaceDecided_ ? 1 : 0);
  out.f64(innerProductTrialRecall_);
  out.f64(euclideanTrialRecall_);
  out.u64(trialEvaluations_);
  out.f64(transformNorm_);
  out.f64(largestNorm_);
  out.u64(graphsBuilt_);
  out.u64(rebuilds_);
  out.u64(compactions_);
  out.u64(retiredEvaluations_);
  out.u64(built_);
  out.u64(trialTarget_);
  out.u8(graph_ ? 1 : 0);
  if (graph_) saveGraph(*graph_, out);
  out.u8(trialGraph_ ? 1 : 0);
  if (trialGraph_) saveGraph(*trialGraph_, out);
}

void HnswIndex::loadStructure(StateReader& in) {
  if (size() > 0) makeScratch();
  const std::uint8_t euclidean = in.u8();
  const std::uint8_t decided = in.u8();
  in.check(euclidean <= 1 && decided <= 1 && (decided == 1 || spaceDecided_ == false), "bad space flags");
  // A space given in the options stays that space.
  in.check(!spaceDecided_ || (euclidean == 1) == euclidean_, "the saved space contradicts the options");
  setSpace(euclidean == 1);
  spaceDecided_ = decided == 1;
  innerProductTrialRecall_ = in.f64();
  euclideanTrialRecall_ = in.f64();
  trialEvaluations_ = in.u64();
  transformNorm_ = in.f64();
  largestNorm_ = in.f64();
  in.check(std::isfinite(transformNorm_) && transformNorm_ >= 0.0 && std::isfinite(largestNorm_) && largestNorm_ >= 0.0,
           "bad norms");
  graphsBuilt_ = in.u64();
  rebuilds_ = in.u64();
  compactions_ = in.u64();
  retiredEvaluations_ = in.u64();
  const std::uint64_t built = in.u64();
  const std::uint64_t trialTarget = in.u64();
  in.check(built <= items_.size(), "more built rows than items");
  in.check(trialTarget <= kSpaceTrialItems, "space trial size out of range");
  built_ = static_cast<std::size_t>(built);
  trialTarget_ = static_cast<std::size_t>(trialTarget);
  const std::uint8_t hasGraph = in.u8();
  in.check(hasGraph <= 1 && (hasGraph == 1 || built_ == 0), "bad graph flag");
  if (hasGraph) graph_ = loadGraph(in, euclidean_);
  const std::uint8_t hasTrial = in.u8();
  // The trial runs beside an inner-product graph while the space is undecided, and ends by its size.
  in.check(hasTrial <= 1 && (hasTrial == 1) == (trialTarget_ > 0), "bad space trial flag");
  in.check(hasTrial == 0 || (hasGraph == 1 && !spaceDecided_ && !euclidean_ && built_ < trialTarget_), "bad space trial state");
  if (hasTrial) trialGraph_ = loadGraph(in, true);
}

HnswIndex::HnswIndex(std::size_t dim, const Json& options) : MipsIndex(dim) {
  const OptionGroup& specs = option_groups::hnsw();
  M_ = static_cast<std::size_t>(readIntegerOption(specs, options, "M"));
  efConstruction_ = static_cast<std::size_t>(readIntegerOption(specs, options, "efConstruction"));
  efSearch_ = static_cast<std::size_t>(readIntegerOption(specs, options, "efSearch"));
  seed_ = readSeedOption(specs, options);
  const std::string space = readStringOption(specs, options, "space");
  incremental_ = readStringOption(specs, options, "build") == "incremental";
  buildCredit_ = readOption(specs, options, "buildCredit");
  filterCrossover_ = readOption(specs, options, "filterCrossover");
  spaceDecided_ = space != "auto";
  setSpace(space == "euclidean");
}

void HnswIndex::makeScratch() {
  if (scratch_.empty()) scratch_.assign(graphStride(), 0.0f);
}

HnswIndex::~HnswIndex() = default;

void HnswIndex::setSpace(bool euclidean) { euclidean_ = euclidean; }

const float* HnswIndex::graphVector(const float* paddedItem, bool euclidean) {
  graphVector(paddedItem, euclidean, scratch_.data());
  return scratch_.data();
}

void HnswIndex::graphVector(const float* paddedItem, bool euclidean, float* out) const {
  std::copy(paddedItem, paddedItem + dim(), out);
  std::fill(out + dim(), out + graphStride(), 0.0f);
  if (euclidean) {
    const double slack = transformNorm_ * transformNorm_ - squaredNorm(paddedItem, dim());
    out[dim()] = static_cast<float>(std::sqrt(std::max(0.0, slack)));
  }
}

std::unique_ptr<HnswIndex::Graph> HnswIndex::newGraph(bool euclidean) {
  const std::size_t capacity = std::max(kMinimumCapacity, items_.size());
  // A different hnswlib seed per graph, still determined by the index's seed.
  auto graph = std::make_unique<Graph>(paddedDimension(dim() + (euclidean ? 1 : 0)), euclidean, capacity, M_, efConstruction_,
                                       seed_ + graphsBuilt_);
  ++graphsBuilt_;
  return graph;
}

std::uint64_t HnswIndex::distanceComputations() const {
  return retiredEvaluations_ + (graph_ ? graph_->evaluations() : 0) + (trialGraph_ ? trialGraph_->evaluations() : 0);
}

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
  const std::size_t stride = items_.stride();
  const std::size_t queries = std::min(kSpaceTrialQueries, items_.size() - built_);
  const std::size_t top = std::min<std::size_t>(10, built_);
  double found[2] = {0.0, 0.0};
  double wanted = 0.0;
  for (std::size_t q = 0; q < queries; ++q) {
    const float* query = items_.rowData(built_ + q);
    TopK best(top);
    for (std::size_t row = 0; row < built_; ++row) best.push(lanes::innerProduct(items_.rowData(row), query, stride), items_.idAt(row));
    std::vector<Id> truth;
    for (const auto& entry : best.take()) truth.push_back(entry.second);
    Graph* graphs[2] = {graph_.get(), trialGraph_.get()};
    for (int g = 0; g < 2; ++g) {
      std::copy(query, query + dim(), scratch_.begin());
      std::fill(scratch_.begin() + static_cast<std::ptrdiff_t>(dim()), scratch_.end(), 0.0f);
      graphs[g]->hnsw.setEf(efSearch_ + top - 1);  // as candidates() for a top 10
      auto answer = graphs[g]->hnsw.searchKnn(scratch_.data(), top);
      for (; !answer.empty(); answer.pop()) found[g] += std::count(truth.begin(), truth.end(), answer.top().second) > 0 ? 1.0 : 0.0;
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
  // hnswlib's base layer: links, vector and label of every node, the memory a visit touches.
  const auto bytes = [](const Graph* graph) {
    return graph ? static_cast<double>(graph->hnsw.cur_element_count) * static_cast<double>(graph->hnsw.size_data_per_element_) : 0.0;
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
    const bool euclidean = graph_->euclidean;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    // hnswlib 0.6.2's addPoint takes a fresh slot and links it under its own per-node locks, so
    // distinct new labels may be inserted concurrently. It also draws from its own level generator
    // unlocked; with mult_ = 0 (see Graph) that draw is discarded, so the race cannot change a level.
    runInParallel(threads, [&] {
      CountedThread counting(evaluations);
      std::vector<float> vector(graphStride());
      try {
        for (std::size_t i = next++; i < count && !failed.load(std::memory_order_relaxed); i = next++) {
          graphVector(items_.rowData(first + i), euclidean, vector.data());
          hnsw.addPoint(vector.data(), items_.idAt(first + i), levels[i]);
        }
      } catch (...) {
        failed = true;
        throw;
      }
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
      std::vector<float> vector(graphStride());
      for (std::size_t g = next++; g < 2; g = next++) {
        for (std::size_t row = first; row < first + count; ++row) insert(*graphs[g], items_.idAt(row), vector.data());
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
  const std::size_t threads = parallelism();
  if (threads > 1 && efConstruction_ * items_.stride() >= kParallelWork) {
    buildInParallel(maxItems, threads);
  } else {
    buildFor(std::numeric_limits<double>::infinity(), maxItems);
  }
  return items_.size() - built_;
}

void HnswIndex::insert(Graph& graph, Id id) { insert(graph, id, scratch_.data()); }

void HnswIndex::insert(Graph& graph, Id id, float* buffer) {
  auto& hnsw = graph.hnsw;
  graphVector(items_.vectorOf(id), graph.euclidean, buffer);
  const float* vector = buffer;
  if (graph.freeSlots.empty()) {
    if (hnsw.cur_element_count >= hnsw.max_elements_) hnsw.resizeIndex(2 * hnsw.max_elements_);
    const std::size_t slot = hnsw.cur_element_count;
    hnsw.addPoint(vector, id, graph.nextLevel());
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
  hnsw.updatePoint(vector, slot, 1.0f);
  if (slot < graph.slotLabels.size()) graph.slotLabels[slot] = labelOf(id);
  ++graph.reused;
}

void HnswIndex::erase(Graph& graph, Id id) {
  auto& hnsw = graph.hnsw;
  const auto found = hnsw.label_lookup_.find(id);
  const hnswlib::tableint slot = found->second;
  hnsw.markDeletedInternal(slot);
  hnsw.label_lookup_.erase(found);
  graph.freeSlots.push_back(slot);
}

void HnswIndex::onAdd(const Id* ids, std::size_t count) {
  makeScratch();
  double batchNorm = 0.0;
  for (std::size_t i = 0; i < count; ++i) batchNorm = std::max(batchNorm, std::sqrt(squaredNorm(items_.vectorOf(ids[i]), dim())));
  largestNorm_ = std::max(largestNorm_, batchNorm);
  // New items wait in the rows after the built ones. The euclidean reduction needs R >= every norm:
  // a larger item means a new R and a new graph.
  if (graph_ && euclidean_ && batchNorm > transformNorm_) {
    ++rebuilds_;
    startOver();
  }
  // An immediate graph started before the index was large enough for the space trial starts over
  // with it.
  if (graph_ && !spaceDecided_ && !trialGraph_ && items_.size() >= kGraphMinimum) startOver();
  if (!incremental_) buildPending(items_.size());
}

void HnswIndex::onRemove(const Id* ids, std::size_t count) {
  if (!graph_) return;
  if (count == items_.size()) {
    // Emptied: drop the graphs rather than keep deleted nodes (and hnswlib's fixed 1.5 MiB of
    // locks) for items that are gone.
    startOver();
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!graph_->holds(ids[i])) continue;
    erase(*graph_, ids[i]);
    if (trialGraph_) erase(*trialGraph_, ids[i]);
    // Keep the built rows a prefix: the removed item moves to the first waiting row's place, where
    // the store fills its hole with a row from the end, which waits too.
    swapRows(items_.rowOf(ids[i]), built_ - 1);
    --built_;
  }
  if (graph_->freeSlots.size() >= kCompactionFloor && graph_->freeSlots.size() > graph_->live()) {
    ++compactions_;
    startOver();
    return;
  }
  // A graph is sized for the store when started; when the store shrinks to less than half of it,
  // fit it, so that memory (and a saved graph's capacity) stays within twice what is held.
  const std::size_t remaining = items_.size() - count;
  for (Graph* graph : {graph_.get(), trialGraph_.get()}) {
    if (graph == nullptr) continue;
    const std::size_t needed = std::max({kMinimumCapacity, graph->hnsw.cur_element_count, remaining});
    if (graph->hnsw.max_elements_ > 2 * needed) graph->hnsw.resizeIndex(needed);
  }
}

bool HnswIndex::scanIsCheaper(std::size_t count) const {
  // A search's beam holds efSearch + count - 1 candidates and visits up to 2M neighbours of each.
  const double visits = static_cast<double>(efSearch_ + count - 1) * 2.0 * static_cast<double>(M_);
  return static_cast<double>(items_.size()) < kScanRowsPerSearchVisit * visits;
}

std::vector<Id> HnswIndex::candidates(const float* paddedQuery, std::size_t count) {
  return graphCandidates(paddedQuery, count, nullptr);
}

std::vector<Id> HnswIndex::filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) {
  // Few eligible items: scoring them all costs less than a beam that wanders past the others to
  // fill (about beam / fraction visits, filterCrossover scan rows per beam entry at fraction 1).
  const double beam = static_cast<double>(efSearch_ + count - 1);
  if (eligibleScanRows(eligible) <= filterCrossover_ * beam / eligible.fraction()) return scanEligible(paddedQuery, count, eligible);
  return graphCandidates(paddedQuery, count, &eligible);
}

std::vector<Id> HnswIndex::filteredGraphSearch(std::size_t ef, const Eligibility& eligible, double& evaluations, bool& exhausted) {
  Graph& graph = *graph_;
  auto& hnsw = graph.hnsw;
  // Slot labels after a parallel build or a load: once, from the items the live nodes hold.
  if (graph.slotLabels.size() != hnsw.cur_element_count) {
    graph.slotLabels.assign(hnsw.cur_element_count, 0);
    for (hnswlib::tableint node = 0; node < hnsw.cur_element_count; ++node) {
      if (!hnsw.isMarkedDeleted(node)) graph.slotLabels[node] = labelOf(static_cast<Id>(hnsw.getExternalLabel(node)));
    }
  }
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
  layout.stride = graph.space.stride();
  layout.euclidean = graph.euclidean;
  // A beam that has spent the exact scan's cost of the eligible items gives up (exhausted): the
  // caller scans them instead.
  const double budget = eligibleScanRows(eligible) / kSearchEvaluationRows;
  const auto nodes = filteredSearch_.search(layout, scratch_.data(), ef, graph.slotLabels.data(), eligible,
                                            static_cast<std::uint64_t>(std::max(budget, 64.0)));
  evaluations = static_cast<double>(filteredSearch_.evaluations());
  graph.space.setEvaluations(graph.evaluations() + filteredSearch_.evaluations());
  exhausted = filteredSearch_.exhausted();
  std::vector<Id> ids;
  ids.reserve(nodes.size());
  for (const auto node : nodes) ids.push_back(static_cast<Id>(hnsw.getExternalLabel(node)));
  return ids;
}

std::vector<Id> HnswIndex::graphCandidates(const float* paddedQuery, std::size_t count, const Eligibility* eligible) {
  makeScratch();
  // An immediate graph dropped by a removal (a compaction, a new R) is built again before it answers.
  if (!incremental_) buildPending(items_.size());
  const std::size_t n = items_.size();
  std::vector<Id> ids;
  double searchEvaluations = 0.0;
  if (incremental_ && built_ < n && scanIsCheaper(count)) {
    return eligible ? scanEligible(paddedQuery, count, *eligible) : scan(paddedQuery, std::min(count, n), 0);
  }
  if (built_ > 0) {
    auto& hnsw = graph_->hnsw;
    // The query of the euclidean reduction is (q, 0): the padding is already zero.
    std::copy(paddedQuery, paddedQuery + dim(), scratch_.begin());
    std::fill(scratch_.begin() + static_cast<std::ptrdiff_t>(dim()), scratch_.end(), 0.0f);
    // The beam holds efSearch candidates beyond the `count` asked for (searchKnn would use
    // max(ef, count)): so a longer shortlist always means a wider search.
    if (eligible) {
      bool exhausted = false;
      ids = filteredGraphSearch(efSearch_ + count - 1, *eligible, searchEvaluations, exhausted);
      countInnerProducts(searchEvaluations);
      if (exhausted) return scanEligible(paddedQuery, count, *eligible);
      if (ids.size() > count) ids.resize(count);
    } else {
      hnsw.setEf(efSearch_ + count - 1);
      const std::uint64_t before = graph_->evaluations();
      auto found = hnsw.searchKnn(scratch_.data(), std::min(count, built_));
      searchEvaluations = static_cast<double>(graph_->evaluations() - before);
      countInnerProducts(searchEvaluations);
      ids.reserve(found.size() + count);
      for (; !found.empty(); found.pop()) ids.push_back(static_cast<Id>(found.top().second));
    }
  }
  if (built_ == n) return ids;
  // The waiting rows, exactly.
  const std::size_t first = built_;
  std::vector<Id> waiting;
  const auto scanWaiting = [&] {
    waiting = eligible ? scanEligible(paddedQuery, count, *eligible, first) : scan(paddedQuery, std::min(count, n - first), first);
  };
  // The credit: what the rest of (1 + buildCredit) scans of the store leaves after this search.
  const double cost = currentEvaluationCost();
  const double credit = (1.0 + buildCredit_) * static_cast<double>(n) - (static_cast<double>(n - first) + cost * searchEvaluations);
  if (incremental_ && n >= kGraphMinimum && credit > 0.0) {
    // The scan reads the waiting rows and the store's counters; the slice reads the same rows and
    // writes only the graphs (and scratch_, which the scan does not use): with a helper thread the
    // two run at once, and the call takes about the longer of them rather than their sum. The graph
    // and the answer are those of one thread.
    runSideBySide(scanWaiting, [&] { buildFor(credit / cost, n); });
  } else {
    scanWaiting();
  }
  ids.insert(ids.end(), waiting.begin(), waiting.end());
  return ids;
}

Json HnswIndex::stats() const {
  Json result = MipsIndex::stats();
  result["space"] = euclidean_ ? "euclidean" : "inner-product";
  result["M"] = M_;
  result["efConstruction"] = efConstruction_;
  result["efSearch"] = efSearch_;
  result["build"] = incremental_ ? "incremental" : "immediate";
  result["buildCredit"] = buildCredit_;
  result["evaluationCost"] = currentEvaluationCost();
  result["built"] = built_;
  result["pending"] = items_.size() - built_;
  result["rebuilds"] = rebuilds_;
  result["compactions"] = compactions_;
  result["graphSlots"] = graph_ ? graph_->hnsw.cur_element_count : 0;
  result["capacity"] = graph_ ? graph_->hnsw.max_elements_ : 0;
  result["freeSlots"] = graph_ ? graph_->freeSlots.size() : 0;
  result["reusedSinceBuild"] = graph_ ? graph_->reused : 0;
  // Every graph's work: the trial's and retired graphs' included.
  result["distanceComputations"] = distanceComputations();
  if (euclidean_) result["transformNorm"] = transformNorm_;
  result["spaceDecided"] = spaceDecided_;
  if (innerProductTrialRecall_ >= 0.0 || trialGraph_) {
    result["spaceTrial"] = Json{{"innerProductRecall", innerProductTrialRecall_},
                                {"euclideanRecall", euclideanTrialRecall_},
                                {"distanceComputations", trialGraph_ ? trialGraph_->evaluations() : trialEvaluations_},
                                {"running", trialGraph_ != nullptr}};
  }
  return result;
}

}  // namespace sublinear
