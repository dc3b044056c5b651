#include "sublinear/mips/adaptive_index.hpp"

#include <cmath>

#include "sublinear/mips/persistent_index.hpp"

#include "mips_oracle.hpp"

using namespace sublinear;
using namespace mips_oracle;

namespace adaptive_index_test {
std::unique_ptr<MipsIndex> adaptive(std::size_t dim, Json options = Json::object()) {
  options["type"] = "adaptive";
  return makeMipsIndex(dim, options);
}

TEST(AdaptiveIndex, InterleavedAddsAndRemovesAgreeWithTheExactOracle) {
  for (const char* base : {"hnsw", "lsh", "exact"}) {
    for (std::size_t dim : {2u, 16u}) {
      Json spec{{"type", base}};
      if (std::string(base) == "hnsw") spec["efConstruction"] = 64;  // options are strict: only hnsw has it
      auto index = adaptive(dim, Json{{"base", spec}, {"seed", 3}});
      const double recall = interleave(*index, dim, dim * 17);
      EXPECT_GE(recall, std::string(base) == "lsh" ? 0.5 : 0.9) << base << " dim " << dim;
    }
  }
}

TEST(AdaptiveIndex, QueriesAreRoundedToTheGrid) {
  AdaptiveIndex index(5, Json{{"epsilon", 0.1}});
  Random random(1);
  for (int trial = 0; trial < 50; ++trial) {
    const auto query = gaussian(random, 5, 3.0);
    const auto rounded = index.roundedQuery(query.data());
    double norm = 0, distance = 0;
    for (float v : query) norm += static_cast<double>(v) * v;
    norm = std::sqrt(norm);
    const double step = 0.1 / 5;
    for (std::size_t i = 0; i < 5; ++i) {
      const double multiple = rounded[i] / step;
      EXPECT_NEAR(multiple, std::round(multiple), 1e-4) << "coordinate not on the grid of epsilon/d";
      distance += (rounded[i] - query[i] / norm) * (rounded[i] - query[i] / norm);
    }
    // Nearest grid point: each coordinate moves at most step/2.
    EXPECT_LE(std::sqrt(distance), std::sqrt(5.0) * step / 2 + 1e-6);
  }
}

TEST(AdaptiveIndex, ReturnsTheBestExactScoreAmongTheCopiesAnswers) {
  // Weak copies (LSH, few tables) disagree; the pooled answer is at least as good as each copy's.
  const Json base = {{"type", "lsh"}, {"bits", 10}, {"tables", 2}};
  AdaptiveIndex index(8, Json{{"base", base}, {"copies", 4}, {"seed", 9}, {"epsilon", 0.05}});
  Random random(2);
  std::vector<Id> ids(3000);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * 8);
  index.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  // The same copies, built apart with the seeds the adaptive index derives.
  const Json stats = index.stats();
  ASSERT_EQ(stats["copyStats"].size(), 4u);
  std::vector<std::unique_ptr<MipsIndex>> copies;
  Random seeds(9);
  for (int i = 0; i < 4; ++i) {
    Json spec = base;
    spec["seed"] = seeds.nextU64() >> 11;
    copies.push_back(makeMipsIndex(8, spec));
    copies.back()->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  }
  int strictlyBetter = 0;
  for (int q = 0; q < 30; ++q) {
    const auto query = gaussian(random, 8);
    const auto result = index.search(query.data(), 8, 1);
    const auto rounded = index.roundedQuery(query.data());
    float bestOfCopies = -INFINITY;
    float worstOfCopies = INFINITY;
    for (auto& copy : copies) {
      const auto answer = copy->search(rounded.data(), 8, 1);
      float best = -INFINITY;
      for (Id id : answer.ids) best = std::max(best, exactScore(*copy, id, query));
      bestOfCopies = std::max(bestOfCopies, best);
      worstOfCopies = std::min(worstOfCopies, best);
    }
    ASSERT_EQ(result.ids.size(), 1u);
    EXPECT_EQ(result.scores[0], bestOfCopies);
    strictlyBetter += result.scores[0] > worstOfCopies;
  }
  EXPECT_GT(strictlyBetter, 0) << "the copies should not all agree";
  EXPECT_GT(index.stats()["innerProducts"].get<std::uint64_t>(), index.innerProducts()) << "the copies' work counts too";
}

// An HNSW copy's bulk build puts its built rows in its graph's order (HnswIndex::orderGraph), so its
// store holds the adaptive index's items in other rows: the state still reloads and answers the same.
TEST(AdaptiveIndex, HnswCopiesWhoseBuildsReorderedTheirRowsReload) {
  constexpr std::size_t kDim = 6;
  PersistentIndex index(Json{{"type", "adaptive"}, {"dim", kDim}, {"base", {{"type", "hnsw"}, {"efConstruction", 40}}}, {"seed", 4}});
  Random random(5);
  std::vector<Id> ids(2000);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * kDim);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  ASSERT_EQ(index->build(ids.size()), 0u);
  const std::vector<Id> gone(ids.begin() + 500, ids.begin() + 600);
  index->remove(gone.data(), gone.size());
  const auto bytes = index.toBytes();
  PersistentIndex restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "adaptive");
  for (int q = 0; q < 20; ++q) {
    const auto query = gaussian(random, kDim);
    const auto ours = index->search(query.data(), kDim, 5);
    const auto theirs = restored->search(query.data(), kDim, 5);
    EXPECT_EQ(ours.ids, theirs.ids);
    EXPECT_EQ(ours.scores, theirs.scores);
  }
}

TEST(AdaptiveIndex, AZeroQueryAndAnEmptyIndexAreFine) {
  auto index = adaptive(3);
  const float zero[] = {0, 0, 0};
  EXPECT_TRUE(index->search(zero, 3, 2).ids.empty());
  const Id ids[] = {1, 2};
  const float vectors[] = {1, 0, 0, 0, 2, 0};
  index->add(ids, 2, vectors, 6);
  EXPECT_EQ(index->search(zero, 3, 2).ids.size(), 2u);
}

TEST(AdaptiveIndex, InvalidOptionsAndInputs) {
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"copies", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"epsilon", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"epsilon", 1}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"epsilon", -0.5}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"base", {{"type", "nope"}}}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"base", "hnsw"}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { adaptive(4, Json{{"base", {{"type", "hnsw"}, {"M", 1}}}}); }), ErrorCode::InvalidArgument);
  auto index = adaptive(5, Json{{"copies", 2}});
  EXPECT_EQ(index->type(), "adaptive");
  checkErrorsLeaveStateUnchanged(*index);
}
}  // namespace adaptive_index_test
