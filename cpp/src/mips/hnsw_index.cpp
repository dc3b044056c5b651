#include "sublinear/mips/hnsw_index.hpp"

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"

// hnswlib 0.6.2's SSE path prefetches *(links + j + 1) one entry past the end of a link list, an
// out-of-bounds read that AddressSanitizer reports on upper layers (fixed in later hnswlib). Its SIMD
// distance functions are not used here (PaddedSpace below), so the manual vectorisation goes, and
// the native build runs the same code as the wasm build, which has no SSE.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "sublinear/core/error.hpp"
#include "sublinear/mips/lane_kernels.hpp"

namespace sublinear {

namespace {

struct DistanceParameter {
  std::size_t stride;
  std::uint64_t evaluations;  // distance computations, the index's work counter
};

float innerProductDistance(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  ++p->evaluations;
  return 1.0f - lanes::innerProduct(static_cast<const float*>(a), static_cast<const float*>(b), p->stride);
}

float euclideanDistance(const void* a, const void* b, const void* parameter) {
  auto* p = static_cast<DistanceParameter*>(const_cast<void*>(parameter));
  ++p->evaluations;
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
// space "auto": decided once the index holds this many items (below it either space answers
// small sets well), from graphs of up to kSpaceTrialItems sampled items searched for
// kSpaceTrialQueries further items with the index's own beam for a top 10, and the euclidean
// reduction chosen only when its recall is higher by more than kSpaceTrialMargin. Smaller trials
// mislead: on Fashion-MNIST (60k x 784) a 2,000-item trial, or a 10,000-item one with a beam of
// 10, favoured the inner-product graph, although over all 60,000 items the reduction finds far more
// of the true top 10; a trial of this size ranks the two spaces as the whole set does.
constexpr std::size_t kSpaceTrialMinimum = 1000;
constexpr std::size_t kSpaceTrialItems = 10000;
constexpr std::size_t kSpaceTrialQueries = 64;
constexpr std::size_t kSpaceTrialConstruction = 64;
constexpr double kSpaceTrialMargin = 0.02;
// Below this many freed slots a compacting rebuild is not worth it.
constexpr std::size_t kCompactionFloor = 64;
// Insertions into the successor graph per item added or removed and per search while a compaction
// runs: a compaction started after N reuses completes within about N / 4 further additions, and no
// single call pays for more than its own share.
constexpr std::size_t kCompactionStepsPerAdd = 4;
constexpr std::size_t kCompactionStepsPerRemove = 2;
constexpr std::size_t kCompactionStepsPerSearch = 1;

}  // namespace

struct HnswIndex::Graph {
  Graph(std::size_t stride, bool euclidean, std::size_t capacity, std::size_t M, std::size_t efConstruction, std::uint64_t seed)
      : space(stride, euclidean),
        hnsw(&space, capacity, M, efConstruction, static_cast<std::size_t>(seed)),
        levels(seed),
        levelScale(1.0 / deterministic::log(static_cast<double>(M))) {
    // hnswlib draws node levels with std::uniform_real_distribution, whose numbers differ between
    // libstdc++ (native) and libc++ (wasm). With its multiplier at zero its own draw is always
    // level 0, and nextLevel() supplies the level instead, the same in every build.
    hnsw.mult_ = 0.0;
  }
  // The level of a new node: floor(-ln(U) / ln(M)), hnswlib's distribution from our engine.
  int nextLevel() { return static_cast<int>(-deterministic::log(1.0 - levels.uniform()) * levelScale); }
  PaddedSpace space;
  hnswlib::HierarchicalNSW<float> hnsw;
  Random levels;
  double levelScale;
  // Internal ids of deleted nodes, reused by later additions (last freed first).
  std::vector<hnswlib::tableint> freeSlots;
  std::size_t reused = 0;  // freed slots taken by additions since the graph was started
  bool holds(Id id) const { return hnsw.label_lookup_.count(id) != 0; }
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
  out.u64(graph.space.evaluations());
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

std::unique_ptr<HnswIndex::Graph> HnswIndex::loadGraph(StateReader& in, const Graph* current, std::size_t queueLength) {
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
  const std::size_t floats = graphStride_;
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
  // Deleted nodes are exactly the free slots; live labels are distinct items of the index (the
  // current graph holds every item, a successor some of the current graph's).
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
    in.check(items_.contains(labels[node]) && (current == nullptr || current->holds(labels[node])), "a graph node holds an unknown item");
    in.check(lookup.emplace(labels[node], static_cast<hnswlib::tableint>(node)).second, "an item is in a graph twice");
  }
  if (current == nullptr) in.check(lookup.size() == items_.size(), "the graph does not hold every item");

