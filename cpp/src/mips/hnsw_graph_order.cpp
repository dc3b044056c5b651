// The graph's nodes renumbered so that neighbours lie near each other in memory
// (hnsw_detail::breadthFirstOrder and renumber, HnswIndex::Graph::orderForLocality).
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "hnsw_graph.hpp"

namespace sublinear {

namespace {
using hnswlib::tableint;
using LinkHeader = hnswlib::linklistsizeint;

constexpr tableint kUnplaced = std::numeric_limits<tableint>::max();

void renameLinks(LinkHeader* list, unsigned short count, const std::vector<tableint>& newNode) {
  auto* links = reinterpret_cast<tableint*>(list + 1);
  for (unsigned short j = 0; j < count; ++j) links[j] = newNode[links[j]];
}
}  // namespace

namespace hnsw_detail {

std::vector<tableint> breadthFirstOrder(hnswlib::HierarchicalNSW<float>& hnsw) {
  const std::size_t n = hnsw.cur_element_count;
  std::vector<tableint> order;
  if (n == 0) return order;
  order.reserve(n);
  // Breadth first over the base layer from the entry point, each node's neighbours in the order of
  // its links. A search expands a node and then reads the rows of its neighbours: those placed by
  // it become consecutive. Nodes no link reaches (stranded, or deleted and unlinked) start the next
  // search in their old order.
  std::vector<tableint> newNode(n, kUnplaced);
  const auto place = [&](tableint node) {
    if (newNode[node] != kUnplaced) return;
    newNode[node] = static_cast<tableint>(order.size());
    order.push_back(node);
  };
  std::size_t head = 0;
  tableint unplaced = 0;
  for (tableint start = hnsw.enterpoint_node_;;) {
    place(start);
    for (; head < order.size(); ++head) {
      LinkHeader* list = hnsw.get_linklist0(order[head]);
      const auto* links = reinterpret_cast<const tableint*>(list + 1);
      for (unsigned short j = 0, count = hnsw.getListCount(list); j < count; ++j) place(links[j]);
    }
    while (unplaced < n && newNode[unplaced] != kUnplaced) ++unplaced;
    if (unplaced == n) break;
    start = unplaced;
  }
  return order;
}

std::vector<tableint> inverse(const std::vector<tableint>& order) {
  std::vector<tableint> newNode(order.size());
  for (std::size_t p = 0; p < order.size(); ++p) newNode[order[p]] = static_cast<tableint>(p);
  return newNode;
}

void renumber(hnswlib::HierarchicalNSW<float>& hnsw, const std::vector<tableint>& order, const std::vector<tableint>& newNode) {
  const std::size_t n = order.size();
  // Everything this allocates, before the graph changes: nothing below throws.
  const std::size_t bytes = hnsw.size_data_per_element_;
  std::vector<char> held(bytes);
  std::vector<bool> moved(n, false);
  std::vector<char*> upper(n);
  std::vector<int> levels(n);
  for (std::size_t p = 0; p < n; ++p) {
    upper[p] = hnsw.linkLists_[order[p]];
    levels[p] = hnsw.element_levels_[order[p]];
  }
  // The base layer's records (links, data, label, deleted mark), moved in place along the
  // permutation's cycles: one record of extra memory, where a second copy of the layer might not fit
  // a heap near its limit.
  char* records = hnsw.data_level0_memory_;
  for (std::size_t start = 0; start < n; ++start) {
    if (moved[start] || order[start] == start) continue;
    std::memcpy(held.data(), records + start * bytes, bytes);
    std::size_t to = start;
    for (std::size_t from = order[to]; from != start; to = from, from = order[to]) {
      std::memcpy(records + to * bytes, records + from * bytes, bytes);
      moved[to] = true;
    }
    std::memcpy(records + to * bytes, held.data(), bytes);
    moved[to] = true;
  }
  std::copy(upper.begin(), upper.end(), hnsw.linkLists_);
  std::copy(levels.begin(), levels.end(), hnsw.element_levels_.begin());
  for (tableint node = 0; node < n; ++node) {
    LinkHeader* list = hnsw.get_linklist0(node);
    renameLinks(list, hnsw.getListCount(list), newNode);
    for (int layer = 1; layer <= hnsw.element_levels_[node]; ++layer) {
      list = hnsw.get_linklist(node, layer);
      renameLinks(list, hnsw.getListCount(list), newNode);
    }
  }
  for (auto& entry : hnsw.label_lookup_) entry.second = newNode[entry.second];
  hnsw.enterpoint_node_ = newNode[hnsw.enterpoint_node_];
}

}  // namespace hnsw_detail

void HnswIndex::Graph::orderForLocality() {
  syncReferences();
  // The order, and every per-node array in it, before the graph changes: an allocation that fails
  // leaves the graph as it was.
  const std::vector<tableint> order = hnsw_detail::breadthFirstOrder(hnsw);
  const std::vector<tableint> newNode = hnsw_detail::inverse(order);
  std::vector<Label> orderedLabels;
  // Slot labels shorter than the graph are filled again by the next filtered search (syncSlotLabels).
  if (slotLabels.size() == order.size()) orderedLabels = hnsw_detail::permuted(slotLabels, order);
  hnsw_detail::renumber(hnsw, order, newNode);
  slotLabels.swap(orderedLabels);
  // The dense references and extra coordinates copied again from the records, which moved with
  // their nodes (within the vectors' capacity: no allocation).
  references.clear();
  extras.clear();
  syncReferences();
  // Freed slots keep their order (the last freed is reused first).
  for (auto& slot : freeSlots) slot = newNode[slot];
  ordered = order.size();
}

}  // namespace sublinear
