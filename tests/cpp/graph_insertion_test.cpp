// GraphInserter, the insertion HnswIndex runs in place of hnswlib 0.6.2's addPoint, must build the
// graph addPoint builds: the same levels, entry point and link lists at every layer, with the same
// number of distance computations, in both spaces, in float and int8 storage, with rows scored four
// at a time and one at a time, with the rows referenced and inlined (in both graphs' records), and
// with deleted nodes (the entry point among them) in the graph.
// Both graphs are hnswlib's own, over one store (hnsw_graph.hpp, the one header besides HnswIndex's
// sources that sees hnswlib). A threaded build cannot be compared link by link (its links depend
// on timing): it must give a sound graph that finds the nearest items.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "../../cpp/src/mips/hnsw_graph.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/filtered_graph_search.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear::testing {
namespace graph_insertion_test {

using hnswlib::tableint;

struct Rows {
  Rows(std::size_t dim, VectorStorage storage) : store(dim, storage) {}
  VectorStore store;
  std::vector<float> retired;
};

// One graph over `rows`: hnswlib's, in the index's space, with the index's level multiplier (0:
// levels come from the caller), and the dense references GraphInserter keeps (unused inlined).
struct TestGraph {
  TestGraph(Rows& rows, bool euclidean, std::size_t capacity, std::size_t M, std::size_t efConstruction, bool inlined = false)
      : space(GraphRows{&rows.store, &rows.retired, rows.store.stride(), inlined}, rows.store.dim(),
              rows.store.quantised() ? quantised::graphVectorBytes(quantised::codeBytes(rows.store.dim())) / sizeof(float)
                                     : paddedDimension(rows.store.dim() + 1),
              euclidean, rows.store.quantised() ? quantised::codeBytes(rows.store.dim()) : 0),
        hnsw(&space, capacity, M, efConstruction, 100),
        references(capacity),
        extras(capacity) {
    hnsw.mult_ = 0.0;
  }
  hnsw_detail::PaddedSpace space;
  hnswlib::HierarchicalNSW<float> hnsw;
  std::vector<std::uint32_t> references;
  std::vector<float> extras;
  bool inlined() const { return space.rows().inlined; }
  std::uint32_t* referencesOrNull() { return inlined() ? nullptr : references.data(); }
};

std::vector<tableint> linksOf(hnswlib::HierarchicalNSW<float>& hnsw, tableint node, int layer) {
  hnswlib::linklistsizeint* list = hnsw.get_linklist_at_level(node, layer);
  const auto* links = reinterpret_cast<const tableint*>(list + 1);
  return std::vector<tableint>(links, links + hnsw.getListCount(list));
}

void expectSameGraph(TestGraph& theirs, TestGraph& ours) {
  ASSERT_EQ(ours.hnsw.cur_element_count, theirs.hnsw.cur_element_count);
  EXPECT_EQ(ours.hnsw.maxlevel_, theirs.hnsw.maxlevel_);
  EXPECT_EQ(ours.hnsw.enterpoint_node_, theirs.hnsw.enterpoint_node_);
  for (tableint node = 0; node < theirs.hnsw.cur_element_count; ++node) {
    ASSERT_EQ(ours.hnsw.element_levels_[node], theirs.hnsw.element_levels_[node]) << "node " << node;
    ASSERT_EQ(ours.hnsw.getExternalLabel(node), theirs.hnsw.getExternalLabel(node)) << "node " << node;
    ASSERT_EQ(std::memcmp(ours.hnsw.getDataByInternalId(node), theirs.hnsw.getDataByInternalId(node), ours.hnsw.data_size_), 0);
    for (int layer = 0; layer <= theirs.hnsw.element_levels_[node]; ++layer) {
      ASSERT_EQ(linksOf(ours.hnsw, node, layer), linksOf(theirs.hnsw, node, layer)) << "node " << node << ", layer " << layer;
    }
  }
}

// Adds rows [from, to) of the store (label 10 + row) to both graphs at the same levels: hnswlib's
// addPoint into `theirs`, GraphInserter into `ours`; their distance counts must agree.
void addBoth(TestGraph& theirs, TestGraph& ours, hnsw_detail::GraphInserter& inserter, std::size_t from, std::size_t to,
             Random& levels, bool euclidean) {
  const double levelScale = 1.0 / std::log(static_cast<double>(theirs.hnsw.M_));
  for (std::size_t row = from; row < to; ++row) {
    const int level = static_cast<int>(-std::log(1.0 - levels.uniform()) * levelScale);
    // Any nonnegative extra coordinate serves the comparison.
    const float extra = euclidean ? static_cast<float>(std::abs(levels.normal())) : 0.0f;
    std::vector<float> data(hnsw_detail::nodeDataFloats(ours.space.rows()));
    hnsw_detail::writeNodeData(ours.space.rows(), row, extra, data.data());
    const std::uint64_t before = theirs.space.evaluations();
    theirs.hnsw.addPoint(data.data(), 10 + row, level);
    const std::uint64_t counted = theirs.space.evaluations() - before;
    const tableint slot = inserter.add(ours.hnsw, ours.space, ours.referencesOrNull(),
                                       euclidean && !ours.inlined() ? ours.extras.data() : nullptr, data.data(), 10 + row, level);
    ASSERT_EQ(slot, row);
    ASSERT_EQ(inserter.takeEvaluations(), counted) << "row " << row;
    if (!ours.inlined()) {
      ASSERT_EQ(ours.references[slot], row);
    }
  }
  // The inserter never calls hnswlib's distance.
  EXPECT_EQ(ours.space.evaluations(), 0u);
}

void fill(Rows& rows, std::size_t count, Random& random) {
  std::vector<float> vector(rows.store.dim());
  for (std::size_t i = 0; i < count; ++i) {
    for (float& value : vector) value = static_cast<float>(random.normal());
    rows.store.add(static_cast<Id>(10 + i), vector.data());
  }
}

struct Case {
  std::size_t dim;
  VectorStorage storage;
  bool euclidean;
  bool inlined = false;
};

TEST(GraphInsertion, BuildsWhatAddPointBuildsInEverySpaceAndStorage) {
  // dim 11 pads to 12 floats (rows scored four at a time), 70 to 72 (one at a time); int8 rows
  // always one at a time.
  const Case cases[] = {{11, VectorStorage::Float32, false},      {11, VectorStorage::Float32, true},
                        {70, VectorStorage::Float32, false},      {70, VectorStorage::Float32, true},
                        {11, VectorStorage::Int8, false},         {11, VectorStorage::Int8, true},
                        {11, VectorStorage::Float32, false, true}, {11, VectorStorage::Float32, true, true},
                        {11, VectorStorage::Int8, false, true},    {11, VectorStorage::Int8, true, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "dim " << c.dim << (c.storage == VectorStorage::Int8 ? " int8" : " f32")
                                      << (c.euclidean ? " euclidean" : " inner product") << (c.inlined ? " inlined" : " referenced"));
    Random random(c.dim + (c.euclidean ? 1 : 0));
    Rows rows(c.dim, c.storage);
    constexpr std::size_t kItems = 1500;
    fill(rows, kItems, random);
    // M 6 and efConstruction 30: small lists fill up, so neighbours' lists are pruned often.
    TestGraph theirs(rows, c.euclidean, kItems, 6, 30, c.inlined);
    TestGraph ours(rows, c.euclidean, kItems, 6, 30, c.inlined);
    hnsw_detail::GraphInserter inserter;
    Random levels(77);
    addBoth(theirs, ours, inserter, 0, 900, levels, c.euclidean);
    expectSameGraph(theirs, ours);
    // Deleted nodes, the entry point among them: searches pass through them without keeping them,
    // and addPoint adds the deleted entry point to every layer's candidates.
    for (tableint node = 1; node < 900; node += 4) {
      theirs.hnsw.markDeletedInternal(node);
      ours.hnsw.markDeletedInternal(node);
    }
    if (!theirs.hnsw.isMarkedDeleted(theirs.hnsw.enterpoint_node_)) {
      theirs.hnsw.markDeletedInternal(theirs.hnsw.enterpoint_node_);
      ours.hnsw.markDeletedInternal(ours.hnsw.enterpoint_node_);
    }
    addBoth(theirs, ours, inserter, 900, kItems, levels, c.euclidean);
    expectSameGraph(theirs, ours);
  }
}

// Recall@10 of `graph` (inner product, over the store's rows) with a beam of 40 against the exact
// top 10, for 200 Gaussian queries.
double recallOf(Rows& rows, TestGraph& graph) {
  Random random(8);
  FilteredGraphSearch search;
  GraphLayout layout = hnsw_detail::layoutOf(graph.hnsw, graph.space);
  layout.references = graph.references.data();
  const std::size_t items = graph.hnsw.cur_element_count;
  std::size_t found = 0;
  std::vector<float> query(rows.store.stride(), 0.0f);
  std::vector<std::pair<float, std::size_t>> exact;
  for (int q = 0; q < 200; ++q) {
    for (std::size_t j = 0; j < rows.store.dim(); ++j) query[j] = static_cast<float>(random.normal());
    exact.clear();
    for (std::size_t row = 0; row < items; ++row) exact.emplace_back(-rows.store.score(row, query.data()), row);
    std::partial_sort(exact.begin(), exact.begin() + 10, exact.end());
    for (const auto node : search.nearest(layout, query.data(), 40, 10, false)) {
      const std::size_t row = graph.hnsw.getExternalLabel(node) - 10;
      for (int i = 0; i < 10; ++i) found += exact[i].second == row ? 1 : 0;
    }
  }
  return static_cast<double>(found) / 2000.0;
}

TEST(GraphInsertion, TwoThreadsBuildASoundGraphAsGoodAsOneThreads) {
  Random random(5);
  Rows rows(16, VectorStorage::Float32);
  constexpr std::size_t kItems = 6000, kSeed = 500;
  fill(rows, kItems, random);
  std::vector<int> levels(kItems);
  const double levelScale = 1.0 / std::log(8.0);
  for (int& level : levels) level = static_cast<int>(-std::log(1.0 - random.uniform()) * levelScale);
  const auto insert = [&](TestGraph& graph, hnsw_detail::GraphInserter& inserter, std::size_t row) {
    float data[2];
    hnsw_detail::writeNodeData(data, static_cast<std::uint32_t>(row), 0.0f);
    inserter.add(graph.hnsw, graph.space, graph.references.data(), nullptr, data, 10 + row, levels[row]);
  };
  TestGraph single(rows, false, kItems, 8, 60);
  hnsw_detail::GraphInserter oneThread;
  for (std::size_t row = 0; row < kItems; ++row) insert(single, oneThread, row);

  // The first nodes on one thread (HnswIndex::kParallelSeed), the rest on two.
  TestGraph graph(rows, false, kItems, 8, 60);
  hnsw_detail::GraphInserter first;
  for (std::size_t row = 0; row < kSeed; ++row) insert(graph, first, row);
  std::atomic<std::size_t> next{kSeed};
  std::atomic<std::uint64_t> evaluations{0};
  const auto work = [&] {
    hnsw_detail::GraphInserter inserter;
    for (std::size_t row = next++; row < kItems; row = next++) insert(graph, inserter, row);
    evaluations += inserter.takeEvaluations();
  };
  std::thread helper(work);
  work();
  helper.join();
  EXPECT_GT(evaluations.load(), kItems);
  auto& hnsw = graph.hnsw;
  ASSERT_EQ(hnsw.cur_element_count, kItems);
  // Every node refers to its own item's row, at its level, with valid, distinct links on each of
  // its layers.
  std::vector<std::size_t> inbound(kItems, 0);
  for (tableint node = 0; node < kItems; ++node) {
    const std::size_t row = hnsw.getExternalLabel(node) - 10;
    ASSERT_EQ(graph.references[node], row);
    ASSERT_EQ(hnsw.element_levels_[node], levels[row]);
    for (int layer = 0; layer <= levels[row]; ++layer) {
      auto links = linksOf(hnsw, node, layer);
      for (const tableint link : links) {
        ASSERT_LT(link, kItems);
        ASSERT_NE(link, node);
        ASSERT_GE(hnsw.element_levels_[link], layer);
        if (layer == 0) ++inbound[link];
      }
      std::sort(links.begin(), links.end());
      ASSERT_EQ(std::adjacent_find(links.begin(), links.end()), links.end());
    }
  }
  // Under the inner product a node of small norm is nearer to few others than they are to each
  // other, and the heuristic can prune every link to it, on one thread as on two: the threads must
  // not strand many more.
  std::vector<std::size_t> inboundAlone(kItems, 0);
  for (tableint node = 0; node < kItems; ++node) {
    for (const tableint link : linksOf(single.hnsw, node, 0)) ++inboundAlone[link];
  }
  const auto strandedAlone = std::count(inboundAlone.begin(), inboundAlone.end(), 0u);
  const auto stranded = std::count(inbound.begin(), inbound.end(), 0u);
  EXPECT_LE(stranded, strandedAlone + strandedAlone / 10 + 10) << "one thread " << strandedAlone;
  EXPECT_EQ(hnsw.maxlevel_, *std::max_element(levels.begin(), levels.end()));
  const double alone = recallOf(rows, single), together = recallOf(rows, graph);
  EXPECT_GT(alone, 0.5);
  EXPECT_GE(together, alone - 0.03) << "one thread " << alone << ", two " << together;
}

}  // namespace graph_insertion_test
}  // namespace sublinear::testing
