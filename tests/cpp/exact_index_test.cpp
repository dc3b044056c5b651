#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "test_support.hpp"

using sublinear::testing::codeOf;
using sublinear::testing::Threads;

using namespace sublinear;

namespace exact_index_test {
// The oracle: inner products in double, sorted by score then id.
std::vector<Id> bruteForce(const std::map<Id, std::vector<float>>& items, const std::vector<float>& query, std::size_t k) {
  std::vector<std::pair<double, Id>> scored;
  for (const auto& [id, vector] : items) {
    double score = 0;
    for (std::size_t i = 0; i < query.size(); ++i) score += static_cast<double>(vector[i]) * query[i];
    scored.emplace_back(-score, id);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<Id> ids;
  for (std::size_t i = 0; i < std::min(k, scored.size()); ++i) ids.push_back(scored[i].second);
  return ids;
}

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

TEST(ExactIndex, TopKEqualsBruteForceThroughAddsAndRemoves) {
  for (std::size_t dim : {1u, 3u, 16u, 33u}) {
    Random random(dim);
    ExactIndex index(dim);
    std::map<Id, std::vector<float>> oracle;
    Id nextId = 1000;
    for (int round = 0; round < 20; ++round) {
      const std::size_t n = 50;
      std::vector<Id> ids(n);
      std::iota(ids.begin(), ids.end(), nextId);
      nextId += n;
      const auto vectors = gaussian(random, n * dim);
      index.add(ids.data(), n, vectors.data(), vectors.size());
      for (std::size_t i = 0; i < n; ++i) oracle[ids[i]] = std::vector<float>(vectors.begin() + i * dim, vectors.begin() + (i + 1) * dim);
      std::vector<Id> removed;
      for (const auto& entry : oracle) {
        if (random.bernoulli(0.3)) removed.push_back(entry.first);
      }
      index.remove(removed.data(), removed.size());
      for (Id id : removed) oracle.erase(id);
      ASSERT_EQ(index.size(), oracle.size());
      const auto query = gaussian(random, dim);
      const auto result = index.search(query.data(), dim, 10);
      EXPECT_EQ(result.ids, bruteForce(oracle, query, 10)) << "dim " << dim << " round " << round;
      for (std::size_t i = 0; i < result.ids.size(); ++i) {
        double exact = 0;
        for (std::size_t j = 0; j < dim; ++j) exact += static_cast<double>(oracle[result.ids[i]][j]) * query[j];
        EXPECT_NEAR(result.scores[i], exact, 1e-4 * (1 + std::fabs(exact)));
        if (i > 0) {
          EXPECT_GE(result.scores[i - 1], result.scores[i]);
        }
      }
      for (Id id : removed) EXPECT_FALSE(index.contains(id));
    }
  }
}

TEST(ExactIndex, ReturnsMinOfKAndSizeAndCountsWork) {
  ExactIndex index(2);
  const float query[] = {1, 0};
  EXPECT_TRUE(index.search(query, 2, 5).ids.empty());
  const Id ids[] = {7, 3, 9};
  const float vectors[] = {1, 0, 2, 0, 3, 0};
  index.add(ids, 3, vectors, 6);
  const auto result = index.search(query, 2, 5);
  EXPECT_EQ(result.ids, (std::vector<Id>{9, 3, 7}));
  EXPECT_EQ(result.scores, (std::vector<float>{3, 2, 1}));
  EXPECT_GE(index.innerProducts(), 3u);
  EXPECT_EQ(index.stats()["searches"], 2);
}

TEST(ExactIndex, TiesAreBrokenBySmallerId) {
  ExactIndex index(1);
  const Id ids[] = {5, 2, 8};
  const float vectors[] = {1, 1, 1};
  index.add(ids, 3, vectors, 3);
  const float query[] = {1};
  EXPECT_EQ(index.search(query, 1, 2).ids, (std::vector<Id>{2, 5}));
}

TEST(ExactIndex, BadInputThrowsTheRightCodeAndChangesNothing) {
  ExactIndex index(2);
  const Id ids[] = {1, 2};
  const float vectors[] = {1, 2, 3, 4};
  index.add(ids, 2, vectors, 4);
  const Id more[] = {3, 4};
  EXPECT_EQ(codeOf([&] { index.add(more, 2, vectors, 3); }), ErrorCode::DimensionMismatch);
  const float bad[] = {1, 2, 3, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(codeOf([&] { index.add(more, 2, bad, 4); }), ErrorCode::NonFinite);
  const Id clash[] = {3, 1};
  EXPECT_EQ(codeOf([&] { index.add(clash, 2, vectors, 4); }), ErrorCode::DuplicateId);
  const Id twice[] = {5, 5};
  EXPECT_EQ(codeOf([&] { index.add(twice, 2, vectors, 4); }), ErrorCode::DuplicateId);
  const Id unknown[] = {1, 99};
  EXPECT_EQ(codeOf([&] { index.remove(unknown, 2); }), ErrorCode::UnknownId);
  const float query[] = {1, 1};
  EXPECT_EQ(codeOf([&] { index.search(query, 1, 1); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(codeOf([&] { index.search(query, 2, 0); }), ErrorCode::InvalidArgument);
  const float nanQuery[] = {1, std::nanf("")};
  EXPECT_EQ(codeOf([&] { index.search(nanQuery, 2, 1); }), ErrorCode::NonFinite);
  EXPECT_EQ(index.size(), 2u);
  EXPECT_TRUE(index.contains(1));
  EXPECT_FALSE(index.contains(3));
  EXPECT_EQ(index.search(query, 2, 2).ids, (std::vector<Id>{2, 1}));
  EXPECT_EQ(codeOf([] { ExactIndex zero(0); }), ErrorCode::InvalidArgument);
}

TEST(IndexFactory, BuildsByNameAndRejectsUnknownTypes) {
  auto index = makeMipsIndex(4, Json{{"type", "exact"}});
  EXPECT_EQ(index->type(), "exact");
  EXPECT_EQ(index->dim(), 4u);
  EXPECT_EQ(codeOf([] { makeMipsIndex(4, Json{{"type", "nope"}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { makeMipsIndex(4, Json::array()); }), ErrorCode::InvalidArgument);
}

TEST(ExactIndex, LongRowsAndRowsOfEveryLengthRankAsBruteForce) {
  // Rows up to kInterleavedRowsMaxStride floats go through the four-row kernel, longer ones one at a
  // time: both must give the oracle's top-k, across the store's blocks and with a ragged tail.
  for (std::size_t dim : {60u, 64u, 65u, 136u}) {
    Random random(dim + 100);
    ExactIndex index(dim);
    std::map<Id, std::vector<float>> oracle;
    const std::size_t n = 4096 + 7;
    std::vector<Id> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    const auto vectors = gaussian(random, n * dim);
    index.add(ids.data(), n, vectors.data(), vectors.size());
    for (std::size_t i = 0; i < n; ++i) oracle[ids[i]] = std::vector<float>(vectors.begin() + i * dim, vectors.begin() + (i + 1) * dim);
    for (int q = 0; q < 5; ++q) {
      const auto query = gaussian(random, dim);
      EXPECT_EQ(index.search(query.data(), dim, 10).ids, bruteForce(oracle, query, 10)) << dim;
    }
  }
}

TEST(ExactIndex, AScanSharedAmongThreadsAnswersAsOneThreadWithTiesToTheSmallerId) {
  // With shareScansAmongThreads, past kParallelScanFloats the rows are shared out in grains, each
  // thread keeping its own top-k: the merged answer, scores and work must be one thread's, also
  // when equal vectors tie across grains.
  const std::size_t dim = 64;
  const std::size_t n = MipsIndex::kParallelScanFloats / dim + 40000;
  Random random(5);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  auto vectors = gaussian(random, n * dim);
  // Items 3, 20003, 50003 and n - 1 are one vector, far along the query below: ties in several grains.
  std::vector<float> best(dim, 5.0f);
  for (const std::size_t item : {std::size_t{3}, std::size_t{20003}, std::size_t{50003}, n - 1}) std::copy(best.begin(), best.end(), vectors.begin() + item * dim);
  ExactIndex index(dim);
  index.add(ids.data(), n, vectors.data(), vectors.size());
  std::vector<std::vector<float>> queries{best};
  for (int q = 0; q < 4; ++q) queries.push_back(gaussian(random, dim));
  std::vector<SearchResult> alone;
  for (const auto& query : queries) alone.push_back(index.search(query.data(), dim, 10));
  const auto work = index.innerProducts();
  {
    const Threads two(2);
    index.shareScansAmongThreads(true);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const SearchResult shared = index.search(queries[q].data(), dim, 10);
      EXPECT_EQ(shared.ids, alone[q].ids) << q;
      EXPECT_EQ(shared.scores, alone[q].scores) << q;
    }
  }
  EXPECT_EQ(index.innerProducts() - work, work);
  EXPECT_EQ(std::vector<Id>(alone[0].ids.begin(), alone[0].ids.begin() + 4), (std::vector<Id>{3, 20003, 50003, static_cast<Id>(n - 1)}));
}
}  // namespace exact_index_test
