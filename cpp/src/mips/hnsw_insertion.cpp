// GraphInserter (hnsw_graph.hpp): hnswlib 0.6.2's addPoint, searchBaseLayer,
// getNeighborsByHeuristic2 and mutuallyConnectNewElement (hnswalg.h) over the graph's dense
// references or its inlined rows. Comments name hnswlib's variables where the code follows them.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <stdexcept>

#include "hnsw_graph.hpp"

namespace sublinear {
namespace hnsw_detail {

namespace {

using Hnsw = hnswlib::HierarchicalNSW<float>;
using hnswlib::tableint;

// hnswlib's CompareByFirst: its priority queues order by distance alone, and ties fall where the
// heap operations leave them. The vectors here are heaps under the same comparison, changed with
// push_heap and pop_heap exactly where std::priority_queue's push and pop call them, so they leave
// ties where hnswlib's queues do.
struct CompareByFirst {
  bool operator()(const std::pair<float, tableint>& a, const std::pair<float, tableint>& b) const noexcept { return a.first < b.first; }
};

template <class Heap, class... Args>
void push(Heap& heap, Args&&... args) {
  heap.emplace_back(std::forward<Args>(args)...);
  std::push_heap(heap.begin(), heap.end(), CompareByFirst());
}

template <class Heap>
void pop(Heap& heap) {
  std::pop_heap(heap.begin(), heap.end(), CompareByFirst());
  heap.pop_back();
}

// The space's distance (PaddedSpace::get_dist_func) between two vectors given as rows and extra
// coordinates, with the nodes' rows found through the dense references, or in their records when
// the rows are inlined (GraphRows). Every one of these
// distances is symmetric to the bit (products and sums of two terms commute, and a - b is exactly
// -(b - a)), so the argument order hnswlib uses need not be kept. The space is chosen by a branch
// per distance (or per four), not by a template: the insertion's code once rather than four times
// in the module (55 KB of wasm), and the branch always goes the same way.
struct Metric {
  GraphRows rows;
  std::size_t dim;
  std::size_t codeBytes;  // int8 storage: the codes' length; 0 for float rows
  bool euclidean;
  const std::uint32_t* references;
  const float* extras;
  // Inlined: the nodes' data in hnswlib's level-0 memory (resizeIndex moves it, but never during an
  // insertion).
  const char* records;
  std::size_t recordBytes;

  const char* dataOf(tableint node) const { return records + static_cast<std::size_t>(node) * recordBytes; }
  const float* rowOf(tableint node) const {
    return rows.inlined ? reinterpret_cast<const float*>(dataOf(node)) : rows.row(references[node]);
  }
  float extraOf(tableint node) const {
    if (!euclidean) return 0.0f;
    return rows.inlined ? rows.extraOfData(dataOf(node)) : extras[node];
  }

  float distance(const float* a, float extraA, const float* b, float extraB) const {
    if (codeBytes > 0) {
      return euclidean ? quantised::euclideanDistance(a, extraA, b, extraB, codeBytes) : quantised::innerProductDistance(a, b, codeBytes);
    }
    return euclidean ? lanes::graphSquaredDistanceExtended(a, b, rows.rowFloats, dim, extraA - extraB)
                     : 1.0f - lanes::graphInnerProduct(a, b, rows.rowFloats);
  }
  float between(tableint a, tableint b) const { return distance(rowOf(a), extraOf(a), rowOf(b), extraOf(b)); }

