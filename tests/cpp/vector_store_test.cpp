#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/vector_store.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace vector_store_test {

constexpr std::size_t kBlock = VectorStore::kBlockRows;

std::vector<float> valuesOf(std::size_t id, std::size_t dim) {
  std::vector<float> vector(dim);
  for (std::size_t i = 0; i < dim; ++i) vector[i] = static_cast<float>(id * 10 + i);
  return vector;
}

// Every id's row holds its own vector, zero-padded, and the rows are dense.
void expectConsistent(const VectorStore& store, std::size_t dim) {
  for (std::size_t row = 0; row < store.size(); ++row) {
    const Id id = store.idAt(row);
    ASSERT_EQ(store.rowOf(id), row);
    const std::vector<float> expected = valuesOf(id, dim);
    const float* data = store.rowData(row);
    for (std::size_t i = 0; i < dim; ++i) ASSERT_EQ(data[i], expected[i]) << "row " << row;
    for (std::size_t i = dim; i < store.stride(); ++i) ASSERT_EQ(data[i], 0.0f);
    // Rows the store calls contiguous are one stride apart.
    if (store.contiguousRows(row) > 1) ASSERT_EQ(store.rowData(row + 1), data + store.stride());
  }
}

TEST(VectorStore, RowsSpanBlocksThroughAddsRemovesAndSwaps) {
  const std::size_t dim = 5;
  VectorStore store(dim);
  const std::size_t n = 2 * kBlock + 37;
  for (std::size_t id = 0; id < n; ++id) store.add(static_cast<Id>(id), valuesOf(id, dim).data());
  EXPECT_EQ(store.size(), n);
  EXPECT_EQ(store.contiguousRows(0), kBlock);
  EXPECT_EQ(store.contiguousRows(kBlock - 3), 3u);
  EXPECT_EQ(store.contiguousRows(2 * kBlock), 37u);
  expectConsistent(store, dim);
  // A swap across blocks, and removals that move the last row (in the third block) into the first.
  store.swapRows(5, kBlock + 9);
  expectConsistent(store, dim);
  std::mt19937 random(3);
  for (int i = 0; i < 100; ++i) {
    const Id id = store.idAt(random() % store.size());
    store.remove(id);
    EXPECT_FALSE(store.contains(id));
  }
  expectConsistent(store, dim);
  // Down into the second block and back up: the freed rows are written again.
  while (store.size() > kBlock + 1) store.remove(store.idAt(store.size() - 1));
  for (std::size_t id = n; id < n + kBlock; ++id) store.add(static_cast<Id>(id), valuesOf(id, dim).data());
  expectConsistent(store, dim);
}

TEST(VectorStore, GrowingNeverMovesAFullBlock) {
  // The point of the blocks: an add copies at most the last block, so the rows of full blocks stay
  // where they are however much the store grows (the old single array moved them all).
  const std::size_t dim = 16;
  VectorStore store(dim);
  std::size_t next = 0;
  const auto addBatch = [&](std::size_t count) {
    store.reserve(store.size() + count);
    for (std::size_t i = 0; i < count; ++i, ++next) store.add(static_cast<Id>(next), valuesOf(next, dim).data());
  };
  addBatch(kBlock + 10);
  const float* first = store.rowData(0);
  const float* lastOfFirstBlock = store.rowData(kBlock - 1);
  for (int batch = 0; batch < 12; ++batch) addBatch(1000 + 700 * batch);
  EXPECT_EQ(store.rowData(0), first);
  EXPECT_EQ(store.rowData(kBlock - 1), lastOfFirstBlock);
  expectConsistent(store, dim);
}

TEST(VectorStore, AScanAcrossBlocksMatchesAScanRowByRow) {
  // The scan runs its four-row kernel over each block's stretch of rows: across blocks, with a last
  // block whose rows end mid-group, it must give the exact top k. (HnswIndex's scans of waiting rows,
  // which start on any row, are checked against exact search in hnsw_index_test.cpp.)
  const std::size_t dim = 7;
  const std::size_t n = 3 * kBlock + 5;
  std::mt19937 random(11);
  std::normal_distribution<float> normal;
  std::vector<float> vectors(n * dim);
  for (float& value : vectors) value = normal(random);
  std::vector<Id> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<Id>(i);
  ExactIndex index(dim);
  index.add(ids.data(), n, vectors.data(), vectors.size());
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<float> query(dim);
    for (float& value : query) value = normal(random);
    const SearchResult result = index.search(query.data(), dim, 10);
    std::vector<std::pair<float, Id>> expected;
    for (std::size_t row = 0; row < n; ++row) {
      const float* item = index.items().rowData(row);
      double score = 0.0;
      for (std::size_t i = 0; i < dim; ++i) score += static_cast<double>(item[i]) * query[i];
      expected.emplace_back(static_cast<float>(score), index.items().idAt(row));
    }
    std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    ASSERT_EQ(result.ids.size(), 10u);
    for (std::size_t i = 0; i < 10; ++i) {
      EXPECT_EQ(result.ids[i], expected[i].second) << "rank " << i;
      EXPECT_NEAR(result.scores[i], expected[i].first, 1e-4f * (1.0f + std::abs(expected[i].first)));
    }
  }
}

}  // namespace vector_store_test
}  // namespace sublinear::testing
