#include "sublinear/mips/filtered_graph_search.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>
#include <type_traits>

#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/quantised_rows.hpp"

namespace sublinear {

namespace {
using Entry = std::pair<float, std::uint32_t>;  // (distance, node)

// hnswlib's CompareByFirst: its heaps order by distance alone, and ties fall where the heap
// operations leave them; nearest() must use the same comparison to visit the same nodes.
struct CompareByFirst {
  bool operator()(const Entry& a, const Entry& b) const noexcept { return a.first < b.first; }
  template <class Scored>
  bool operator()(const Scored& a, const Scored& b) const noexcept {
    return a.distance < b.distance;
  }
};

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

const char* nodeData(const GraphLayout& graph, std::uint32_t node) { return level0Header(graph, node) + graph.dataOffset; }

// The graph space's distance between a node and the query, as hnsw_graph.hpp's PaddedSpace
// computes it between nodes (the same bits): the node's row read through its reference. An 8-bit
// graph (codeBytes > 0) scores the row's codes against the query coded alike.
template <bool Euclidean>
float distanceOf(const GraphLayout& graph, const float* row, float extra, const float* query) {
  if (graph.codeBytes > 0) {
    return Euclidean ? quantised::euclideanDistance(row, extra, query, quantised::floatAt(query, graph.codeBytes + sizeof(float)), graph.codeBytes)
                     : quantised::innerProductDistance(row, query, graph.codeBytes);
  }
  if constexpr (Euclidean) {
    // The query's extra coordinate is 0.
    return lanes::graphSquaredDistanceExtended(row, query, graph.rows.rowFloats, graph.dim, extra);
  } else {
    return 1.0f - lanes::graphInnerProduct(row, query, graph.rows.rowFloats);
  }
}

// A node's row and extra coordinate. Inlined, both are in its record, which the search reads for
// the node's links anyway when it expands it (hnswlib's layout). Referenced, the row is found
// through the reference: from the graph's dense copies when it keeps them (4 bytes a node, where
// each node's record in hnswlib's memory is a cache miss of its own), else from the record.
const float* rowOf(const GraphLayout& graph, std::uint32_t node) {
  if (graph.rows.inlined) return reinterpret_cast<const float*>(nodeData(graph, node));
  return graph.rows.row(graph.references != nullptr ? graph.references[node] : nodeReference(nodeData(graph, node)));
}
float extraOf(const GraphLayout& graph, std::uint32_t node) {
  return graph.extras != nullptr ? graph.extras[node] : graph.rows.extraOfData(nodeData(graph, node));
}

template <bool Euclidean>
float distanceIn(const GraphLayout& graph, std::uint32_t node, const float* query) {
  return distanceOf<Euclidean>(graph, rowOf(graph, node), Euclidean ? extraOf(graph, node) : 0.0f, query);
}

// Where the rows of `count` nodes are, and their extra coordinates (euclidean), into rows[] and
// extras[]: every reference is read before any row, so that the rows' memory is fetched together.
template <bool Euclidean>
void locate(const GraphLayout& graph, const std::uint32_t* nodes, std::size_t count, const float** rows, float* extras) {
  for (std::size_t i = 0; i < count; ++i) {
    rows[i] = rowOf(graph, nodes[i]);
    if constexpr (Euclidean) extras[i] = extraOf(graph, nodes[i]);
  }
}

// distanceIn() of `count` nodes into out[0 .. count): four at a time where rows are short enough
// for four interleaved streams to pay (lane_kernels.hpp), with the same bits as one at a time.
template <bool Euclidean>
void scoreFresh(const GraphLayout& graph, const float* query, const std::uint32_t* nodes, std::size_t count, ScoringBuffers& buffers,
                float* out) {
  if (buffers.rows.size() < count) {
    buffers.rows.resize(count);
    buffers.extras.resize(count);
  }
  const float** rows = buffers.rows.data();
  float* extras = buffers.extras.data();
  locate<Euclidean>(graph, nodes, count, rows, extras);
  buffers.touched += touchRows(rows, count, graph.rows.rowFloats * sizeof(float));
  // The query's extra coordinate is 0.
  std::size_t i = graph.codeBytes == 0
                      ? lanes::graphDistances4(Euclidean, rows, extras, 0.0f, count, query, graph.rows.rowFloats, graph.dim, out)
                      : quantised::graphDistances4(Euclidean, rows, extras, query, quantised::floatAt(query, graph.codeBytes + sizeof(float)), count,
                                                   graph.codeBytes, out);
  for (; i < count; ++i) out[i] = distanceOf<Euclidean>(graph, rows[i], Euclidean ? extras[i] : 0.0f, query);
}
// scoreFresh<false> of float rows that keep scores (FilteredGraphSearch::keepsScores): the inner
// products into scores[], computed as graphDistances4 and innerProduct compute them (four rows at a
// time, then one at a time: the same bits), and the distances 1 - score into out[], the bits
// scoreFresh gives.
void scoreFreshKeepingScores(const GraphLayout& graph, const float* query, const std::uint32_t* nodes, std::size_t count,
                             ScoringBuffers& buffers, float* out, float* scores) {
  if (buffers.rows.size() < count) {
    buffers.rows.resize(count);
    buffers.extras.resize(count);
  }
  const float** rows = buffers.rows.data();
  locate<false>(graph, nodes, count, rows, buffers.extras.data());
  buffers.touched += touchRows(rows, count, graph.rows.rowFloats * sizeof(float));
  const std::size_t stride = graph.rows.rowFloats;
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4) lanes::innerProducts4(rows[i], rows[i + 1], rows[i + 2], rows[i + 3], query, stride, scores + i);
  for (; i < count; ++i) scores[i] = lanes::innerProduct(rows[i], query, stride);
  for (i = 0; i < count; ++i) out[i] = 1.0f - scores[i];
}

// hnswlib's greedy descent through the upper layers (searchKnn's first loop): the node where it
// ends, from which layer 0 is searched, and its distance; counts its distances. A node's neighbours
// are scored together (scoreFresh), then taken in hnswlib's order: the same moves.
template <bool Euclidean>
Entry descend(const GraphLayout& graph, const float* query, std::uint64_t& evaluations, std::vector<float>& distances,
              ScoringBuffers& buffers) {
  std::uint32_t current = graph.entry;
  float currentDistance = distanceIn<Euclidean>(graph, current, query);
  ++evaluations;
  for (int layer = graph.maxLevel; layer > 0; --layer) {
    for (bool moved = true; moved;) {
      moved = false;
      const char* header = graph.upperLinks[current] + static_cast<std::size_t>(layer - 1) * graph.upperLinkBytes;
      const std::uint16_t count = linkCount(header);
      const std::uint32_t* neighbours = links(header);
      if (distances.size() < count) distances.resize(count);
      scoreFresh<Euclidean>(graph, query, neighbours, count, buffers, distances.data());
      evaluations += count;
      for (std::uint16_t j = 0; j < count; ++j) {
        if (distances[j] < currentDistance) {
          currentDistance = distances[j];
          current = neighbours[j];
          moved = true;
        }
      }
    }
  }
  return {currentDistance, current};
}
}  // namespace

