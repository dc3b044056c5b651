#include "sublinear/mips/hnsw_index.hpp"

#include "mips_oracle.hpp"
#include "sublinear/mips/top_k.hpp"

#include <cstring>
#include <functional>
#include <numeric>
#include <set>

using namespace sublinear;
using namespace mips_oracle;

namespace hnsw_index_test {
// The graph's own behaviour is tested on graphs built in add() (build "immediate"); the incremental
// build, the default, has its own tests below.
std::unique_ptr<MipsIndex> hnsw(std::size_t dim, Json options = Json::object()) {
  options["type"] = "hnsw";
  if (!options.contains("build")) options["build"] = "immediate";
  return makeMipsIndex(dim, options);
}

// Items 0 .. count-1 with Gaussian vectors of the oracle's dimension, in the index and the oracle.
void addGaussianItems(MipsIndex& index, ExactIndex& oracle, Random& random, std::size_t count) {
  std::vector<Id> ids(count);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, count * oracle.dim());
  index.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
}

TEST(HnswIndex, InterleavedAddsAndRemovesAgreeWithTheExactOracle) {
  for (const char* space : {"euclidean", "inner-product"}) {
    for (std::size_t dim : {1u, 7u, 16u}) {
      auto index = hnsw(dim, Json{{"space", space}, {"seed", 3}, {"efConstruction", 64}});
      const double recall = interleave(*index, dim, dim * 11);
      // Small sets: the graph search should find nearly everything.
      EXPECT_GE(recall, dim == 1 && std::string(space) == "inner-product" ? 0.5 : 0.9) << space << " dim " << dim;
    }
  }
}

TEST(HnswIndex, RecallFloorAtDefaultSettings) {
  // Issue 3: recall@10 >= 0.95 at 10k x 16 with the default options (inner-product space, M 16,
  // efConstruction 200, efSearch 64).
  // Under AddressSanitizer (about 5x slower here) the same floor on 3000 items keeps the suite fast.
#if defined(__SANITIZE_ADDRESS__)
  const std::size_t n = 3000;
#else
  const std::size_t n = 10000;
#endif
  auto index = hnsw(16, Json{{"seed", 1}});
  const double recall = recallAt(*index, n, 16, 100, 10, 2024);
  EXPECT_GE(recall, 0.95);
  RecordProperty("recall", std::to_string(recall));
}

TEST(HnswIndex, ShortlistRetrievesThatManyCandidates) {
  auto index = hnsw(8, Json{{"efSearch", 4}, {"seed", 2}});
  const double before = recallAt(*index, 3000, 8, 30, 10, 5);
  auto wide = hnsw(8, Json{{"efSearch", 4}, {"seed", 2}});
  Random random(5);
  ExactIndex oracle(8);
  addGaussianItems(*wide, oracle, random, 3000);
  double sum = 0;
  SearchOptions options;
  options.shortlist = 200;
  for (int q = 0; q < 30; ++q) {
    const auto query = gaussian(random, 8);
    sum += checkResult(*wide, oracle, query, 10, wide->search(query.data(), 8, 10, options));
  }
  EXPECT_GE(sum / 30, before);
  EXPECT_GE(sum / 30, 0.97);
}

TEST(HnswIndex, ItemsToAlsoRankAreRankedWithTheCandidatesOnce) {
  // A graph too weak to find the best item (M 2, efSearch 1, one candidate): the items the caller
  // names are ranked with its candidates, ids it does not hold are skipped, and none comes twice.
  auto index = hnsw(8, Json{{"M", 2}, {"efConstruction", 2}, {"efSearch", 1}, {"space", "inner-product"}, {"seed", 4}});
  Random random(8);
  ExactIndex oracle(8);
  addGaussianItems(*index, oracle, random, 3000);
  int missed = 0;
  for (int q = 0; q < 50; ++q) {
    const auto query = gaussian(random, 8);
    const Id best = oracle.search(query.data(), 8, 1).ids.front();
    const SearchResult alone = index->search(query.data(), 8, 1);
    if (alone.ids.front() == best) continue;
    ++missed;
    SearchOptions options;
    options.alsoRank = {best, 999999, best, alone.ids.front()};
    const SearchResult helped = index->search(query.data(), 8, 3, options);
    EXPECT_EQ(helped.ids.front(), best);
    EXPECT_EQ(helped.scores.front(), exactScore(*index, best, query));
    EXPECT_EQ(std::set<Id>(helped.ids.begin(), helped.ids.end()).size(), helped.ids.size());
  }
  EXPECT_GT(missed, 0) << "the weak graph found every best item";
}

