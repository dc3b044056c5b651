// The graph's nodes renumbered so that neighbours lie near each other in memory
// (hnsw_detail::renumberBreadthFirst, HnswIndex::Graph::orderForLocality).
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "hnsw_graph.hpp"

namespace sublinear {

namespace {
using hnswlib::tableint;
using LinkHeader = hnswlib::linklistsizeint;

void renameLinks(LinkHeader* list, unsigned short count, const std::vector<tableint>& newNode) {
  auto* links = reinterpret_cast<tableint*>(list + 1);
  for (unsigned short j = 0; j < count; ++j) links[j] = newNode[links[j]];
}
}  // namespace

namespace hnsw_detail {

std::vector<tableint> renumberBreadthFirst(hnswlib::HierarchicalNSW<float>& hnsw) {
  const std::size_t n = hnsw.cur_element_count;
  std::vector<tableint> order;
  if (n == 0) return order;
  order.reserve(n);
  // The order: breadth first over the base layer from the entry point, each node's neighbours in
  // the order of its links. A search expands a node and then reads the rows of its neighbours: those
  // placed by it are now consecutive. Nodes no link reaches (stranded, or deleted and unlinked)
  // start the next search in their old order.
  constexpr tableint kUnplaced = std::numeric_limits<tableint>::max();
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
  // The base layer's records (links, data, label, deleted mark), moved in place along the
  // permutation's cycles: one record of extra memory, where a second copy of the layer might not fit
  // a heap near its limit.
  const std::size_t bytes = hnsw.size_data_per_element_;
  char* records = hnsw.data_level0_memory_;
  std::vector<char> held(bytes);
  std::vector<bool> moved(n, false);
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
  permute(hnsw.linkLists_, order);
  permute(hnsw.element_levels_.data(), order);
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
  return order;
}

}  // namespace hnsw_detail

void HnswIndex::Graph::orderForLocality() {
  syncReferences();
  const std::vector<tableint> order = hnsw_detail::renumberBreadthFirst(hnsw);
  std::vector<tableint> newNode(order.size());
  for (std::size_t node = 0; node < order.size(); ++node) newNode[order[node]] = static_cast<tableint>(node);
  // Freed slots keep their order (the last freed is reused first).
  for (auto& slot : freeSlots) slot = newNode[slot];
  if (!inlined()) {
    hnsw_detail::permute(references.data(), order);
    if (euclidean) hnsw_detail::permute(extras.data(), order);
  }
  if (slotLabels.size() == order.size()) {
    hnsw_detail::permute(slotLabels.data(), order);
  } else {
    slotLabels.clear();  // filled again by the next filtered search (syncSlotLabels)
  }
  ordered = order.size();
}

}  // namespace sublinear