bool FilteredGraphSearch::visit(std::uint32_t node) {
  if (visited_[node] == epoch_) return false;
  visited_[node] = epoch_;
  return true;
}

void FilteredGraphSearch::beginSearch(std::size_t nodes) {
  if (visited_.size() < nodes) visited_.resize(nodes, 0);
  if (++epoch_ == 0) {
    std::fill(visited_.begin(), visited_.end(), std::uint16_t{0});
    epoch_ = 1;
  }
}

std::size_t FilteredGraphSearch::scoreUnvisited(const GraphLayout& graph, const float* query, const char* header) {
  const std::uint16_t count = linkCount(header);
  const std::uint32_t* neighbours = links(header);
  if (fresh_.size() < count) fresh_.resize(count);
  if (freshDistances_.size() < count) freshDistances_.resize(count);
  std::size_t fresh = 0;
  for (std::uint16_t j = 0; j < count; ++j) {
    if (visit(neighbours[j])) fresh_[fresh++] = neighbours[j];
  }
  if (scoresKept_) {
    if (freshScores_.size() < count) freshScores_.resize(count);
    scoreFreshKeepingScores(graph, query, fresh_.data(), fresh, scoring_, freshDistances_.data(), freshScores_.data());
  } else if (graph.euclidean) {
    scoreFresh<true>(graph, query, fresh_.data(), fresh, scoring_, freshDistances_.data());
  } else {
    scoreFresh<false>(graph, query, fresh_.data(), fresh, scoring_, freshDistances_.data());
  }
  evaluations_ += fresh;
  return fresh;
}

bool FilteredGraphSearch::keepsScores(const GraphLayout& graph) {
  return graph.codeBytes == 0 && !graph.euclidean && graph.rows.rowFloats <= lanes::kInterleavedRowsMaxStride;
}