TEST(HnswIndex, GrowsBeyondItsInitialCapacityOneItemAtATime) {
  auto index = hnsw(4, Json{{"seed", 4}});
  Random random(4);
  for (Id id = 0; id < 300; ++id) {
    const auto vector = gaussian(random, 4);
    index->add(&id, 1, vector.data(), vector.size());
  }
  const Json stats = index->stats();
  EXPECT_GE(stats["capacity"].get<std::size_t>(), 300u);
  // Every item is reachable: asking for all of them returns all of them.
  const auto query = gaussian(random, 4);
  EXPECT_EQ(index->search(query.data(), 4, 300).ids.size(), 300u);
}

TEST(HnswIndex, DeletedSlotsAreReusedSoTheGraphDoesNotGrow) {
  auto index = hnsw(8, Json{{"seed", 5}, {"efConstruction", 64}});
  Random random(6);
  ExactIndex oracle(8);
  std::vector<Id> live(1000);
  std::iota(live.begin(), live.end(), 0);
  auto vectors = gaussian(random, live.size() * 8);
  index->add(live.data(), live.size(), vectors.data(), vectors.size());
  oracle.add(live.data(), live.size(), vectors.data(), vectors.size());
  Id nextId = 1000;
  double recall = 0;
  for (int cycle = 0; cycle < 40; ++cycle) {
    random.shuffle(live);
    std::vector<Id> out(live.end() - 100, live.end());
    live.resize(live.size() - 100);
    index->remove(out.data(), out.size());
    oracle.remove(out.data(), out.size());
    std::vector<Id> in(100);
    for (auto& id : in) id = nextId++;
    vectors = gaussian(random, in.size() * 8);
    index->add(in.data(), in.size(), vectors.data(), vectors.size());
    oracle.add(in.data(), in.size(), vectors.data(), vectors.size());
    live.insert(live.end(), in.begin(), in.end());
    const auto query = gaussian(random, 8);
    recall += checkResult(*index, oracle, query, 10, index->search(query.data(), 8, 10));
  }
  const Json stats = index->stats();
  EXPECT_LE(stats["graphSlots"].get<std::size_t>(), 1000u) << "4000 additions after removals must reuse the freed slots";
  EXPECT_EQ(stats["freeSlots"].get<std::size_t>(), 0u);
  EXPECT_GE(recall / 40, 0.9);
}

TEST(HnswIndex, SustainedChurnCompactsTheGraphAndKeepsAnswersRight) {
  // Churn reuses slots until the graph is started over (a compaction); answers stay right against
  // the exact oracle throughout.
  auto index = hnsw(8, Json{{"seed", 12}, {"efConstruction", 64}});
  Random random(13);
  ExactIndex oracle(8);
  std::vector<Id> live(2000);
  std::iota(live.begin(), live.end(), 0);
  auto vectors = gaussian(random, live.size() * 8);
  index->add(live.data(), live.size(), vectors.data(), vectors.size());
  oracle.add(live.data(), live.size(), vectors.data(), vectors.size());
  Id nextId = 5000;
  const int cycles = 300;
  double recall = 0.0;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    random.shuffle(live);
    std::vector<Id> out(live.end() - 20, live.end());
    live.resize(live.size() - 20);
    index->remove(out.data(), out.size());
    oracle.remove(out.data(), out.size());
    std::vector<Id> in(20);
    for (auto& id : in) id = nextId++;
    vectors = gaussian(random, in.size() * 8);
    index->add(in.data(), in.size(), vectors.data(), vectors.size());
    oracle.add(in.data(), in.size(), vectors.data(), vectors.size());
    live.insert(live.end(), in.begin(), in.end());
    const auto query = gaussian(random, 8);
    recall += checkResult(*index, oracle, query, 10, index->search(query.data(), 8, 10));
  }
  const Json stats = index->stats();
  EXPECT_GE(stats["compactions"].get<int>(), 2);
  EXPECT_EQ(stats["built"].get<std::size_t>(), 2000u);
  EXPECT_LE(stats["graphSlots"].get<std::size_t>(), 2000u + 64u);
  EXPECT_GE(recall / cycles, 0.9);
}

