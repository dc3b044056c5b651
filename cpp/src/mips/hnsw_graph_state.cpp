// HnswIndex: the graph in a saved state, written and read back node by node.
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
  const std::size_t floats = graph.space.stride();
  std::vector<float> vector(floats);
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
    // the graph still has (a retired row, or its record's copy): written as the graph's vector in
    // its space, whatever the layout.
    if (!deleted) continue;
    const char* data = const_cast<Graph&>(graph).data(node);
    const float* row = graph.space.rows().rowOfData(data);
    const float extra = graph.euclidean ? graph.space.rows().extraOfData(data) : 0.0f;
    if (graph.space.codeBytes() > 0) {
      // Int8 storage: the codes as bytes, then the scale and the extra coordinate.
      const std::size_t codeBytes = graph.space.codeBytes();
      const auto* codes = reinterpret_cast<const std::int8_t*>(row);
      for (std::size_t i = 0; i < codeBytes; ++i) out.u8(static_cast<std::uint8_t>(codes[i]));
      out.f32(quantised::rowScale(row, codeBytes));
      out.f32(extra);
    } else {
      // The item, then (euclidean) its extra coordinate at index dim, zeros up to the padded length.
      std::fill(vector.begin(), vector.end(), 0.0f);
      std::copy(row, row + dim(), vector.begin());
      if (graph.euclidean) vector[dim()] = extra;
      for (const float value : vector) out.f32(value);
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
  const std::size_t codeBytes = items_.quantised() ? quantised::codeBytes(dim()) : 0;
  const std::size_t floats = graphVectorFloats(euclidean);
  std::vector<Id> labels(nodes);
  std::vector<std::uint8_t> deleted(nodes);
  std::vector<int> nodeLevels(nodes);
  std::vector<std::uint32_t> linkCounts;  // per node and layer, in order
  std::vector<hnswlib::tableint> links;
  // Room for every link the rest of the state can hold (4 bytes each), so that the list never
  // doubles: a doubling holds the old list and one twice as long at once, and wasm memory keeps
  // that high-water mark for good. Bounded by the bytes present, as every allocation of a load is.
  links.reserve(in.remaining() / sizeof(hnswlib::tableint));
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
    if (deleted[node] && codeBytes > 0) {
      in.check(in.remaining() >= quantised::graphVectorBytes(codeBytes), "payload ends early");
      std::vector<float> vector(floats, 0.0f);
      auto* codes = reinterpret_cast<std::int8_t*>(vector.data());
      for (std::size_t i = 0; i < codeBytes; ++i) {
        codes[i] = static_cast<std::int8_t>(in.u8());
        in.check(codes[i] >= -quantised::kLargestCode && (i < dim() || codes[i] == 0), "a deleted node's code is out of range");
      }
      const float scale = in.f32();
      const float extra = in.f32();
      in.check(std::isfinite(scale) && scale >= 0.0f && std::isfinite(extra) && extra >= 0.0f && (euclidean || extra == 0.0f),
               "a deleted node's scale is not a finite nonnegative number");
      vector[codeBytes / sizeof(float)] = scale;
      vector[codeBytes / sizeof(float) + 1] = extra;
      deletedVectors.insert(deletedVectors.end(), vector.begin(), vector.end());
    } else if (deleted[node]) {
      in.check(in.remaining() / sizeof(float) >= floats, "payload ends early");
      for (std::size_t i = 0; i < floats; ++i) {
        const float value = in.f32();
        in.check(std::isfinite(value), "a deleted node's vector is not finite");
        // The padding is zero, as a graph writes it: the node keeps the item and the extra
        // coordinate only (the kernels read zeros there).
        in.check(value == 0.0f || i < dim() || (euclidean && i == dim()), "a deleted node's vector has nonzero padding");
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
  auto graph = std::make_unique<Graph>(items_, dim(), floats, euclidean, capacity, M_, efConstruction_, 0, codeBytes, inlinesRows());
  graph->levels = levels;
  graph->reused = static_cast<std::size_t>(reused);
  graph->space.setEvaluations(evaluations);
  graph->freeSlots.assign(freeSlots.begin(), freeSlots.end());
  auto& hnsw = graph->hnsw;
  std::size_t at = 0, list = 0, vectorAt = 0;
  std::vector<float> row;
  std::vector<float> nodeValues(nodeDataFloats(graph->space.rows()));
  for (std::size_t node = 0; node < nodes; ++node) {
    const auto slot = static_cast<hnswlib::tableint>(node);
    char* data = hnsw.data_level0_memory_ + node * hnsw.size_data_per_element_;
    std::memset(data, 0, hnsw.size_data_per_element_);
    if (deleted[node]) {
      // The saved graph vector: the row part becomes a retired row (inlined, the record's copy),
      // the extra coordinate the node's.
      const float* vector = deletedVectors.data() + (vectorAt++) * floats;
      row.assign(items_.stride() + 1, 0.0f);
      float extra = 0.0f;
      if (codeBytes > 0) {
        std::copy(vector, vector + codeBytes / sizeof(float) + 1, row.begin());
        extra = vector[codeBytes / sizeof(float) + 1];
      } else {
        std::copy(vector, vector + dim(), row.begin());
        if (euclidean) extra = vector[dim()];
      }
      if (graph->inlined()) {
        row[items_.stride()] = extra;
        std::memcpy(data + hnsw.offsetData_, row.data(), hnsw.data_size_);
      } else {
        graph->retire(slot, row.data());
        if (euclidean) std::memcpy(data + hnsw.offsetData_ + sizeof(std::uint32_t), &extra, sizeof(extra));
      }
    } else {
      nodeData(*graph, items_.rowOf(labels[node]), nodeValues.data());
      std::memcpy(data + hnsw.offsetData_, nodeValues.data(), hnsw.data_size_);
    }
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
  graph->syncReferences();
  // A saved graph is kept in its saved order until it has doubled (HnswIndex::orderGraph).
  graph->ordered = nodes;
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

}  // namespace sublinear