  // A graph's capacity is at most twice its nodes (it doubles when full and is fitted when a
  // compaction completes), or the store it was sized for: a successor under way is sized for the
  // queue it started with. Anything larger would allocate more than the input describes.
  const std::size_t bound = std::max(kMinimumCapacity, 2 * std::max({nodes, items_.size(), queueLength}));
  in.check(savedCapacity <= bound, "graph capacity beyond what its nodes need");
  const auto capacity = static_cast<std::size_t>(savedCapacity);
  auto graph = std::make_unique<Graph>(graphStride_, euclidean_, capacity, M_, efConstruction_, 0);
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
    const float* vector = deleted[node] ? deletedVectors.data() + (vectorAt++) * floats : graphVector(items_.vectorOf(labels[node]));
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
  out.u8(graph_ ? 1 : 0);
  if (graph_) saveGraph(*graph_, out);
  out.u8(successor_ ? 1 : 0);
  if (successor_) {
    out.u32s(successorQueue_.data(), successorQueue_.size());
    out.u64(successorNext_);
    saveGraph(*successor_, out);
  }
}

void HnswIndex::loadStructure(StateReader& in) {
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
  const std::uint8_t hasGraph = in.u8();
  // No graph is valid: it is built from the store when next needed.
  in.check(hasGraph <= 1, "bad graph flag");
  if (hasGraph) graph_ = loadGraph(in, nullptr, 0);
  const std::uint8_t hasSuccessor = in.u8();
  in.check(hasSuccessor <= 1 && (hasSuccessor == 0 || graph_), "bad successor flag");
  if (hasSuccessor) {
    successorQueue_ = in.u32s();
    successorNext_ = static_cast<std::size_t>(in.u64());
    in.check(successorNext_ <= successorQueue_.size(), "compaction position out of range");
    successor_ = loadGraph(in, graph_.get(), successorQueue_.size());
  }
}

HnswIndex::HnswIndex(std::size_t dim, const Json& options) : MipsIndex(dim) {
  const OptionGroup& specs = option_groups::hnsw();
  M_ = static_cast<std::size_t>(readIntegerOption(specs, options, "M"));
  efConstruction_ = static_cast<std::size_t>(readIntegerOption(specs, options, "efConstruction"));
  efSearch_ = static_cast<std::size_t>(readIntegerOption(specs, options, "efSearch"));
  seed_ = readSeedOption(specs, options);
  const std::string space = readStringOption(specs, options, "space");
  if (space != "euclidean" && space != "inner-product" && space != "auto") {
    fail(ErrorCode::InvalidArgument, "option 'space' must be \"auto\", \"euclidean\" or \"inner-product\", got \"" + space + "\"");
  }
  spaceDecided_ = space != "auto";
  setSpace(space == "euclidean");
}

void HnswIndex::setSpace(bool euclidean) {
  euclidean_ = euclidean;
  // The euclidean reduction appends one coordinate.
  graphStride_ = euclidean_ ? paddedDimension(dim() + 1) : paddedDimension(dim());
  scratch_.assign(graphStride_, 0.0f);
}

void HnswIndex::chooseSpace() {
  spaceDecided_ = true;
  // Both spaces on the same random sample of the items, queried with further items (queries like
  // the data: on isotropic data they are also like a linear bandit's random directions), each
  // scored by recall@10 against the exact answer within the sample. Deterministic: the index's
  // seed picks the sample.
  Random random(seed_ ^ 0x5BACE5ULL);
  const std::size_t n = items_.size();
  const std::size_t sampleSize = std::min<std::size_t>(kSpaceTrialItems, n - kSpaceTrialQueries);
  std::vector<std::size_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = i;
  for (std::size_t i = 0; i < sampleSize + kSpaceTrialQueries; ++i) {
    std::swap(rows[i], rows[i + static_cast<std::size_t>(random.uniformInt(n - i))]);
  }
  const std::size_t stride = items_.stride();
  std::vector<std::vector<float>> queries;
  for (std::size_t q = 0; q < kSpaceTrialQueries; ++q) {
    const float* row = items_.rowData(rows[sampleSize + q]);
    queries.emplace_back(row, row + stride);
  }
  // The exact top 10 of each query within the sample.
  std::vector<std::vector<std::size_t>> truth;
  for (const auto& query : queries) {
    std::vector<std::pair<float, std::size_t>> scored;
    for (std::size_t i = 0; i < sampleSize; ++i) scored.emplace_back(-lanes::innerProduct(items_.rowData(rows[i]), query.data(), stride), i);
    std::partial_sort(scored.begin(), scored.begin() + std::min<std::size_t>(10, sampleSize), scored.end());
    std::vector<std::size_t> top;
    for (std::size_t i = 0; i < std::min<std::size_t>(10, sampleSize); ++i) top.push_back(scored[i].second);
    truth.push_back(std::move(top));
  }
  auto recallOf = [&](bool euclidean) {
    setSpace(euclidean);
    double largest = 0.0;
    for (std::size_t i = 0; i < sampleSize; ++i) largest = std::max(largest, squaredNorm(items_.rowData(rows[i]), dim()));
    const double savedNorm = transformNorm_;
    transformNorm_ = largest == 0.0 ? 1.0 : std::sqrt(largest);
    Graph graph(graphStride_, euclidean_, sampleSize, M_, std::min(efConstruction_, kSpaceTrialConstruction), seed_);
    for (std::size_t i = 0; i < sampleSize; ++i) graph.hnsw.addPoint(graphVector(items_.rowData(rows[i])), i, graph.nextLevel());
    graph.hnsw.setEf(efSearch_ + 9);  // as candidates() for a top 10
    double found = 0.0, wanted = 0.0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      std::copy(queries[q].begin(), queries[q].begin() + static_cast<std::ptrdiff_t>(dim()), scratch_.begin());
      std::fill(scratch_.begin() + static_cast<std::ptrdiff_t>(dim()), scratch_.end(), 0.0f);
      auto answer = graph.hnsw.searchKnn(scratch_.data(), truth[q].size());
      while (!answer.empty()) {
        found += std::count(truth[q].begin(), truth[q].end(), answer.top().second) > 0 ? 1.0 : 0.0;
        answer.pop();
      }
      wanted += static_cast<double>(truth[q].size());
    }
    transformNorm_ = savedNorm;
    trialEvaluations_ += graph.space.evaluations();
    return found / wanted;
  };
  innerProductTrialRecall_ = recallOf(false);
  euclideanTrialRecall_ = recallOf(true);
  // Ties go to the inner-product space: no extra coordinate and no rebuild when norms grow.
  setSpace(euclideanTrialRecall_ > innerProductTrialRecall_ + kSpaceTrialMargin);
}

HnswIndex::~HnswIndex() = default;

const float* HnswIndex::graphVector(const float* paddedItem) {
  std::copy(paddedItem, paddedItem + dim(), scratch_.begin());
  std::fill(scratch_.begin() + static_cast<std::ptrdiff_t>(dim()), scratch_.end(), 0.0f);
  if (euclidean_) {
    const double slack = transformNorm_ * transformNorm_ - squaredNorm(paddedItem, dim());
    scratch_[dim()] = static_cast<float>(std::sqrt(std::max(0.0, slack)));
  }
  return scratch_.data();
}

std::unique_ptr<HnswIndex::Graph> HnswIndex::newGraph() {
  const std::size_t capacity = std::max(kMinimumCapacity, items_.size());
  // A different hnswlib seed per graph, still determined by the index's seed.
  auto graph = std::make_unique<Graph>(graphStride_, euclidean_, capacity, M_, efConstruction_, seed_ + graphsBuilt_);
  ++graphsBuilt_;
  return graph;
}

void HnswIndex::rebuild() {
  retire(std::move(graph_));  // free the old graph before allocating the new one
  retire(std::move(successor_));
  graph_ = newGraph();
  ++rebuilds_;
  for (std::size_t row = 0; row < items_.size(); ++row) insert(*graph_, items_.idAt(row));
}

void HnswIndex::retire(std::unique_ptr<Graph> graph) {
  if (graph) retiredEvaluations_ += graph->space.evaluations();
}

void HnswIndex::startCompaction() {
  successor_ = newGraph();  // sized for the store, which may still hold a batch being removed
  successorQueue_.clear();
  successorQueue_.reserve(items_.size());
  for (std::size_t row = 0; row < items_.size(); ++row) successorQueue_.push_back(items_.idAt(row));
  successorNext_ = 0;
  ++compactions_;
}

void HnswIndex::advanceCompaction(std::size_t steps) {
  if (!successor_) return;
  try {
    for (; steps > 0 && successorNext_ < successorQueue_.size(); ++successorNext_) {
      const Id id = successorQueue_[successorNext_];
      // Removed since it was queued (the current graph holds exactly the live items), or queued
      // twice (removed and added again): nothing to do.
      if (!graph_->holds(id) || successor_->holds(id)) continue;
      insert(*successor_, id);
      --steps;
    }
  } catch (...) {
    // Give up this compaction (the current graph is untouched); a later trigger starts another.
    retire(std::move(successor_));
    throw;
  }
  if (successorNext_ < successorQueue_.size()) return;
  retire(std::move(graph_));
  graph_ = std::move(successor_);
  // The successor was sized for the store when the compaction started; removals since then may
  // have left it mostly empty. Fitting it keeps memory, and a saved graph's capacity, within twice
  // its nodes.
  graph_->hnsw.resizeIndex(std::max(kMinimumCapacity, graph_->hnsw.cur_element_count));
  successorQueue_.clear();
  successorQueue_.shrink_to_fit();
}

void HnswIndex::ensureGraph() {
  if (!graph_) rebuild();
}

void HnswIndex::insert(Graph& graph, Id id) {
  auto& hnsw = graph.hnsw;
  const float* vector = graphVector(items_.vectorOf(id));
  if (graph.freeSlots.empty()) {
    if (hnsw.cur_element_count >= hnsw.max_elements_) hnsw.resizeIndex(2 * hnsw.max_elements_);
    hnsw.addPoint(vector, id, graph.nextLevel());
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
  try {
    if (!spaceDecided_ && items_.size() >= kSpaceTrialMinimum) {
      const bool wasEuclidean = euclidean_;
      chooseSpace();
      if (euclidean_ != wasEuclidean || euclidean_) {
        // A graph of the other space (or the first euclidean R) is built from the whole store.
        retire(std::move(graph_));
        retire(std::move(successor_));
        successorQueue_.clear();
        transformNorm_ = 0.0;
      }
    }
    double batchNorm = 0.0;
    for (std::size_t i = 0; i < count; ++i) batchNorm = std::max(batchNorm, std::sqrt(squaredNorm(items_.vectorOf(ids[i]), dim())));
    largestNorm_ = std::max(largestNorm_, batchNorm);
    // The euclidean reduction needs R >= every norm: a larger item means a new R and a new graph.
    // The first R is the largest norm itself; later ones add headroom so that rebuilds stay rare.
    if (euclidean_ && (transformNorm_ == 0.0 || batchNorm > transformNorm_)) {
      transformNorm_ = largestNorm_ == 0.0 ? 1.0 : (transformNorm_ == 0.0 ? 1.0 : kNormHeadroom) * largestNorm_;
      rebuild();
      return;
    }
    if (!graph_) {
      rebuild();
      return;
    }
    auto& hnsw = graph_->hnsw;
    const std::size_t fresh = count - std::min(count, graph_->freeSlots.size());
    if (hnsw.cur_element_count + fresh > hnsw.max_elements_) {
      hnsw.resizeIndex(std::max(2 * hnsw.max_elements_, hnsw.cur_element_count + fresh));
    }
    for (std::size_t i = 0; i < count; ++i) insert(*graph_, ids[i]);
    // A running compaction inserts the new items when it reaches them.
    if (successor_) successorQueue_.insert(successorQueue_.end(), ids, ids + count);
    advanceCompaction(kCompactionStepsPerAdd * count);
    // Relinking a reused node can strand nodes that were reachable only through its old links; after
    // as many reuses as live items, compact into a fresh graph, built a few insertions per call.
    if (!successor_ && graph_->reused >= kCompactionFloor && graph_->reused > items_.size()) startCompaction();
  } catch (...) {
    // The base class takes the batch back out of the store; the graph is rebuilt from the store
    // when next needed, so graph and store never disagree.
    retire(std::move(graph_));
    retire(std::move(successor_));
    throw;
  }
}

void HnswIndex::onRemove(const Id* ids, std::size_t count) {
  if (!graph_) return;
  if (count == items_.size()) {
    // Emptied: drop the graphs rather than keep deleted nodes (and hnswlib's fixed 1.5 MiB of
    // locks) for items that are gone. Sub-Elim empties its stage indexes as arms move on; the
    // graph is built again when items come.
    retire(std::move(graph_));
    retire(std::move(successor_));
    successorQueue_.clear();
    successorQueue_.shrink_to_fit();
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    erase(*graph_, ids[i]);
    if (successor_ && successor_->holds(ids[i])) erase(*successor_, ids[i]);
  }
  // The store still holds the batch (it drops it after this call); the compaction skips it because
  // the current graph no longer does.
  const std::size_t live = items_.size() - count;
  if (!successor_ && graph_->freeSlots.size() >= kCompactionFloor && graph_->freeSlots.size() > live) startCompaction();
  advanceCompaction(kCompactionStepsPerRemove * count);
}

std::vector<Id> HnswIndex::candidates(const float* paddedQuery, std::size_t count) {
  ensureGraph();
  advanceCompaction(kCompactionStepsPerSearch);
  auto& hnsw = graph_->hnsw;
  // The query of the euclidean reduction is (q, 0): the padding is already zero.
  std::copy(paddedQuery, paddedQuery + dim(), scratch_.begin());
  std::fill(scratch_.begin() + static_cast<std::ptrdiff_t>(dim()), scratch_.end(), 0.0f);
  // The beam holds efSearch candidates beyond the `count` asked for (searchKnn would use
  // max(ef, count)): so a longer shortlist always means a wider search. With max(), shortlists
  // up to efSearch changed nothing, and the inner-product space returns the beam's best by the
  // same float scores the exact ranking uses.
  hnsw.setEf(efSearch_ + count - 1);
  const std::uint64_t before = graph_->space.evaluations();
  auto found = hnsw.searchKnn(scratch_.data(), count);
  countInnerProducts(static_cast<double>(graph_->space.evaluations() - before));
  std::vector<Id> ids;
  ids.reserve(found.size());
  while (!found.empty()) {
    ids.push_back(static_cast<Id>(found.top().second));
    found.pop();
  }
  return ids;
}

Json HnswIndex::stats() const {
  Json result = MipsIndex::stats();
  result["space"] = euclidean_ ? "euclidean" : "inner-product";
  result["M"] = M_;
  result["efConstruction"] = efConstruction_;
  result["efSearch"] = efSearch_;
  result["rebuilds"] = rebuilds_;
  result["compactions"] = compactions_;
  result["compacting"] = successor_ != nullptr;
  result["graphSlots"] = graph_ ? graph_->hnsw.cur_element_count : 0;
  result["capacity"] = graph_ ? graph_->hnsw.max_elements_ : 0;
  result["freeSlots"] = graph_ ? graph_->freeSlots.size() : 0;
  result["reusedSinceBuild"] = graph_ ? graph_->reused : 0;
  // Every graph's work, the successor's and retired graphs' included.
  result["distanceComputations"] = retiredEvaluations_ + (graph_ ? graph_->space.evaluations() : 0) +
                                   (successor_ ? successor_->space.evaluations() : 0);
  if (euclidean_) result["transformNorm"] = transformNorm_;
  result["space"] = euclidean_ ? "euclidean" : "inner-product";
  result["spaceDecided"] = spaceDecided_;
  if (innerProductTrialRecall_ >= 0.0) {
    result["spaceTrial"] = Json{{"innerProductRecall", innerProductTrialRecall_}, {"euclideanRecall", euclideanTrialRecall_},
                                {"distanceComputations", trialEvaluations_}};
  }
  return result;
}

}  // namespace sublinear