TEST(HnswIndex, ApproximateWorkLeavesOutTheScanOfTheWaitingItems) {
  // The audits' budget is a share of the work that can miss: a search of a half-built graph counts
  // its scan of the waiting items in innerProducts but not in approximateInnerProducts; an exact
  // index's only such work is ranking its scan's answer again (k products per search).
  const std::size_t dim = 8, n = 6000;
  // efSearch 8: a beam small enough that the graph pays at 6,000 items (kScanRowsPerSearchVisit).
  auto index = hnsw(dim, Json{{"seed", 3}, {"efConstruction", 16}, {"M", 8}, {"efSearch", 8}, {"build", "incremental"}});
  ExactIndex exact(dim);
  Random random(5);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * dim);
  index->add(ids.data(), n, vectors.data(), vectors.size());
  exact.add(ids.data(), n, vectors.data(), vectors.size());
  index->build(n / 2);
  const auto query = gaussian(random, dim);
  const std::uint64_t all = index->innerProducts(), approximate = index->approximateInnerProducts();
  const std::size_t waiting = index->stats()["pending"].get<std::size_t>();
  ASSERT_GT(waiting, 0u);
  index->search(query.data(), dim, 1);
  EXPECT_EQ((index->innerProducts() - all) - (index->approximateInnerProducts() - approximate), waiting);
  EXPECT_GT(index->approximateInnerProducts(), approximate);
  exact.search(query.data(), dim, 1);
  exact.searchExactly(query.data(), dim, 1);
  EXPECT_GT(exact.innerProducts(), 0u);
  EXPECT_EQ(exact.approximateInnerProducts(), 2u);
}

TEST(HnswIndex, AnIncrementalGraphStartsOnlyWhereItPaysAndAnswersExactlyBelow) {
  // M 8, efSearch 64, one answer: a search visits up to 64 x 16 nodes, so the graph starts from
  // 30 x 1,024 = 30,720 items; below, every search is an exact scan and nothing is built.
  const std::size_t dim = 8, small = 30000;
  const Json options{{"seed", 3}, {"efConstruction", 16}, {"M", 8}, {"efSearch", 64}, {"build", "incremental"}, {"buildCredit", 10}};
  auto index = hnsw(dim, options);
  ExactIndex exact(dim);
  Random random(6);
  std::vector<Id> ids(small + 2000);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * dim);
  index->add(ids.data(), small, vectors.data(), small * dim);
  exact.add(ids.data(), small, vectors.data(), small * dim);
  for (int q = 0; q < 20; ++q) {
    const auto query = gaussian(random, dim);
    const SearchResult answer = index->search(query.data(), dim, 1);
    EXPECT_EQ(answer.ids, exact.search(query.data(), dim, 1).ids) << q;
  }
  EXPECT_EQ(index->stats()["pending"].get<std::size_t>(), small) << "nothing built below the size where the graph pays";
  // A scan and the ranking of its answer again, as an exact index counts (one product a search).
  EXPECT_EQ(index->innerProducts(), 20 * (small + 1));
  EXPECT_EQ(index->approximateInnerProducts(), 20u);
  // Past it, the searches build slices again.
  index->add(ids.data() + small, 2000, vectors.data() + small * dim, 2000 * dim);
  for (int q = 0; q < 5; ++q) {
    const auto query = gaussian(random, dim);
    index->search(query.data(), dim, 1);
  }
  EXPECT_LT(index->stats()["pending"].get<std::size_t>(), small + 2000);
  // A graph built on request is searched at any size.
  auto built = hnsw(dim, options);
  built->add(ids.data(), 3000, vectors.data(), 3000 * dim);
  built->build(3000);
  const auto query = gaussian(random, dim);
  built->search(query.data(), dim, 1);
  EXPECT_GT(built->approximateInnerProducts(), 0u);
}

TEST(HnswIndex, AVisitCostsMoreScanRowsOnceTheGraphOutgrowsACache) {
  // The incremental build's conversion of graph work into scan rows: flat while the graph fits in a
  // cache, then kEvaluationCostGrowth more per doubling of its memory (a visit goes to main memory,
  // the scan still streams).
  const double cached = HnswIndex::kCachedGraphBytes;
  EXPECT_EQ(HnswIndex::evaluationCost(0.0), HnswIndex::kEvaluationCost);
  EXPECT_EQ(HnswIndex::evaluationCost(cached), HnswIndex::kEvaluationCost);
  EXPECT_NEAR(HnswIndex::evaluationCost(2.0 * cached), HnswIndex::kEvaluationCost * (1.0 + HnswIndex::kEvaluationCostGrowth), 1e-9);
  EXPECT_NEAR(HnswIndex::evaluationCost(8.0 * cached), HnswIndex::kEvaluationCost * (1.0 + 3.0 * HnswIndex::kEvaluationCostGrowth), 1e-9);
  double previous = 0.0;
  for (double bytes = cached / 4; bytes < 1e11; bytes *= 1.7) {
    EXPECT_GE(HnswIndex::evaluationCost(bytes), previous);
    previous = HnswIndex::evaluationCost(bytes);
  }
}

