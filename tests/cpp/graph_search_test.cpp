// FilteredGraphSearch::nearest, the unfiltered search HnswIndex runs in place of hnswlib 0.6.2's
// searchKnn, must be searchKnn step for step: the same nodes in the same order and the same number
// of distances, on graphs with and without deleted nodes, in both spaces, at every beam, while one
// search object (whose visited marks and heaps are reused) serves graphs of different sizes in turn.
// The graph is hnswlib's own, built here with the index's space (hnsw_graph.hpp, the one header
// besides HnswIndex's sources that sees hnswlib).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "../../cpp/src/mips/hnsw_graph.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/filtered_graph_search.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear::testing {
namespace graph_search_test {

struct TestGraph {
  // Items of stride - 1 coordinates in a store (rows padded to `stride`), the graph's nodes referring
  // to them; in the euclidean space each node also carries an extra coordinate (any value serves
  // the comparison).
  TestGraph(std::size_t count, std::size_t stride, bool euclidean, std::uint64_t seed)
      : store(stride - 1),
        space(GraphRows{&store, &retired, store.stride()}, stride - 1, stride, euclidean),
        hnsw(&space, std::max<std::size_t>(count, 1), 8, 40, static_cast<std::size_t>(seed)) {
    Random random(seed);
    std::vector<float> row(stride - 1, 0.0f);
    for (std::size_t i = 0; i < count; ++i) {
      for (float& value : row) value = static_cast<float>(random.normal());
      // Labels that are not the node numbers: the result order must follow labels, not nodes.
      const Id label = static_cast<Id>(1000 + 7 * (count - i));
      store.add(label, row.data());
      float data[2];
      hnsw_detail::writeNodeData(data, static_cast<std::uint32_t>(i), euclidean ? static_cast<float>(random.normal()) : 0.0f);
      hnsw.addPoint(data, label);
    }
  }
  VectorStore store;
  std::vector<float> retired;
  hnsw_detail::PaddedSpace space;
  hnswlib::HierarchicalNSW<float> hnsw;
};

// hnswlib's searchKnn, asked about a query: the query must be a node's data (a reference), so it is
// added to the store (and removed after) and referred to. Its extra coordinate is 0, as a query's.
std::vector<std::uint32_t> searchKnnNodes(TestGraph& graph, const float* query, std::size_t ef, std::size_t k) {
  constexpr Id kQueryId = 1;
  graph.store.add(kQueryId, query);
  float data[2];
  hnsw_detail::writeNodeData(data, static_cast<std::uint32_t>(graph.store.rowOf(kQueryId)), 0.0f);
  graph.hnsw.setEf(ef);
  auto found = graph.hnsw.searchKnn(data, k);
  graph.store.remove(kQueryId);
  std::vector<std::uint32_t> nodes;
  for (; !found.empty(); found.pop()) nodes.push_back(graph.hnsw.label_lookup_.at(found.top().second));
  return nodes;
}

void expectSameAsSearchKnn(FilteredGraphSearch& search, TestGraph& graph, Random& random, std::size_t ef, std::size_t k) {
  const std::size_t stride = graph.space.stride();
  // The item's coordinates, then the padding (where the euclidean query's extra coordinate, 0, is).
  std::vector<float> query(stride, 0.0f);
  for (std::size_t j = 0; j + 1 < stride; ++j) query[j] = static_cast<float>(random.normal());
  const std::uint64_t before = graph.space.evaluations();
  const auto expected = searchKnnNodes(graph, query.data(), ef, k);
  const std::uint64_t theirs = graph.space.evaluations() - before;
  const GraphLayout layout = hnsw_detail::layoutOf(graph.hnsw, graph.space);
  const auto& ours = search.nearest(layout, query.data(), ef, k, graph.hnsw.num_deleted_ != 0);
  ASSERT_EQ(std::vector<std::uint32_t>(ours.begin(), ours.end()), expected) << "ef " << ef << ", k " << k;
  EXPECT_EQ(search.evaluations(), theirs) << "ef " << ef << ", k " << k;
}

TEST(GraphSearch, NearestIsSearchKnnStepForStepWithBuffersReusedAcrossGraphs) {
  Random random(11);
  FilteredGraphSearch search;
  for (const bool euclidean : {false, true}) {
    TestGraph large(3000, 12, euclidean, 5);
    TestGraph small(200, 8, euclidean, 6);
    for (const std::size_t ef : {1, 10, 37, 150}) {
      for (const std::size_t k : {1, 10, 64}) {
        // Alternating graphs: the marks of the larger graph's searches must not hide nodes of the
        // smaller one, nor its heaps leak entries into the next search.
        expectSameAsSearchKnn(search, large, random, ef, k);
        expectSameAsSearchKnn(search, small, random, ef, k);
      }
    }
    // Deleted nodes: searchKnn switches to its other loop (the beam waits to fill before it stops).
    for (hnswlib::tableint node = 0; node < 3000; node += 3) large.hnsw.markDeletedInternal(node);
    large.hnsw.markDeletedInternal(large.hnsw.enterpoint_node_);  // a no-op when already marked
    for (const std::size_t ef : {1, 10, 100}) {
      for (const std::size_t k : {1, 10, 30}) expectSameAsSearchKnn(search, large, random, ef, k);
    }
  }
}

TEST(GraphSearch, VisitedMarksStayRightPastTheirWrapAround) {
  // The marks are 16-bit epochs: after 65,535 searches they are cleared and counting starts again.
  // Searches on both sides of the wrap must still be searchKnn's.
  TestGraph graph(300, 8, false, 9);
  FilteredGraphSearch search;
  Random random(3);
  std::vector<float> query(8, 0.5f);
  const GraphLayout layout = hnsw_detail::layoutOf(graph.hnsw, graph.space);
  for (std::size_t i = 0; i < 70000; ++i) {
    if (i % 5000 == 0 || (i >= 65530 && i <= 65540)) {
      expectSameAsSearchKnn(search, graph, random, 12, 10);
    } else {
      search.nearest(layout, query.data(), 12, 10, false);
    }
  }
}

TEST(GraphSearch, NearestOnAnEmptyGraphOrForNothingFindsNothing) {
  TestGraph empty(0, 4, false, 1);
  FilteredGraphSearch search;
  const std::vector<float> query(4, 1.0f);
  EXPECT_TRUE(search.nearest(hnsw_detail::layoutOf(empty.hnsw, empty.space), query.data(), 10, 10, false).empty());
  TestGraph some(50, 4, false, 2);
  EXPECT_TRUE(search.nearest(hnsw_detail::layoutOf(some.hnsw, some.space), query.data(), 10, 0, false).empty());
  EXPECT_EQ(search.nearest(hnsw_detail::layoutOf(some.hnsw, some.space), query.data(), 10, 5, false).size(), 5u);
}

}  // namespace graph_search_test
}  // namespace sublinear::testing