  // out[i] = distance(rows[i], extras[i], row, extra) for i < count: four rows at a time as
  // FilteredGraphSearch scores them (lanes::graphDistances4), with the bits of one at a time.
  void distances(const float* const* rowsOf, const float* extrasOf, std::size_t count, const float* row, float extra, float* out) const {
    std::size_t i = codeBytes == 0 ? lanes::graphDistances4(euclidean, rowsOf, extrasOf, extra, count, row, rows.rowFloats, dim, out)
                                   : quantised::graphDistances4(euclidean, rowsOf, extrasOf, row, extra, count, codeBytes, out);
    for (; i < count; ++i) out[i] = distance(rowsOf[i], extrasOf[i], row, extra);
  }
};

hnswlib::linklistsizeint* listAt(Hnsw& hnsw, tableint node, int layer) {
  return layer == 0 ? hnsw.get_linklist0(node) : hnsw.get_linklist(node, layer);
}

}  // namespace

template <class M>
void GraphInserter::score(const M& metric, const tableint* nodes, std::size_t count, const float* row, float extra, float* out) {
  if (rows_.size() < count) {
    rows_.resize(count);
    extras_.resize(count);
  }
  // Every reference before any row: the rows' memory is fetched together.
  for (std::size_t i = 0; i < count; ++i) {
    rows_[i] = metric.rowOf(nodes[i]);
    extras_[i] = metric.extraOf(nodes[i]);
  }
  touched_ += touchRows(rows_.data(), count, metric.rows.rowFloats * sizeof(float));
  metric.distances(rows_.data(), extras_.data(), count, row, extra, out);
  evaluations_ += count;
}

// searchBaseLayer(ep_id, data_point, layer): the ef_construction_ nearest nodes to the vector (row,
// extra) that the beam from `entry` finds on `layer`, into beam_ (a heap, farthest on top).
template <class M>
void GraphInserter::searchLayer(Hnsw& hnsw, const M& metric, hnswlib::VisitedList& visited, tableint entry, const float* row,
                                float extra, int layer) {
  visited.reset();
  hnswlib::vl_type* marks = visited.mass;
  const hnswlib::vl_type tag = visited.curV;
  const std::size_t ef = hnsw.ef_construction_;
  // A deleted mark is a byte in the node's record, a cache miss of its own for every candidate the
  // beam takes: read only when some node is marked (nothing marks or unmarks nodes during a build).
  const bool anyDeleted = hnsw.num_deleted_ != 0;
  beam_.clear();
  frontier_.clear();
  float lowerBound;
  if (!hnsw.isMarkedDeleted(entry)) {
    const float d = metric.distance(row, extra, metric.rowOf(entry), metric.extraOf(entry));
    ++evaluations_;
    push(beam_, d, entry);
    lowerBound = d;
    push(frontier_, -d, entry);
  } else {
    lowerBound = std::numeric_limits<float>::max();
    push(frontier_, -lowerBound, entry);
  }
  marks[entry] = tag;
  while (!frontier_.empty()) {
    const Entry current = frontier_.front();
    if (-current.first > lowerBound && beam_.size() == ef) break;
    pop(frontier_);
    // The unvisited neighbours, copied under the node's lock (a concurrent insertion may be
    // relinking it), then scored without it.
    std::size_t fresh = 0;
    {
      std::unique_lock<std::mutex> lock(hnsw.link_list_locks_[current.second]);
      hnswlib::linklistsizeint* list = listAt(hnsw, current.second, layer);
      const std::size_t size = hnsw.getListCount(list);
      const auto* links = reinterpret_cast<const tableint*>(list + 1);
      for (std::size_t j = 0; j < size; ++j) {
        const tableint candidate = links[j];
        if (marks[candidate] == tag) continue;
        marks[candidate] = tag;
        fresh_[fresh++] = candidate;
      }
    }
    score(metric, fresh_.data(), fresh, row, extra, distances_.data());
    for (std::size_t j = 0; j < fresh; ++j) {
      const tableint candidate = fresh_[j];
      const float d = distances_[j];
      if (beam_.size() < ef || lowerBound > d) {
        push(frontier_, -d, candidate);
        if (!anyDeleted || !hnsw.isMarkedDeleted(candidate)) push(beam_, d, candidate);
        if (beam_.size() > ef) pop(beam_);
        if (!beam_.empty()) lowerBound = beam_.front().first;
      }
    }
  }
}

// getNeighborsByHeuristic2(top_candidates, M): keeps in `heap` at most M of its nodes, each nearer
// the vector than to every node kept before it.
template <class M>
void GraphInserter::selectNeighbours(std::vector<Entry>& heap, std::size_t count, const M& metric) {
  if (heap.size() < count) return;
  // hnswlib moves the heap into queue_closest, a max-heap of (-distance, node) under pair's own
  // order, and pops it: nearest first, equal distances by larger node first. The nodes are distinct,
  // so that order is total and a sort gives it, whatever order the heap held them in.
  closest_.clear();
  for (const Entry& entry : heap) closest_.emplace_back(-entry.first, entry.second);
  std::sort(closest_.begin(), closest_.end(), std::greater<Entry>());
  heap.clear();
  chosen_.clear();
  for (const Entry& candidate : closest_) {
    if (chosen_.size() >= count) break;
    const float toQuery = -candidate.first;
    bool good = true;
    for (const Entry& kept : chosen_) {
      ++evaluations_;
      if (metric.between(kept.second, candidate.second) < toQuery) {
        good = false;
        break;
      }
    }
    if (good) chosen_.push_back(candidate);
  }
  for (const Entry& kept : chosen_) push(heap, -kept.first, kept.second);
}

// mutuallyConnectNewElement(data_point, cur_c, top_candidates = beam_, level, isUpdate = false):
// links the new node to the neighbours selected from beam_ and them to it; returns the nearest.
template <class M>
tableint GraphInserter::connect(Hnsw& hnsw, const M& metric, tableint node, int layer) {
  const std::size_t maxLinks = layer ? hnsw.maxM_ : hnsw.maxM0_;
  selectNeighbours(beam_, hnsw.M_, metric);
  if (beam_.size() > hnsw.M_) throw std::runtime_error("Should be not be more than M_ candidates returned by the heuristic");
  selected_.clear();
  while (!beam_.empty()) {
    selected_.push_back(beam_.front().second);
    pop(beam_);
  }
  const tableint nextClosest = selected_.back();
  {
    // The new node's own list: its lock is held by add() for the whole insertion.
    hnswlib::linklistsizeint* own = listAt(hnsw, node, layer);
    if (*own) throw std::runtime_error("The newly inserted element should have blank link list");
    hnsw.setListCount(own, static_cast<unsigned short>(selected_.size()));
    auto* links = reinterpret_cast<tableint*>(own + 1);
    for (std::size_t i = 0; i < selected_.size(); ++i) {
      if (links[i]) throw std::runtime_error("Possible memory corruption");
      if (layer > hnsw.element_levels_[selected_[i]]) throw std::runtime_error("Trying to make a link on a non-existent level");
      links[i] = selected_[i];
    }
  }
  for (const tableint neighbour : selected_) {
    std::unique_lock<std::mutex> lock(hnsw.link_list_locks_[neighbour]);
    hnswlib::linklistsizeint* other = listAt(hnsw, neighbour, layer);
    const std::size_t size = hnsw.getListCount(other);
    if (size > maxLinks) throw std::runtime_error("Bad value of sz_link_list_other");
    if (neighbour == node) throw std::runtime_error("Trying to connect an element to itself");
    if (layer > hnsw.element_levels_[neighbour]) throw std::runtime_error("Trying to make a link on a non-existent level");
    auto* links = reinterpret_cast<tableint*>(other + 1);
    if (size < maxLinks) {
      links[size] = node;
      hnsw.setListCount(other, static_cast<unsigned short>(size + 1));
      continue;
    }
    // A full list: the new node and the old links compete under the heuristic, each by its distance
    // to the neighbour (hnswlib's candidates: the new node's first, then the links in order).
    fresh_[0] = node;
    std::copy(links, links + size, fresh_.begin() + 1);
    score(metric, fresh_.data(), size + 1, metric.rowOf(neighbour), metric.extraOf(neighbour), distances_.data());
    overflow_.clear();
    for (std::size_t j = 0; j <= size; ++j) push(overflow_, distances_[j], fresh_[j]);
    selectNeighbours(overflow_, maxLinks, metric);
    std::size_t kept = 0;
    while (!overflow_.empty()) {
      links[kept++] = overflow_.front().second;
      pop(overflow_);
    }
    hnsw.setListCount(other, static_cast<unsigned short>(kept));
  }
  return nextClosest;
}

template <class M>
tableint GraphInserter::addWith(Hnsw& hnsw, const M& metric, std::uint32_t* references, float* extras, const float* data,
                                hnswlib::labeltype label, int level) {
  // Room for any link list (a full list and the new node) in the scoring buffers.
  const std::size_t longest = hnsw.maxM0_ + 1;
  if (fresh_.size() < longest) {
    fresh_.resize(longest);
    distances_.resize(longest);
  }
  tableint node;
  {
    std::unique_lock<std::mutex> guard(hnsw.cur_element_count_guard_);
    // addPoint would update an item already in the graph; HnswIndex never asks for that.
    if (hnsw.label_lookup_.count(label) != 0) throw std::logic_error("GraphInserter::add: the label is already in the graph");
    if (hnsw.cur_element_count >= hnsw.max_elements_) throw std::runtime_error("The number of elements exceeds the specified limit");
    node = static_cast<tableint>(hnsw.cur_element_count);
    ++hnsw.cur_element_count;
    hnsw.label_lookup_[label] = node;
  }
  std::unique_lock<std::mutex> updateLock(hnsw.link_list_update_locks_[node & (Hnsw::max_update_element_locks - 1)]);
  std::unique_lock<std::mutex> nodeLock(hnsw.link_list_locks_[node]);
  std::unique_lock<std::mutex> topLock(hnsw.global);
  const int topLevel = hnsw.maxlevel_;
  if (level <= topLevel) topLock.unlock();
  tableint current = hnsw.enterpoint_node_;
  const tableint entry = hnsw.enterpoint_node_;

  std::memset(hnsw.data_level0_memory_ + node * hnsw.size_data_per_element_ + hnsw.offsetLevel0_, 0, hnsw.size_data_per_element_);
  std::memcpy(hnsw.getExternalLabeLp(node), &label, sizeof(label));
  std::memcpy(hnsw.getDataByInternalId(node), data, hnsw.data_size_);
  const float extra = metric.euclidean ? metric.rows.extraOfData(data) : 0.0f;
  if (references != nullptr) references[node] = nodeReference(data);
  if (extras != nullptr) extras[node] = extra;
  if (level > 0) {
    // hnswlib sets the level first; here it follows the allocation, so that a failed one leaves no
    // level claiming a list the destructor would free.
    hnsw.linkLists_[node] = static_cast<char*>(std::malloc(hnsw.size_links_per_element_ * level + 1));
    if (hnsw.linkLists_[node] == nullptr) throw std::bad_alloc();
    std::memset(hnsw.linkLists_[node], 0, hnsw.size_links_per_element_ * level + 1);
  }
  hnsw.element_levels_[node] = level;

  if (static_cast<int>(current) != -1) {
    const float* row = metric.rowOf(node);
    if (level < topLevel) {
      // The greedy descent to the node's top level: the nearest neighbour, layer by layer, moving
      // while one is nearer (each list scored whole, then taken in order: the same moves).
      float currentDistance = metric.distance(row, extra, metric.rowOf(current), metric.extraOf(current));
      ++evaluations_;
      for (int layer = topLevel; layer > level; --layer) {
        for (bool changed = true; changed;) {
          changed = false;
          std::size_t size;
          {
            std::unique_lock<std::mutex> lock(hnsw.link_list_locks_[current]);
            hnswlib::linklistsizeint* list = hnsw.get_linklist(current, layer);
            size = hnsw.getListCount(list);
            const auto* links = reinterpret_cast<const tableint*>(list + 1);
            std::copy(links, links + size, fresh_.begin());
          }
          score(metric, fresh_.data(), size, row, extra, distances_.data());
          for (std::size_t i = 0; i < size; ++i) {
            if (distances_[i] < currentDistance) {
              currentDistance = distances_[i];
              current = fresh_[i];
              changed = true;
            }
          }
        }
      }
    }
    const bool entryDeleted = hnsw.isMarkedDeleted(entry);
    hnswlib::VisitedList* visited = hnsw.visited_list_pool_->getFreeVisitedList();
    try {
      for (int layer = std::min(level, topLevel); layer >= 0; --layer) {
        searchLayer(hnsw, metric, *visited, current, row, extra, layer);
        if (entryDeleted) {
          push(beam_, metric.distance(row, extra, metric.rowOf(entry), metric.extraOf(entry)), entry);
          ++evaluations_;
          if (beam_.size() > hnsw.ef_construction_) pop(beam_);
        }
        current = connect(hnsw, metric, node, layer);
      }
    } catch (...) {
      hnsw.visited_list_pool_->releaseVisitedList(visited);
      throw;
    }
    hnsw.visited_list_pool_->releaseVisitedList(visited);
  } else {
    // The first node.
    hnsw.enterpoint_node_ = 0;
    hnsw.maxlevel_ = level;
  }
  if (level > topLevel) {
    hnsw.enterpoint_node_ = node;
    hnsw.maxlevel_ = level;
  }
  return node;
}

tableint GraphInserter::add(Hnsw& hnsw, const PaddedSpace& space, std::uint32_t* references, float* extras, const float* data,
                            hnswlib::labeltype label, int level) {
  const Metric metric{space.rows(), space.dim(), space.codeBytes(), space.euclidean(), references, extras,
                      hnsw.data_level0_memory_ + hnsw.offsetData_, hnsw.size_data_per_element_};
  return addWith(hnsw, metric, references, extras, data, label, level);
}

}  // namespace hnsw_detail
}  // namespace sublinear