TEST(HnswIndex, IncrementalBuildAnswersExactlyAndNoSearchCostsMoreThanItsCredit) {
  // The default build: add() does no graph work; every search scans the waiting items and then
  // spends at most (1 + buildCredit) scans of the store, graph work weighted as several scan rows,
  // on inserting more of them. The graph completes, and searches then do sublinear work.
  // efSearch 16: a beam small enough that the graph pays at 20,000 items (kScanRowsPerSearchVisit).
  const std::size_t dim = 8, n = 20000;
  auto index = hnsw(dim, Json{{"seed", 3}, {"efConstruction", 16}, {"M", 8}, {"efSearch", 16}, {"build", "incremental"}});
  Random random(31);
  ExactIndex oracle(dim);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * dim);
  index->add(ids.data(), n, vectors.data(), vectors.size());
  oracle.add(ids.data(), n, vectors.data(), vectors.size());
  Json stats = index->stats();
  EXPECT_EQ(stats["pending"].get<std::size_t>(), n);
  EXPECT_EQ(stats["distanceComputations"].get<double>(), 0.0);
  EXPECT_EQ(stats["graphSlots"].get<std::size_t>(), 0u);
  const auto firstQuery = gaussian(random, dim);
  EXPECT_EQ(checkResult(*index, oracle, firstQuery, 10, index->search(firstQuery.data(), dim, 10)), 1.0)
      << "with nothing built the answer is a scan";
  std::size_t searches = 1, built = index->stats()["built"].get<std::size_t>();
  double recall = 0.0, largestBuild = 0.0, trialDecision = 0.0;
  EXPECT_GT(built, 0u);
  while (built < n && searches < 20000) {
    const double before = index->stats()["distanceComputations"].get<double>();
    const double cost = index->stats()["evaluationCost"].get<double>();
    const double productsBefore = static_cast<double>(index->innerProducts());
    const auto query = gaussian(random, dim);
    recall += checkResult(*index, oracle, query, 10, index->search(query.data(), dim, 10));
    ++searches;
    stats = index->stats();
    const double searchWork = static_cast<double>(index->innerProducts()) - productsBefore;
    const double graphWork = stats["distanceComputations"].get<double>() - before;
    // Graph work counts evaluationCost scan rows per distance (as the call found the graph); the last
    // insertion may overshoot by one. The call that ends the space trial also searches both trial
    // graphs for 64 items: measured apart.
    const bool decided = stats["spaceDecided"].get<bool>() && trialDecision == 0.0;
    (decided ? trialDecision : largestBuild) = std::max(decided ? trialDecision : largestBuild, cost * graphWork + searchWork);
    const std::size_t now = stats["built"].get<std::size_t>();
    EXPECT_GE(now, built);
    built = now;
  }
  EXPECT_EQ(built, n) << "the graph completes within " << searches << " searches";
  EXPECT_LE(largestBuild, 2.0 * n + HnswIndex::kEvaluationCost * 2000.0);
  EXPECT_LT(trialDecision, 0.05 * HnswIndex::kEvaluationCost * index->stats()["distanceComputations"].get<double>());
  EXPECT_GE(recall / static_cast<double>(searches - 1), 0.9);
  // A graph of 20,000 nodes of dimension 8 sits in a cache: a visit costs the base rate.
  EXPECT_EQ(index->stats()["evaluationCost"].get<double>(), HnswIndex::kEvaluationCost);
  // Complete: searches do sublinear work and no building.
  const auto query = gaussian(random, dim);
  const double productsBefore = static_cast<double>(index->innerProducts());
  index->search(query.data(), dim, 10);
  EXPECT_LT(static_cast<double>(index->innerProducts()) - productsBefore, 0.2 * n);
  EXPECT_EQ(index->stats()["pending"].get<std::size_t>(), 0u);
}