const std::vector<std::uint32_t>& FilteredGraphSearch::nearest(const GraphLayout& graph, const float* query, std::size_t ef,
                                                               std::size_t k, bool skipDeleted) {
  evaluations_ = 0;
  exhausted_ = false;
  found_.clear();
  foundScores_.clear();
  // The descent's distances need no scores: only layer 0's beam is returned.
  scoresKept_ = false;
  if (graph.nodes == 0 || k == 0) return found_;
  beginSearch(graph.nodes);
  const std::uint32_t entry = (graph.euclidean ? descend<true>(graph, query, evaluations_, freshDistances_, scoring_)
                                                : descend<false>(graph, query, evaluations_, freshDistances_, scoring_))
                                   .second;
  // searchKnn's beam: max(ef, k).
  const std::size_t beam = std::max(ef, k);
  if (keepsScores(graph)) {
    scoresKept_ = true;
    skipDeleted ? nearestOnLayer0<false, true>(graph, query, entry, beam, scoredBeam_)
                : nearestOnLayer0<false, false>(graph, query, entry, beam, scoredBeam_);
    takeNearest(graph, scoredBeam_, k);
    scoresKept_ = false;
  } else if (graph.euclidean) {
    skipDeleted ? nearestOnLayer0<true, true>(graph, query, entry, beam, beam_)
                : nearestOnLayer0<true, false>(graph, query, entry, beam, beam_);
    takeNearest(graph, beam_, k);
  } else {
    skipDeleted ? nearestOnLayer0<false, true>(graph, query, entry, beam, beam_)
                : nearestOnLayer0<false, false>(graph, query, entry, beam, beam_);
    takeNearest(graph, beam_, k);
  }
  return found_;
}

namespace {
float distanceOfEntry(const Entry& entry) { return entry.first; }
std::uint32_t nodeOfEntry(const Entry& entry) { return entry.second; }
template <class Scored>
float distanceOfEntry(const Scored& entry) {
  return entry.distance;
}
template <class Scored>
std::uint32_t nodeOfEntry(const Scored& entry) {
  return entry.node;
}
}  // namespace

template <class BeamEntry>
void FilteredGraphSearch::takeNearest(const GraphLayout& graph, std::vector<BeamEntry>& beam, std::size_t k) {
  constexpr bool kKeepsScores = !std::is_same_v<BeamEntry, Entry>;
  const CompareByFirst byDistance;
  while (beam.size() > k) {
    std::pop_heap(beam.begin(), beam.end(), byDistance);
    beam.pop_back();
  }
  // searchKnn's result: a max-heap of (distance, label) pairs, popped largest first (labels are
  // unique, so the order is total).
  labelled_.clear();
  for (const BeamEntry& entry : beam) {
    std::size_t label;
    std::memcpy(&label, level0Header(graph, nodeOfEntry(entry)) + graph.labelOffset, sizeof(label));
    float score = 0.0f;
    if constexpr (kKeepsScores) score = entry.score;
    labelled_.push_back({distanceOfEntry(entry), label, nodeOfEntry(entry), score});
  }
  std::sort(labelled_.begin(), labelled_.end(),
            [](const Labelled& a, const Labelled& b) { return a.distance != b.distance ? a.distance > b.distance : a.label > b.label; });
  for (const Labelled& entry : labelled_) found_.push_back(entry.node);
  if constexpr (kKeepsScores) {
    for (const Labelled& entry : labelled_) foundScores_.push_back(entry.score);
  }
}

