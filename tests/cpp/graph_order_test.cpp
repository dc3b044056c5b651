// The renumbering of an HNSW graph for locality (hnsw_detail::breadthFirstOrder and renumber, which
// a bulk build runs: HnswIndex::orderGraph): the renumbered graph must be the same graph (every node's
// label, level, data, deleted mark and links, renamed), numbered breadth first from the entry point;
// and an index whose graph was renumbered (and whose store rows follow the nodes) must answer as the
// same index with the graph as built (the internal option orderNodes "never"), in both storages,
// both layouts and both spaces, filtered or not, after removals and additions, and after a reload.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../../cpp/src/mips/hnsw_graph.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear::testing {
namespace graph_order_test {

using hnswlib::tableint;

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

std::vector<tableint> linksOf(hnswlib::HierarchicalNSW<float>& hnsw, tableint node, int layer) {
  hnswlib::linklistsizeint* list = hnsw.get_linklist_at_level(node, layer);
  const auto* links = reinterpret_cast<const tableint*>(list + 1);
  return std::vector<tableint>(links, links + hnsw.getListCount(list));
}

// An hnswlib graph over `store` (rows inlined in the records, the index's inner-product space),
// built by addPoint with levels from `levels`.
struct InlinedGraph {
  InlinedGraph(VectorStore& store, std::vector<float>& retired, std::size_t capacity)
      : space(GraphRows{&store, &retired, store.stride(), true}, store.dim(), paddedDimension(store.dim() + 1), false),
        hnsw(&space, capacity, 5, 30, 100) {
    hnsw.mult_ = 0.0;
    Random levels(3);
    std::vector<float> data(hnsw_detail::nodeDataFloats(space.rows()));
    for (std::size_t row = 0; row < store.size(); ++row) {
      hnsw_detail::writeNodeData(space.rows(), row, 0.0f, data.data());
      hnsw.addPoint(data.data(), 1000 + row, static_cast<int>(-std::log(1.0 - levels.uniform()) / std::log(5.0)));
    }
  }
  hnsw_detail::PaddedSpace space;
  hnswlib::HierarchicalNSW<float> hnsw;
};

TEST(GraphOrder, RenumberingKeepsTheGraphAndNumbersItBreadthFirst) {
  constexpr std::size_t kDim = 10, kCount = 1500;
  Random random(21);
  VectorStore store(kDim);
  for (std::size_t i = 0; i < kCount; ++i) store.add(static_cast<Id>(i), gaussian(random, kDim).data());
  std::vector<float> retired;
  InlinedGraph before(store, retired, kCount);
  InlinedGraph after(store, retired, kCount);
  // Deleted nodes, the entry point among them, travel with their records.
  for (tableint node : {tableint{7}, tableint{300}, before.hnsw.enterpoint_node_}) {
    before.hnsw.markDelete(before.hnsw.getExternalLabel(node));
    after.hnsw.markDelete(after.hnsw.getExternalLabel(node));
  }
  const std::vector<tableint> order = hnsw_detail::breadthFirstOrder(after.hnsw);
  ASSERT_EQ(order.size(), kCount);
  hnsw_detail::renumber(after.hnsw, order, hnsw_detail::inverse(order));
  std::vector<tableint> newNode(kCount, kCount);
  for (std::size_t p = 0; p < kCount; ++p) {
    ASSERT_EQ(newNode[order[p]], kCount) << "node " << order[p] << " placed twice";
    newNode[order[p]] = static_cast<tableint>(p);
  }
  ASSERT_NE(order, [&] {
    std::vector<tableint> identity(kCount);
    for (std::size_t p = 0; p < kCount; ++p) identity[p] = static_cast<tableint>(p);
    return identity;
  }()) << "the graph was not renumbered";
  EXPECT_EQ(after.hnsw.enterpoint_node_, 0u);
  EXPECT_EQ(order[0], before.hnsw.enterpoint_node_);
  EXPECT_EQ(after.hnsw.maxlevel_, before.hnsw.maxlevel_);
  for (tableint p = 0; p < kCount; ++p) {
    const tableint old = order[p];
    ASSERT_EQ(after.hnsw.getExternalLabel(p), before.hnsw.getExternalLabel(old));
    ASSERT_EQ(after.hnsw.label_lookup_.count(after.hnsw.getExternalLabel(p)), before.hnsw.label_lookup_.count(before.hnsw.getExternalLabel(old)));
    if (after.hnsw.label_lookup_.count(after.hnsw.getExternalLabel(p)) != 0) ASSERT_EQ(after.hnsw.label_lookup_.at(after.hnsw.getExternalLabel(p)), p);
    ASSERT_EQ(after.hnsw.isMarkedDeleted(p), before.hnsw.isMarkedDeleted(old));
    ASSERT_EQ(after.hnsw.element_levels_[p], before.hnsw.element_levels_[old]);
    ASSERT_EQ(std::memcmp(after.hnsw.getDataByInternalId(p), before.hnsw.getDataByInternalId(old), after.hnsw.data_size_), 0);
    for (int layer = 0; layer <= before.hnsw.element_levels_[old]; ++layer) {
      std::vector<tableint> renamed = linksOf(before.hnsw, old, layer);
      for (tableint& link : renamed) link = newNode[link];
      ASSERT_EQ(linksOf(after.hnsw, p, layer), renamed) << "node " << p << ", layer " << layer;
    }
  }
  // Breadth first: every node reached through the base layer comes after the node that reached it
  // first, and a node's unplaced neighbours follow each other in the order of its links.
  std::vector<bool> seen(kCount, false);
  seen[0] = true;
  tableint next = 1;
  for (tableint p = 0; p < kCount && next < kCount; ++p) {
    if (!seen[p]) {
      seen[p] = true;  // the start of another search (an unreachable node)
      next = std::max<tableint>(next, p + 1);
    }
    for (const tableint link : linksOf(after.hnsw, p, 0)) {
      if (seen[link]) continue;
      ASSERT_EQ(link, next) << "neighbour of node " << p;
      seen[link] = true;
      ++next;
    }
  }
  // The same answers from hnswlib's own search over both.
  for (int q = 0; q < 20; ++q) {
    std::vector<float> query(hnsw_detail::nodeDataFloats(before.space.rows()), 0.0f);
    const auto values = gaussian(random, kDim);
    std::copy(values.begin(), values.end(), query.begin());
    auto theirs = before.hnsw.searchKnn(query.data(), 10);
    auto ours = after.hnsw.searchKnn(query.data(), 10);
    ASSERT_EQ(ours.size(), theirs.size());
    while (!theirs.empty()) {
      ASSERT_EQ(ours.top(), theirs.top());
      ours.pop();
      theirs.pop();
    }
  }
}

// Answers, ids and scores, of two indexes for the same queries: plain, with a wider shortlist, and
// filtered by labels and exclusions.
void expectSameAnswers(MipsIndex& ordered, MipsIndex& asBuilt, Random& random, std::size_t dim, const std::vector<Id>& some) {
  for (int q = 0; q < 40; ++q) {
    const auto query = gaussian(random, dim);
    SearchOptions plain, wide, filtered;
    wide.shortlist = 40;
    filtered.labels = {static_cast<Label>(q % 3)};
    filtered.exclude = {some[static_cast<std::size_t>(q) % some.size()], some[(static_cast<std::size_t>(q) + 1) % some.size()]};
    for (const SearchOptions& options : {plain, wide, filtered}) {
      const SearchResult ours = ordered.search(query.data(), dim, 10, options);
      const SearchResult theirs = asBuilt.search(query.data(), dim, 10, options);
      ASSERT_EQ(ours.ids, theirs.ids) << "query " << q;
      ASSERT_EQ(ours.scores, theirs.scores) << "query " << q;
    }
  }
}

TEST(GraphOrder, AnIndexRenumberedByItsBuildAnswersAsTheGraphAsBuilt) {
  constexpr std::size_t kDim = 12;
  for (const char* storage : {"f32", "int8"}) {
    for (const char* inlineRows : {"always", "never"}) {
      for (const char* space : {"inner-product", "euclidean"}) {
        SCOPED_TRACE(std::string(storage) + " " + inlineRows + " " + space);
        const auto make = [&](const char* orderNodes) {
          return PersistentIndex(Json{{"type", "hnsw"}, {"dim", kDim}, {"storage", storage}, {"M", 6}, {"efConstruction", 40}, {"space", space},
                                      {"seed", 9}, {"inlineRows", inlineRows}, {"orderNodes", orderNodes}});
        };
        PersistentIndex ordered = make("auto");
        PersistentIndex asBuilt = make("never");
        Random random(31);
        Id next = 0;
        std::vector<Id> live;
        const auto add = [&](std::size_t count) {
          std::vector<Id> ids(count);
          for (Id& id : ids) id = next++;
          const auto vectors = gaussian(random, count * kDim);
          std::vector<Label> labels(count);
          for (std::size_t i = 0; i < count; ++i) labels[i] = ids[i] % 3;
          for (PersistentIndex* index : {&ordered, &asBuilt}) (*index)->add(ids.data(), count, vectors.data(), vectors.size(), labels.data(), count);
          live.insert(live.end(), ids.begin(), ids.end());
        };
        add(1500);
        for (PersistentIndex* index : {&ordered, &asBuilt}) ASSERT_EQ((*index)->build(1500), 0u);
        if (std::string(inlineRows) == "never") {
          // The built rows follow the renumbered nodes.
          EXPECT_NE(ordered->items().ids(), asBuilt->items().ids());
        }
        expectSameAnswers(*ordered, *asBuilt, random, kDim, live);
        // Removals (rows move, slots are freed), then additions that reuse the slots and double the
        // graph, renumbered again at the build.
        random.shuffle(live);
        const std::vector<Id> gone(live.end() - 200, live.end());
        live.resize(live.size() - 200);
        for (PersistentIndex* index : {&ordered, &asBuilt}) (*index)->remove(gone.data(), gone.size());
        expectSameAnswers(*ordered, *asBuilt, random, kDim, live);
        add(1800);
        for (PersistentIndex* index : {&ordered, &asBuilt}) ASSERT_EQ((*index)->build(1800), 0u);
        expectSameAnswers(*ordered, *asBuilt, random, kDim, live);
        const auto bytes = ordered.toBytes();
        PersistentIndex restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "");
        EXPECT_EQ(restored->stats(), ordered->stats());
        expectSameAnswers(*restored, *asBuilt, random, kDim, live);
      }
    }
  }
}

}  // namespace graph_order_test
}  // namespace sublinear::testing