TEST(HnswIndex, BuildFinishesTheGraphOnRequestAndSmallSetsKeepNoGraph) {
  const std::size_t dim = 6;
  Random random(5);
  auto index = hnsw(dim, Json{{"seed", 4}, {"build", "incremental"}, {"efConstruction", 32}});
  std::vector<Id> ids(3000);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * dim);
  // Below kGraphMinimum items searches scan and build nothing (no graph, no hnswlib tables).
  index->add(ids.data(), 500, vectors.data(), 500 * dim);
  const auto query = gaussian(random, dim);
  index->search(query.data(), dim, 5);
  EXPECT_EQ(index->stats()["capacity"].get<std::size_t>(), 0u);
  index->add(ids.data() + 500, 2500, vectors.data() + 500 * dim, 2500 * dim);
  EXPECT_EQ(index->build(100), 2900u);
  EXPECT_EQ(index->stats()["built"].get<std::size_t>(), 100u);
  // Removing built and waiting items keeps the built rows exactly the graph's items.
  std::vector<Id> out = {0, 50, 99, 2000, 2999};
  index->remove(out.data(), out.size());
  EXPECT_EQ(index->stats()["built"].get<std::size_t>(), 97u);
  EXPECT_EQ(index->build(static_cast<std::size_t>(-1)), 0u);
  EXPECT_EQ(index->stats()["built"].get<std::size_t>(), 2995u);
  EXPECT_TRUE(index->stats()["spaceDecided"].get<bool>());
  EXPECT_EQ(index->build(10), 0u);
}

TEST(HnswIndex, RemovingMostItemsCompactsTheGraph) {
  auto index = hnsw(6, Json{{"seed", 7}});
  Random random(7);
  ExactIndex oracle(6);
  std::vector<Id> ids(600);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * 6);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  std::vector<Id> out(ids.begin(), ids.begin() + 500);
  index->remove(out.data(), out.size());
  oracle.remove(out.data(), out.size());
  const auto query = gaussian(random, 6);
  EXPECT_EQ(checkResult(*index, oracle, query, 10, index->search(query.data(), 6, 10)), 1.0);
  EXPECT_EQ(index->stats()["graphSlots"].get<std::size_t>(), 100u);
  // Removing everything leaves an empty, usable index.
  std::vector<Id> rest(ids.begin() + 500, ids.end());
  index->remove(rest.data(), rest.size());
  EXPECT_TRUE(index->search(query.data(), 6, 10).ids.empty());
  index->add(ids.data(), 1, vectors.data(), 6);
  EXPECT_EQ(index->search(query.data(), 6, 10).ids, (std::vector<Id>{0}));
}

TEST(HnswIndex, EuclideanReductionRebuildsWhenTheLargestNormGrows) {
  auto index = hnsw(3, Json{{"seed", 8}, {"space", "euclidean"}});
  Random random(8);
  ExactIndex oracle(3);
  std::vector<Id> ids(200);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * 3, 0.1);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const double firstNorm = index->stats()["transformNorm"].get<double>();
  // One far larger item: it must become the answer for queries along it.
  const Id big = 1000;
  const float far[] = {30, -40, 0};
  index->add(&big, 1, far, 3);
  oracle.add(&big, 1, far, 3);
  const Json stats = index->stats();
  EXPECT_GE(stats["transformNorm"].get<double>(), 50.0);
  EXPECT_GT(stats["transformNorm"].get<double>(), firstNorm);
  EXPECT_EQ(stats["rebuilds"].get<int>(), 1) << "one restart, for the new R";
  const std::vector<float> query = {0.6f, -0.8f, 0.1f};
  const auto result = index->search(query.data(), 3, 10);
  ASSERT_FALSE(result.ids.empty());
  EXPECT_EQ(result.ids[0], big);
  EXPECT_EQ(checkResult(*index, oracle, query, 10, result), 1.0);
}

TEST(HnswIndex, SameSeedSameResults) {
  auto a = hnsw(8, Json{{"seed", 9}});
  auto b = hnsw(8, Json{{"seed", 9}});
  Random random(9);
  std::vector<Id> ids(2000);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, ids.size() * 8);
  a->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  b->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  for (int q = 0; q < 10; ++q) {
    const auto query = gaussian(random, 8);
    EXPECT_EQ(a->search(query.data(), 8, 10).ids, b->search(query.data(), 8, 10).ids);
  }
}

