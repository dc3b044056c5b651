#include "sublinear/mips/lsh_index.hpp"

#include "mips_oracle.hpp"

using namespace sublinear;
using namespace mips_oracle;

namespace lsh_index_test {
std::unique_ptr<MipsIndex> lsh(std::size_t dim, Json options = Json::object()) {
  options["type"] = "lsh";
  return makeMipsIndex(dim, options);
}

TEST(LshIndex, InterleavedAddsAndRemovesAgreeWithTheExactOracle) {
  for (std::size_t dim : {1u, 7u, 16u}) {
    auto index = lsh(dim, Json{{"seed", 3}});
    const double recall = interleave(*index, dim, dim * 13);
    // Small sets spread thinly over 2^8 buckets: this checks correctness, recall is benchmarked.
    EXPECT_GE(recall, 0.25) << "dim " << dim;
  }
}

TEST(LshIndex, RecallGrowsWithTablesAndFallsWithBits) {
  // More OR tables -> more candidates -> higher recall; a wider AND -> fewer.
  auto few = lsh(16, Json{{"bits", 8}, {"tables", 2}, {"seed", 1}});
  auto many = lsh(16, Json{{"bits", 8}, {"tables", 32}, {"seed", 1}});
  auto wide = lsh(16, Json{{"bits", 16}, {"tables", 32}, {"seed", 1}});
  const double recallFew = recallAt(*few, 5000, 16, 50, 10, 3);
  const double recallMany = recallAt(*many, 5000, 16, 50, 10, 3);
  const double recallWide = recallAt(*wide, 5000, 16, 50, 10, 3);
  EXPECT_GT(recallMany, recallFew);
  EXPECT_GT(recallMany, recallWide);
  EXPECT_GE(recallMany, 0.5);
}

TEST(LshIndex, RemovalsReallyRemoveAndSlotsAreReused) {
  auto index = lsh(8, Json{{"seed", 4}, {"tables", 4}});
  Random random(4);
  std::vector<Id> ids(500);
  std::iota(ids.begin(), ids.end(), 0);
  for (int cycle = 0; cycle < 10; ++cycle) {
    const auto vectors = gaussian(random, ids.size() * 8, 0.5);
    index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
    EXPECT_GT(index->stats()["buckets"].get<std::size_t>(), 0u);
    index->remove(ids.data(), ids.size());
    // No bucket keeps a removed item: the tables are empty again.
    EXPECT_EQ(index->stats()["buckets"].get<std::size_t>(), 0u);
    for (auto& id : ids) id += 500;
  }
  EXPECT_LE(index->stats()["slots"].get<std::size_t>(), 500u);
  const auto query = gaussian(random, 8);
  EXPECT_TRUE(index->search(query.data(), 8, 10).ids.empty());
}

TEST(LshIndex, RehashesWhenTheLargestNormGrows) {
  auto index = lsh(4, Json{{"seed", 5}, {"bits", 4}, {"tables", 8}});
  Random random(5);
  ExactIndex oracle(4);
  std::vector<Id> ids(300);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * 4);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const double firstScale = index->stats()["scale"].get<double>();
  const Id big = 999;
  const float far[] = {0, 0, 100, 0};
  index->add(&big, 1, far, 4);
  oracle.add(&big, 1, far, 4);
  EXPECT_GT(index->stats()["scale"].get<double>(), firstScale);
  EXPECT_GE(index->stats()["scale"].get<double>(), 100.0);
  EXPECT_EQ(index->stats()["rehashes"].get<int>(), 2);
  const std::vector<float> query = {0.1f, 0, 1, 0};
  const auto result = index->search(query.data(), 4, 5);
  ASSERT_FALSE(result.ids.empty());
  EXPECT_EQ(result.ids[0], big);
  checkResult(*index, oracle, query, 5, result);
}

TEST(LshIndex, TooFewCollisionsProbeNeighbouringBuckets) {
  // One table of one bit has two buckets: when the query's bucket holds fewer than k items, the
  // other bucket (Hamming distance 1) is probed too, so every item is found.
  auto index = lsh(8, Json{{"seed", 6}, {"bits", 1}, {"tables", 1}});
  Random random(6);
  ExactIndex oracle(8);
  std::vector<Id> ids(50);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * 8);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  for (int q = 0; q < 5; ++q) {
    const auto query = gaussian(random, 8);
    EXPECT_EQ(checkResult(*index, oracle, query, 50, index->search(query.data(), 8, 50)), 1.0);
  }
}

TEST(LshIndex, InvalidOptionsAndInputs) {
  EXPECT_EQ(codeOf([] { lsh(4, Json{{"bits", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { lsh(4, Json{{"bits", 65}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { lsh(4, Json{{"tables", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { lsh(4, Json{{"tables", "many"}}); }), ErrorCode::InvalidArgument);
  auto index = lsh(5, Json{{"bits", 64}, {"tables", 3}});
  EXPECT_EQ(index->type(), "lsh");
  checkErrorsLeaveStateUnchanged(*index);
}
}  // namespace lsh_index_test
