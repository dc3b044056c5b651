// MipsIndex::searchBatch (issue 57, point 2): the answers and the work of n searches in order, also
// when the batch's searches share out among threads (ExactIndex, a finished HnswIndex, GreedyMipsIndex,
// LshIndex and PcaTreeIndex unfiltered), and the state they leave, also when the batch's first search
// would sort, compact or rebuild; a bad batch is refused before any search and changes nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "mips_oracle.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

using namespace sublinear;
using namespace mips_oracle;
using sublinear::testing::Threads;
using sublinear::testing::codeOf;

namespace search_batch_test {

constexpr std::size_t kDim = 16;
constexpr std::size_t kItems = 4000;
constexpr std::size_t kQueries = 300;

// The same items, labels and options: two indexes built on one thread are the same index.
std::unique_ptr<MipsIndex> made(const Json& options) {
  Json spec = options;
  spec["seed"] = 5;
  auto index = makeMipsIndex(kDim, spec);
  Random random(21);
  std::vector<Id> ids(kItems);
  std::iota(ids.begin(), ids.end(), 100);
  std::vector<Label> labels(kItems);
  for (std::size_t i = 0; i < kItems; ++i) labels[i] = static_cast<Label>(i % 4);
  const auto vectors = gaussian(random, kItems * kDim);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());
  index->build(kItems);
  return index;
}

SearchOptions filtered() {
  SearchOptions options;
  options.labels = {1, 2};
  for (Id id = 100; id < 400; ++id) options.exclude.push_back(id);
  return options;
}

TEST(SearchBatch, EqualsSearchesInOrderOnOneThreadOrTwo) {
  Random random(8);
  const auto queries = gaussian(random, kQueries * kDim);
  for (const Json& options : {Json{{"type", "exact"}}, Json{{"type", "hnsw"}, {"M", 8}, {"efConstruction", 64}},
                              Json{{"type", "hnsw"}, {"M", 8}, {"efConstruction", 64}, {"storage", "int8"}},
                              Json{{"type", "lsh"}}, Json{{"type", "bounded-me"}}, Json{{"type", "pca-tree"}},
                              Json{{"type", "greedy"}}}) {
    for (const SearchOptions& search : {SearchOptions{}, filtered()}) {
      for (const std::size_t threads : {1u, 2u}) {
        const auto batched = made(options);
        const auto single = made(options);
        const Threads setting(threads);
        const BatchSearchResult batch = batched->searchBatch(queries.data(), queries.size(), kQueries, 10, search);
        ASSERT_EQ(batch.stride, 10u);
        ASSERT_EQ(batch.counts.size(), kQueries);
        for (std::size_t q = 0; q < kQueries; ++q) {
          const SearchResult expected = single->search(queries.data() + q * kDim, kDim, 10, search);
          ASSERT_EQ(batch.counts[q], expected.ids.size()) << options << " query " << q;
          for (std::size_t i = 0; i < expected.ids.size(); ++i) {
            EXPECT_EQ(batch.ids[q * 10 + i], expected.ids[i]) << options << " threads " << threads << " query " << q;
            EXPECT_EQ(batch.scores[q * 10 + i], expected.scores[i]) << options << " query " << q;
          }
        }
        // The same work counted (the graph's distance computations included).
        EXPECT_EQ(batched->stats(), single->stats()) << options << " threads " << threads;
      }
    }
  }
}

// Removals that leave fewer live items than dead ones (a Greedy-MIPS compaction due, a stale PCA
// tree, LSH's freed slots) and additions not yet sorted into the lists: the batch does first what its first search would
// do, so its answers, its work and its saved bytes are those of the searches one after the other.
TEST(SearchBatch, ABatchOfAChangedIndexLeavesTheStateItsSearchesInOrderLeave) {
  Random random(13);
  const auto queries = gaussian(random, kQueries * kDim);
  const auto extra = gaussian(random, 300 * kDim);
  const auto changed = [&](const char* type) {
    PersistentIndex index(Json{{"type", type}, {"dim", kDim}, {"seed", 5}});
    std::vector<Id> ids(kItems);
    std::iota(ids.begin(), ids.end(), 100);
    std::vector<Label> labels(kItems);
    for (std::size_t i = 0; i < kItems; ++i) labels[i] = static_cast<Label>(i % 4);
    Random items(21);
    const auto vectors = gaussian(items, kItems * kDim);
    index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());
    index->search(queries.data(), kDim, 10);
    index->remove(ids.data() + 1000, 2500);
    std::vector<Id> added(300);
    std::iota(added.begin(), added.end(), 100000);
    const std::vector<Label> addedLabels(added.size(), 1);
    index->add(added.data(), added.size(), extra.data(), extra.size(), addedLabels.data(), addedLabels.size());
    return index;
  };
  for (const char* type : {"greedy", "pca-tree", "lsh"}) {
    for (const SearchOptions& search : {SearchOptions{}, filtered()}) {
      for (const std::size_t threads : {1u, 2u}) {
        PersistentIndex batched = changed(type);
        PersistentIndex single = changed(type);
        const Threads setting(threads);
        const BatchSearchResult batch = batched->searchBatch(queries.data(), queries.size(), kQueries, 10, search);
        for (std::size_t q = 0; q < kQueries; ++q) {
          const SearchResult expected = single->search(queries.data() + q * kDim, kDim, 10, search);
          ASSERT_EQ(batch.counts[q], expected.ids.size()) << type << " query " << q;
          for (std::size_t i = 0; i < expected.ids.size(); ++i) {
            EXPECT_EQ(batch.ids[q * 10 + i], expected.ids[i]) << type << " threads " << threads << " query " << q;
          }
        }
        EXPECT_EQ(batched->stats(), single->stats()) << type << " threads " << threads;
        EXPECT_EQ(batched.toBytes(), single.toBytes()) << type << " threads " << threads;
      }
    }
  }
}

TEST(SearchBatch, ABadBatchIsRefusedBeforeAnySearchAndChangesNothing) {
  const auto index = made(Json{{"type", "hnsw"}, {"M", 8}, {"efConstruction", 32}});
  Random random(3);
  auto queries = gaussian(random, 5 * kDim);
  const Json before = index->stats();
  EXPECT_EQ(codeOf([&] { index->searchBatch(queries.data(), queries.size() - 1, 5, 10); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(codeOf([&] { index->searchBatch(queries.data(), queries.size(), 5, 0); }), ErrorCode::InvalidArgument);
  // The last query is bad: no query before it was searched either.
  queries[4 * kDim + 3] = std::nanf("");
  EXPECT_EQ(codeOf([&] { index->searchBatch(queries.data(), queries.size(), 5, 10); }), ErrorCode::NonFinite);
  EXPECT_EQ(codeOf([&] { index->searchBatch(queries.data(), 0, kMaxBatchQueries + 1, 10); }), ErrorCode::InvalidArgument);
  // More answer slots than kMaxBatchAnswers (the count is checked before the length is read).
  EXPECT_EQ(codeOf([&] { index->searchBatch(queries.data(), 0, kMaxBatchAnswers / 1000 + 1, 1000); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(index->stats(), before);
  // No queries: an empty answer.
  const BatchSearchResult none = index->searchBatch(queries.data(), 0, 0, 10);
  EXPECT_TRUE(none.ids.empty() && none.counts.empty());
}

}  // namespace search_batch_test