TEST(HnswIndex, SearchesBetweenChangesLeaveLaterAnswersAsWithoutThem) {
  // A search keeps its visited marks and heaps for the next one (FilteredGraphSearch): searches run
  // between additions, removals (deleted nodes) and slot reuse must leave nothing that changes later
  // answers or their work, in either space.
  for (const char* space : {"inner-product", "euclidean"}) {
    auto searched = hnsw(8, Json{{"seed", 4}, {"space", space}, {"efConstruction", 40}});
    auto quiet = hnsw(8, Json{{"seed", 4}, {"space", space}, {"efConstruction", 40}});
    Random data(4);
    Random queries(5);
    std::vector<Id> ids(3000);
    std::iota(ids.begin(), ids.end(), 0);
    const auto vectors = gaussian(data, ids.size() * 8);
    const auto change = [&](const std::function<void(MipsIndex&)>& apply) {
      apply(*searched);
      apply(*quiet);
      for (int q = 0; q < 20; ++q) {
        const auto query = gaussian(queries, 8);
        SearchOptions options;
        options.shortlist = q % 3 == 0 ? 40 : 0;
        searched->search(query.data(), 8, 1 + q % 12, options);
      }
    };
    change([&](MipsIndex& index) { index.add(ids.data(), 2000, vectors.data(), 2000 * 8); });
    change([&](MipsIndex& index) { index.remove(ids.data() + 100, 300); });
    change([&](MipsIndex& index) { index.add(ids.data() + 2000, 200, vectors.data() + 2000 * 8, 200 * 8); });
    change([&](MipsIndex& index) { index.add(ids.data() + 100, 300, vectors.data() + 100 * 8, 300 * 8); });
    for (int q = 0; q < 30; ++q) {
      const auto query = gaussian(queries, 8);
      const std::uint64_t before = searched->innerProducts();
      const std::uint64_t quietBefore = quiet->innerProducts();
      const auto a = searched->search(query.data(), 8, 10);
      const auto b = quiet->search(query.data(), 8, 10);
      EXPECT_EQ(a.ids, b.ids) << space << " query " << q;
      EXPECT_EQ(a.scores, b.scores) << space << " query " << q;
      EXPECT_EQ(searched->innerProducts() - before, quiet->innerProducts() - quietBefore) << space << " query " << q;
    }
  }
}

