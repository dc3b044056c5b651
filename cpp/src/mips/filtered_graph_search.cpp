#include "sublinear/mips/filtered_graph_search.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>

#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/quantised_rows.hpp"

namespace sublinear {

namespace {
using Entry = std::pair<float, std::uint32_t>;  // (distance, node)

std::uint16_t linkCount(const char* header) {
  std::uint16_t count;
  std::memcpy(&count, header, sizeof(count));
  return count;
}

const std::uint32_t* links(const char* header) { return reinterpret_cast<const std::uint32_t*>(header + sizeof(std::uint32_t)); }

const char* level0Header(const GraphLayout& graph, std::uint32_t node) { return graph.level0 + node * graph.elementBytes; }

bool deleted(const GraphLayout& graph, std::uint32_t node) {
  // hnswlib's DELETE_MARK (0x01) in the third byte of the level-0 header.
  return (static_cast<unsigned char>(level0Header(graph, node)[2]) & 0x01) != 0;
}

Id idOf(const GraphLayout& graph, std::uint32_t node) {
  std::size_t label;
  std::memcpy(&label, level0Header(graph, node) + graph.labelOffset, sizeof(label));
  return static_cast<Id>(label);
}

float distance(const GraphLayout& graph, std::uint32_t node, const float* query) {
  if (graph.codeBytes > 0) {
    const char* coded = level0Header(graph, node) + graph.dataOffset;
    return graph.euclidean ? quantised::euclideanDistance(coded, query, graph.codeBytes)
                           : quantised::innerProductDistance(coded, query, graph.codeBytes);
  }
  const auto* vector = reinterpret_cast<const float*>(level0Header(graph, node) + graph.dataOffset);
  return graph.euclidean ? lanes::squaredDistance(vector, query, graph.stride) : 1.0f - lanes::innerProduct(vector, query, graph.stride);
}
}  // namespace

bool FilteredGraphSearch::visit(std::uint32_t node) {
  if (visited_[node] == epoch_) return false;
  visited_[node] = epoch_;
  return true;
}

std::vector<std::uint32_t> FilteredGraphSearch::search(const GraphLayout& graph, const float* query, std::size_t ef,
                                                       const Label* slotLabels, const Eligibility& eligible,
                                                       std::uint64_t maxEvaluations) {
  evaluations_ = 0;
  exhausted_ = false;
  if (graph.nodes == 0 || ef == 0) return {};
  if (visited_.size() < graph.nodes) visited_.resize(graph.nodes, 0);
  if (++epoch_ == 0) {
    std::fill(visited_.begin(), visited_.end(), 0);
    epoch_ = 1;
  }
  const bool checkExcluded = !eligible.excludedIds().empty();
  const auto admits = [&](std::uint32_t node) {
    return !deleted(graph, node) && eligible.allowsLabel(slotLabels[node]) && !(checkExcluded && eligible.excludesId(idOf(graph, node)));
  };

  // Upper layers: hnswlib's greedy descent, filter-blind (it only finds a start near the query).
  std::uint32_t current = graph.entry;
  float currentDistance = distance(graph, current, query);
  ++evaluations_;
  for (int layer = graph.maxLevel; layer > 0; --layer) {
    for (bool moved = true; moved;) {
      moved = false;
      const char* header = graph.upperLinks[current] + static_cast<std::size_t>(layer - 1) * graph.upperLinkBytes;
      const std::uint16_t count = linkCount(header);
      const std::uint32_t* neighbours = links(header);
      for (std::uint16_t j = 0; j < count; ++j) {
        const float d = distance(graph, neighbours[j], query);
        ++evaluations_;
        if (d < currentDistance) {
          currentDistance = d;
          current = neighbours[j];
          moved = true;
        }
      }
    }
  }

  // Layer 0: `frontier` is a min-heap of nodes to expand, `beam` a max-heap of the best eligible.
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> frontier;
  std::priority_queue<Entry> beam;
  visit(current);
  frontier.emplace(currentDistance, current);
  if (admits(current)) beam.emplace(currentDistance, current);
  while (!frontier.empty()) {
    const Entry nearest = frontier.top();
    if (beam.size() == ef && nearest.first > beam.top().first) break;
    if (evaluations_ >= maxEvaluations) {
      exhausted_ = true;
      break;
    }
    frontier.pop();
    const char* header = level0Header(graph, nearest.second);
    const std::uint16_t count = linkCount(header);
    const std::uint32_t* neighbours = links(header);
    for (std::uint16_t j = 0; j < count; ++j) {
      const std::uint32_t node = neighbours[j];
      if (!visit(node)) continue;
      const float d = distance(graph, node, query);
      ++evaluations_;
      // As hnswlib: a node worth expanding is one that could still improve a full beam.
      if (beam.size() < ef || d < beam.top().first) {
        frontier.emplace(d, node);
        if (admits(node)) {
          beam.emplace(d, node);
          if (beam.size() > ef) beam.pop();
        }
      }
    }
  }
  std::vector<std::uint32_t> nodes(beam.size());
  for (std::size_t i = nodes.size(); i-- > 0; beam.pop()) nodes[i] = beam.top().second;
  return nodes;
}

}  // namespace sublinear