// hnswlib's searchBaseLayerST<SkipDeleted, true> with its heaps in `beam` and frontier_; with scores
// (BeamEntry Scored, float rows in the inner-product space) each beam entry keeps its node's inner
// product, computed with the distance's bits (scoreFreshKeepingScores).
template <bool Euclidean, bool SkipDeleted, class BeamEntry>
void FilteredGraphSearch::nearestOnLayer0(const GraphLayout& graph, const float* query, std::uint32_t entry, std::size_t ef,
                                          std::vector<BeamEntry>& beam) {
  constexpr bool kKeepsScores = !std::is_same_v<BeamEntry, Entry>;
  static_assert(!(Euclidean && kKeepsScores), "only inner-product graphs keep scores");
  const CompareByFirst byDistance;
  beam.clear();
  frontier_.clear();
  const auto pushBeam = [&](float d, std::uint32_t node, float score) {
    if constexpr (kKeepsScores) {
      beam.push_back({d, node, score});
    } else {
      static_cast<void>(score);
      beam.emplace_back(d, node);
    }
    std::push_heap(beam.begin(), beam.end(), byDistance);
  };
  const auto pushFrontier = [&](float d, std::uint32_t node) {
    frontier_.emplace_back(-d, node);
    std::push_heap(frontier_.begin(), frontier_.end(), byDistance);
  };
  float lowerBound;
  if (!SkipDeleted || !deleted(graph, entry)) {
    // searchKnn computed the entry's distance in the descent; searchBaseLayerST computes it again
    // (keeping scores, as scoreFreshKeepingScores does: 1 - innerProduct, the same bits).
    float score = 0.0f;
    float d;
    if constexpr (kKeepsScores) {
      score = lanes::innerProduct(rowOf(graph, entry), query, graph.rows.rowFloats);
      d = 1.0f - score;
    } else {
      d = distanceIn<Euclidean>(graph, entry, query);
    }
    ++evaluations_;
    lowerBound = d;
    pushBeam(d, entry, score);
    pushFrontier(d, entry);
  } else {
    lowerBound = std::numeric_limits<float>::max();
    pushFrontier(lowerBound, entry);
  }
  visited_[entry] = epoch_;
  while (!frontier_.empty()) {
    const Entry current = frontier_.front();
    if (-current.first > lowerBound && (beam.size() == ef || !SkipDeleted)) break;
    std::pop_heap(frontier_.begin(), frontier_.end(), byDistance);
    frontier_.pop_back();
    const char* header = level0Header(graph, current.second);
    // hnswlib prefetches the next node to expand (its link list) while it scores this one's
    // neighbours: the node then nearest in the frontier is usually the next one.
    if (!frontier_.empty()) scoring_.touched += static_cast<unsigned char>(*level0Header(graph, frontier_.front().second));
    // The new neighbours first, then their distances, then the heaps in hnswlib's order: the
    // distances do not depend on the heaps, and scored four at a time their rows are fetched
    // together (the search waits on memory, not on arithmetic).
    const std::size_t fresh = scoreUnvisited(graph, query, header);
    for (std::size_t j = 0; j < fresh; ++j) {
      const std::uint32_t node = fresh_[j];
      const float d = freshDistances_[j];
      if (beam.size() < ef || lowerBound > d) {
        pushFrontier(d, node);
        if (!SkipDeleted || !deleted(graph, node)) pushBeam(d, node, kKeepsScores ? freshScores_[j] : 0.0f);
        if (beam.size() > ef) {
          std::pop_heap(beam.begin(), beam.end(), byDistance);
          beam.pop_back();
        }
        if (!beam.empty()) lowerBound = distanceOfEntry(beam.front());
      }
    }
  }
}

std::vector<std::uint32_t> FilteredGraphSearch::search(const GraphLayout& graph, const float* query, std::size_t ef,
                                                       const Label* slotLabels, const std::function<std::size_t(Id)>& rowOf,
                                                       const Eligibility& eligible, std::uint64_t maxEvaluations) {
  evaluations_ = 0;
  exhausted_ = false;
  scoresKept_ = false;
  foundScores_.clear();
  if (graph.nodes == 0 || ef == 0) return {};
  beginSearch(graph.nodes);
  const bool checkExcluded = !eligible.excludedIds().empty();
  const auto admits = [&](std::uint32_t node) {
    if (deleted(graph, node)) return false;
    if (slotLabels == nullptr) return eligible.admitsRow(rowOf(idOf(graph, node)));
    return eligible.allowsLabel(slotLabels[node]) && !(checkExcluded && eligible.excludesId(idOf(graph, node)));
  };

  // Upper layers: hnswlib's greedy descent, filter-blind (it only finds a start near the query).
  const auto [currentDistance, current] = graph.euclidean ? descend<true>(graph, query, evaluations_, freshDistances_, scoring_)
                                                          : descend<false>(graph, query, evaluations_, freshDistances_, scoring_);

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
    if (!frontier.empty()) scoring_.touched += static_cast<unsigned char>(*level0Header(graph, frontier.top().second));
    // As nearest(): the new neighbours, then their distances together, then the heaps in order.
    const std::size_t fresh = scoreUnvisited(graph, query, level0Header(graph, nearest.second));
    for (std::size_t j = 0; j < fresh; ++j) {
      const std::uint32_t node = fresh_[j];
      const float d = freshDistances_[j];
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