TEST(HnswIndex, InvalidOptionsAndInputs) {
  EXPECT_EQ(codeOf([] { hnsw(4, Json{{"M", 1}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { hnsw(4, Json{{"efSearch", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { hnsw(4, Json{{"efConstruction", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { hnsw(4, Json{{"space", "cosine"}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { hnsw(4, Json{{"M", 2.5}}); }), ErrorCode::InvalidArgument);
  for (const char* space : {"euclidean", "inner-product"}) {
    auto index = hnsw(5, Json{{"space", space}});
    EXPECT_EQ(index->type(), "hnsw");
    checkErrorsLeaveStateUnchanged(*index);
  }
}

TEST(HnswIndex, ShortlistsBelowEfSearchStillWidenTheSearch) {
  // The beam is efSearch + count - 1, so with the default efSearch 64 shortlists of 10, 30 and 100
  // search differently (under max(efSearch, count) the first two were identical by construction),
  // and recall@1 does not fall as either knob grows.
  Random random(11);
#if defined(__SANITIZE_ADDRESS__)
  const std::size_t dim = 16, n = 2000;
#else
  const std::size_t dim = 16, n = 6000;
#endif
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * dim);
  ExactIndex oracle(dim);
  oracle.add(ids.data(), n, vectors.data(), vectors.size());
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < 200; ++q) queries.push_back(gaussian(random, dim));
  auto recallAtOne = [&](std::size_t efSearch, std::size_t shortlist, double* work) {
    auto index = hnsw(dim, Json{{"seed", 4}, {"efConstruction", 32}, {"M", 8}, {"efSearch", efSearch}});
    index->add(ids.data(), n, vectors.data(), vectors.size());
    const auto before = index->innerProducts();
    SearchOptions options;
    options.shortlist = shortlist;
    int hits = 0;
    for (const auto& query : queries) {
      hits += index->search(query.data(), dim, 1, options).ids.front() == oracle.search(query.data(), dim, 1).ids.front();
    }
    *work = static_cast<double>(index->innerProducts() - before);
    return hits / static_cast<double>(queries.size());
  };
  double previousRecall = 0.0, previousWork = 0.0;
  for (const std::size_t shortlist : {1u, 10u, 30u, 100u}) {
    double work = 0.0;
    const double recall = recallAtOne(16, shortlist, &work);
    EXPECT_GT(work, previousWork) << "shortlist " << shortlist;
    EXPECT_GE(recall, previousRecall - 0.02) << "shortlist " << shortlist;
    previousRecall = recall;
    previousWork = work;
  }
  previousRecall = 0.0, previousWork = 0.0;
  for (const std::size_t efSearch : {4u, 16u, 64u, 256u}) {
    double work = 0.0;
    const double recall = recallAtOne(efSearch, 1, &work);
    EXPECT_GT(work, previousWork) << "efSearch " << efSearch;
    EXPECT_GE(recall, previousRecall - 0.02) << "efSearch " << efSearch;
    previousRecall = recall;
    previousWork = work;
  }
  EXPECT_GE(previousRecall, 0.85);
}

TEST(HnswIndex, AutoSpaceMeasuresBothOnASampleAndKeepsInnerProductOnGaussianData) {
  Random random(21);
  const std::size_t dim = 16, n = 3000;
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * dim);
  auto automatic = hnsw(dim, Json{{"seed", 2}, {"efConstruction", 32}});
  // Below 1,000 items nothing is decided yet.
  automatic->add(ids.data(), 500, vectors.data(), 500 * dim);
  EXPECT_FALSE(automatic->stats()["spaceDecided"].get<bool>());
  automatic->add(ids.data() + 500, n - 500, vectors.data() + 500 * dim, (n - 500) * dim);
  const Json stats = automatic->stats();
  EXPECT_TRUE(stats["spaceDecided"].get<bool>());
  EXPECT_EQ(stats["space"], "inner-product");
  EXPECT_GT(stats["spaceTrial"]["innerProductRecall"].get<double>(), stats["spaceTrial"]["euclideanRecall"].get<double>());
  // An explicit space is kept without a trial.
  auto euclidean = hnsw(dim, Json{{"seed", 2}, {"efConstruction", 32}, {"space", "euclidean"}});
  euclidean->add(ids.data(), n, vectors.data(), vectors.size());
  EXPECT_EQ(euclidean->stats()["space"], "euclidean");
  EXPECT_FALSE(euclidean->stats().contains("spaceTrial"));
  // Answers stay exact-scored and agree with the oracle on most queries after the decision.
  ExactIndex oracle(dim);
  oracle.add(ids.data(), n, vectors.data(), vectors.size());
  double recall = 0.0;
  for (int q = 0; q < 50; ++q) {
    const auto query = gaussian(random, dim);
    recall += checkResult(*automatic, oracle, query, 10, automatic->search(query.data(), dim, 10));
  }
  EXPECT_GE(recall / 50, 0.9);
}
// Issue 57: with efSearch 1 and a shortlist as the beam, the trial had searched with a beam of 10
// and kept the inner-product graph on Fashion-MNIST (recall 0.62 where the reduction reaches
// 0.995). Nonnegative rows around 20 centres with widely varying norms (a cone with hubs, as
// Fashion-MNIST): at the default beam the reduction wins clearly (measured: 0.959 against 0.780),
// at a beam of 10 it does not (0.469 against 0.770: efSearch 1 kept inner product, and searches with
// a shortlist of 100 found 0.80 of the top 10 instead of 0.97). A build outside a search now tries
// the spaces with at least the default efSearch: the same choice as the defaults'.
TEST(HnswIndex, TheSpaceTrialSearchesWithTheBeamTheIndexUses) {
  const std::size_t dim = 32, n = 3000, centres = 20;
  Random random(1);
  std::vector<std::vector<double>> centre(centres, std::vector<double>(dim));
  for (auto& c : centre) {
    for (double& x : c) x = std::abs(random.normal());
  }
  std::vector<float> vectors(n * dim);
  for (std::size_t i = 0; i < n; ++i) {
    const double norm = std::exp(0.5 * random.normal());
    const std::vector<double>& c = centre[random.uniformInt(centres)];
    for (std::size_t j = 0; j < dim; ++j) vectors[i * dim + j] = static_cast<float>(norm * std::max(0.0, c[j] + 0.3 * random.normal()));
  }
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  ExactIndex oracle(dim);
  oracle.add(ids.data(), n, vectors.data(), vectors.size());
  const auto built = [&](Json options) {
    options["type"] = "hnsw";
    options["seed"] = 3;
    options["efConstruction"] = 100;
    auto index = makeMipsIndex(dim, options);
    index->add(ids.data(), n, vectors.data(), vectors.size());
    index->build(n);
    return index;
  };
  auto defaults = built(Json::object());
  auto narrow = built(Json{{"efSearch", 1}});
  const Json expected = defaults->stats();
  const Json trial = narrow->stats();
  EXPECT_EQ(expected["space"], "euclidean");
  EXPECT_GT(expected["spaceTrial"]["euclideanRecall"].get<double>(), expected["spaceTrial"]["innerProductRecall"].get<double>() + 0.1);
  EXPECT_EQ(trial["space"], expected["space"]);
  EXPECT_EQ(trial["spaceTrial"]["euclideanRecall"], expected["spaceTrial"]["euclideanRecall"]);
  EXPECT_EQ(trial["spaceTrial"]["innerProductRecall"], expected["spaceTrial"]["innerProductRecall"]);
  // The shortlist as the beam then finds what the defaults' search does.
  SearchOptions shortlist;
  shortlist.shortlist = 100;
  double recall = 0.0;
  for (std::size_t q = 0; q < 200; ++q) {
    const std::vector<float> query(vectors.begin() + static_cast<std::ptrdiff_t>((q * 37 % n) * dim),
                                   vectors.begin() + static_cast<std::ptrdiff_t>((q * 37 % n + 1) * dim));
    recall += checkResult(*narrow, oracle, query, 10, narrow->search(query.data(), dim, 10, shortlist));
  }
  EXPECT_GE(recall / 200, 0.9);
}
// The float bits of a score, so that +0 and -0 (and any rounding) count as different.
std::uint32_t bitsOf(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// An unfiltered search of a float graph in the inner-product space takes its candidates' scores from
// the graph search's beam instead of scoring their rows again (FilteredGraphSearch::keepsScores):
// each must be the bits the exact ranking computes (the store's score of the item's row against the
// padded query), or answers would differ from the exact scan's and from the other build's. Rows that
// keep scores (up to 64 floats) and longer ones (scored again), both layouts of the rows, deleted
// nodes in the graph, shortlists, alsoRank, one SearchResult reused search after search, and a
// batch on several threads (each with its own scratch) answering as the searches one by one. Small
// vectors too: the graph's distance 1 - <x, q> keeps every bit of a top score of a few units, but
// not of one near 0, so a score recovered from the distance would differ there.
TEST(HnswIndex, ScoresTakenFromTheGraphAreTheExactRankingsBits) {
  for (const float scale : {1.0f, 1e-3f}) {
    for (const std::size_t dim : {3u, 16u, 30u, 64u, 65u}) {
      for (const char* inlineRows : {"always", "never"}) {
        SCOPED_TRACE("dim " + std::to_string(dim) + " " + inlineRows + " scale " + std::to_string(scale));
        auto index = hnsw(dim, Json{{"space", "inner-product"}, {"seed", 9}, {"M", 8}, {"efConstruction", 40}, {"inlineRows", inlineRows}});
        ExactIndex oracle(dim);
        Random random(31 + dim);
        {
          std::vector<Id> ids(1500);
          std::iota(ids.begin(), ids.end(), Id{0});
          auto vectors = gaussian(random, ids.size() * dim);
          for (float& value : vectors) value *= scale;
          index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
          oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
        }
        std::vector<Id> gone(100);
        std::iota(gone.begin(), gone.end(), Id{200});
        index->remove(gone.data(), gone.size());
        oracle.remove(gone.data(), gone.size());
        SearchResult reused;
        std::vector<float> queries;
        std::vector<SearchResult> answers;
        for (int q = 0; q < 40; ++q) {
          const auto query = gaussian(random, dim);
          SearchOptions options;
          options.shortlist = q % 3 == 0 ? 0 : (q % 3 == 1 ? 12 : 50);
          if (q % 5 == 0) options.alsoRank = {7, 8, 250};
          const std::size_t k = q % 2 == 0 ? 10 : 1;
          index->search(query.data(), dim, k, options, reused);
          ASSERT_EQ(reused.ids.size(), k);
          ASSERT_EQ(reused.scores.size(), k);
          for (std::size_t i = 0; i < k; ++i) {
            EXPECT_EQ(bitsOf(reused.scores[i]), bitsOf(exactScore(*index, reused.ids[i], query))) << "query " << q << " rank " << i;
            if (i > 0) EXPECT_TRUE(TopK::better(reused.scores[i - 1], reused.ids[i - 1], reused.scores[i], reused.ids[i]));
          }
          checkResult(*index, oracle, query, k, reused);
          // A fresh answer is the same answer.
          const SearchResult fresh = index->search(query.data(), dim, k, options);
          EXPECT_EQ(fresh.ids, reused.ids);
          if (k == 10 && options.shortlist == 0 && options.alsoRank.empty()) {
            queries.insert(queries.end(), query.begin(), query.end());
            answers.push_back(fresh);
          }
        }
        const BatchSearchResult batch = index->searchBatch(queries.data(), queries.size(), answers.size(), 10);
        for (std::size_t q = 0; q < answers.size(); ++q) {
          ASSERT_EQ(batch.counts[q], answers[q].ids.size());
          for (std::size_t i = 0; i < answers[q].ids.size(); ++i) {
            EXPECT_EQ(batch.ids[q * batch.stride + i], answers[q].ids[i]);
            EXPECT_EQ(bitsOf(batch.scores[q * batch.stride + i]), bitsOf(answers[q].scores[i]));
          }
        }
      }
    }
  }
}
}  // namespace hnsw_index_test
