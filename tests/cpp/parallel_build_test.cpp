// Index construction on several threads (core/parallelism.hpp, HnswIndex's bulk build): the graph
// built on two threads finds what the one-thread graph finds, survives save and load, and keeps its
// work counters; the setting itself and the helper that runs the threads.
#include <gtest/gtest.h>

#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "mips_oracle.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/mips/persistent_index.hpp"

using namespace sublinear;
using namespace mips_oracle;

namespace {

// Sets the process-wide thread count for one test and restores 1, the native default, after it.
class Threads {
 public:
  explicit Threads(std::size_t count) { setParallelism(count); }
  ~Threads() { setParallelism(1); }
};

#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kItems = 4000;  // AddressSanitizer is about 5x slower
#else
constexpr std::size_t kItems = 20000;
#endif
constexpr std::size_t kDim = 16;
constexpr std::size_t kQueries = 200;

// ids 0..n-1 with Gaussian vectors drawn from `seed`, added to `index`.
void addGaussianItems(PersistentIndex& index, std::size_t n, std::uint64_t seed) {
  Random random(seed);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * kDim);
  index.add(ids.data(), ids.size(), vectors.data(), vectors.size());
}

struct Built {
  std::unique_ptr<PersistentIndex> index;
  double recall = 0.0;
};

// kItems Gaussian items into an incremental graph, finished by one build() on `threads` threads,
// then recall@10 of kQueries Gaussian queries against the exact oracle.
Built buildOn(std::size_t threads, const std::string& space) {
  Built built;
  built.index = std::make_unique<PersistentIndex>(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 7}, {"space", space}});
  Random random(11);
  ExactIndex oracle(kDim);
  std::vector<Id> ids(kItems);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, kItems * kDim);
  built.index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  {
    Threads using_(threads);
    EXPECT_EQ(built.index->build(kItems), 0u);
  }
  EXPECT_EQ(built.index->index().stats()["built"].get<std::size_t>(), kItems);
  double sum = 0.0;
  for (std::size_t q = 0; q < kQueries; ++q) {
    const auto query = gaussian(random, kDim);
    // The index as a plain MipsIndex: searches are the same on the persistent wrapper.
    sum += checkResult(built.index->index(), oracle, query, 10, built.index->search(query.data(), kDim, 10));
  }
  built.recall = sum / kQueries;
  return built;
}

}  // namespace

TEST(Parallelism, DefaultsToOneAndClampsWhatIsSet) {
  EXPECT_EQ(parallelism(), 1u);  // natively, unless a program asks: runs repeat bit for bit
  setParallelism(0);
  EXPECT_EQ(parallelism(), 1u);
  setParallelism(kMaxParallelism + 5);
  EXPECT_EQ(parallelism(), kMaxParallelism);
  setParallelism(1);
}

TEST(Parallelism, RunsTheTaskOnThatManyThreadsAndRethrowsTheirFailure) {
  std::mutex guard;
  std::set<std::thread::id> seen;
  const std::size_t ran = runInParallel(3, [&] {
    const std::lock_guard<std::mutex> lock(guard);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ran, 3u);
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen.count(std::this_thread::get_id())) << "the calling thread works too";
  const std::thread::id caller = std::this_thread::get_id();
  EXPECT_THROW(runInParallel(2, [&] {
    if (std::this_thread::get_id() != caller) throw std::runtime_error("a helper failed");
  }), std::runtime_error);
}

TEST(HnswParallelBuild, TwoThreadsFindWhatOneThreadFinds) {
  for (const char* space : {"inner-product", "euclidean"}) {
    const Built one = buildOn(1, space);
    const Built two = buildOn(2, space);
    EXPECT_GE(two.recall, one.recall - 0.02) << space;
    EXPECT_GE(two.recall, 0.9) << space;
    // The two-thread graph is another graph (its nodes were numbered as the threads took them), or
    // the build never ran concurrently.
    EXPECT_NE(one.index->toBytes(), two.index->toBytes()) << space;
    // Every computation counted: a racing or lost count would drift from the one-thread build's,
    // which differs only by the graph the timing made.
    const double work1 = one.index->index().stats()["distanceComputations"].get<double>();
    const double work2 = two.index->index().stats()["distanceComputations"].get<double>();
    EXPECT_NEAR(work2 / work1, 1.0, 0.1) << space;
    RecordProperty(std::string("recall-") + space, std::to_string(one.recall) + " / " + std::to_string(two.recall));
  }
}

TEST(HnswParallelBuild, TheGraphSurvivesSaveAndLoadAndAnswersTheSame) {
  const Built two = buildOn(2, "inner-product");
  const auto bytes = two.index->toBytes();
  auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "hnsw");  // validates every link
  EXPECT_EQ(restored->toBytes(), bytes);
  EXPECT_EQ(restored->index().stats(), two.index->index().stats());
  Random random(3);
  for (int q = 0; q < 20; ++q) {
    const auto query = gaussian(random, kDim);
    EXPECT_EQ(restored->search(query.data(), kDim, 10).ids, two.index->search(query.data(), kDim, 10).ids);
  }
}

TEST(HnswParallelBuild, BuildStopsAtMaxItems) {
  // The same items built in two calls on two threads: the graph holds exactly what was asked.
  auto index = std::make_unique<PersistentIndex>(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 7}, {"space", "inner-product"}});
  Random random(11);
  const std::size_t n = 6000;
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * kDim);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  Threads using_(2);
  EXPECT_EQ(index->build(2500), n - 2500);
  EXPECT_EQ(index->index().stats()["built"].get<std::size_t>(), 2500u);
  EXPECT_EQ(index->build(n), 0u);
  EXPECT_EQ(index->index().stats()["pending"].get<std::size_t>(), 0u);
}

TEST(HnswParallelBuild, TheSpaceTrialOnTwoThreadsBuildsTheGraphsOneThreadBuilds) {
  // space "auto" over 3000 items: the trial takes the first 3000 - 64 rows into both spaces' graphs.
  const std::size_t n = 3000, trialRows = n - 64;
  std::vector<std::vector<std::uint8_t>> states;
  for (std::size_t threads : {1u, 2u}) {
    PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 9}});
    addGaussianItems(index, n, 4);
    Threads using_(threads);
    EXPECT_EQ(index.build(trialRows), n - trialRows);
    EXPECT_TRUE(index.index().stats()["spaceDecided"].get<bool>());
    EXPECT_GT(index.index().stats()["spaceTrial"]["distanceComputations"].get<double>(), 0.0);
    states.push_back(index.toBytes());
  }
  // Each graph in row order on its own thread: the same graphs, the same decision, the same counts.
  EXPECT_EQ(states[0], states[1]);
}

TEST(HnswParallelBuild, ALightGraphStaysOnOneThread) {
  // efConstruction 16 x 16 dimensions is below kParallelWork: the same graph whatever the threads.
  const std::size_t n = 6000;
  std::vector<std::vector<std::uint8_t>> states;
  for (std::size_t threads : {1u, 2u}) {
    PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 5}, {"M", 8}, {"efConstruction", 16}, {"space", "inner-product"}});
    addGaussianItems(index, n, 6);
    Threads using_(threads);
    EXPECT_EQ(index.build(n), 0u);
    states.push_back(index.toBytes());
  }
  EXPECT_EQ(states[0], states[1]);
}
