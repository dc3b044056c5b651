// Index construction on several threads (core/parallelism.hpp, HnswIndex's bulk build): the graph
// built on two threads finds what the one-thread graph finds, survives save and load, and keeps its
// work counters; the setting itself and the helper that runs the threads.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "mips_oracle.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/sub_elim.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

using namespace sublinear;
using namespace mips_oracle;
using sublinear::testing::Threads;

namespace parallel_build_test {

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
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
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
  (*built.index)->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  oracle.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  {
    Threads using_(threads);
    EXPECT_EQ((*built.index)->build(kItems), 0u);
  }
  EXPECT_EQ((*built.index)->stats()["built"].get<std::size_t>(), kItems);
  double sum = 0.0;
  for (std::size_t q = 0; q < kQueries; ++q) {
    const auto query = gaussian(random, kDim);
    // The index as a plain MipsIndex: searches are the same on the persistent wrapper.
    sum += checkResult(**built.index, oracle, query, 10, (*built.index)->search(query.data(), kDim, 10));
  }
  built.recall = sum / kQueries;
  return built;
}

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
    const double work1 = (*one.index)->stats()["distanceComputations"].get<double>();
    const double work2 = (*two.index)->stats()["distanceComputations"].get<double>();
    EXPECT_NEAR(work2 / work1, 1.0, 0.1) << space;
    RecordProperty(std::string("recall-") + space, std::to_string(one.recall) + " / " + std::to_string(two.recall));
  }
}

TEST(HnswParallelBuild, TheGraphSurvivesSaveAndLoadAndAnswersTheSame) {
  const Built two = buildOn(2, "inner-product");
  const auto bytes = two.index->toBytes();
  auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "hnsw");  // validates every link
  EXPECT_EQ(restored.toBytes(), bytes);
  EXPECT_EQ(restored->stats(), (*two.index)->stats());
  Random random(3);
  for (int q = 0; q < 20; ++q) {
    const auto query = gaussian(random, kDim);
    EXPECT_EQ(restored->search(query.data(), kDim, 10).ids, (*two.index)->search(query.data(), kDim, 10).ids);
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
  (*index)->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  Threads using_(2);
  EXPECT_EQ((*index)->build(2500), n - 2500);
  EXPECT_EQ((*index)->stats()["built"].get<std::size_t>(), 2500u);
  EXPECT_EQ((*index)->build(n), 0u);
  EXPECT_EQ((*index)->stats()["pending"].get<std::size_t>(), 0u);
}

TEST(HnswParallelBuild, TheSpaceTrialOnTwoThreadsBuildsTheGraphsOneThreadBuilds) {
  // space "auto" over 3000 items: the trial takes the first 3000 - 64 rows into both spaces' graphs.
  const std::size_t n = 3000, trialRows = n - 64;
  std::vector<std::vector<std::uint8_t>> states;
  for (std::size_t threads : {1u, 2u}) {
    PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 9}});
    addGaussianItems(index, n, 4);
    Threads using_(threads);
    EXPECT_EQ(index->build(trialRows), n - trialRows);
    EXPECT_TRUE(index->stats()["spaceDecided"].get<bool>());
    EXPECT_GT(index->stats()["spaceTrial"]["distanceComputations"].get<double>(), 0.0);
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
    EXPECT_EQ(index->build(n), 0u);
    states.push_back(index.toBytes());
  }
  EXPECT_EQ(states[0], states[1]);
}

TEST(Parallelism, HelpersStayUpBetweenCallsAndANestedCallRunsAlone) {
  // The wasm build's pool hands out a Worker once per event-loop turn: the helpers must be the same
  // threads call after call, or a loop of searches would get a helper for its first call only.
  std::set<std::thread::id> helpers;
  std::mutex guard;
  const std::thread::id caller = std::this_thread::get_id();
  for (int call = 0; call < 50; ++call) {
    std::size_t nested = 0;
    EXPECT_EQ(runInParallel(2, [&] {
      if (std::this_thread::get_id() == caller) return;
      const std::lock_guard<std::mutex> lock(guard);
      helpers.insert(std::this_thread::get_id());
      nested = runInParallel(2, [] {});
    }), 2u);
    EXPECT_EQ(nested, 1u) << "a call from inside a task runs on its own thread";
  }
  EXPECT_EQ(helpers.size(), 1u);
}

TEST(Parallelism, SideBySideRunsBothJobsAtOnceWithAHelperAndInOrderWithout) {
  for (std::size_t threads : {1u, 2u}) {
    Threads using_(threads);
    std::atomic<bool> secondStarted{false};
    bool overlapped = false;
    std::vector<int> order;
    std::mutex guard;
    runSideBySide(
        [&] {
          // Waits (up to 5 s) for the second job: it can start only on another thread.
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(threads > 1 ? 5 : 0);
          while (!secondStarted && std::chrono::steady_clock::now() < until) std::this_thread::yield();
          overlapped = secondStarted;
          const std::lock_guard<std::mutex> lock(guard);
          order.push_back(1);
        },
        [&] {
          secondStarted = true;
          const std::lock_guard<std::mutex> lock(guard);
          order.push_back(2);
        });
    ASSERT_EQ(order.size(), 2u);
    if (threads == 1) {
      EXPECT_EQ(order, (std::vector<int>{1, 2}));
      EXPECT_FALSE(overlapped);
    } else {
      EXPECT_TRUE(overlapped) << "the two jobs ran one after the other";
    }
  }
}

TEST(HnswParallelBuild, SearchesOnTwoThreadsBuildTheOneThreadGraphAndAnswers) {
  // An incremental graph grows by a slice per search; with a helper the slice is built while the
  // caller scans the waiting rows. Same graph, same answers, same counters as on one thread.
  const std::size_t n = 6000;
  std::vector<std::vector<std::uint8_t>> states;
  std::vector<std::vector<Id>> answers(2);
  for (std::size_t threads : {1u, 2u}) {
    // The space trial builds two graphs in each slice; a large credit builds several rows a search,
    // and a small beam (efSearch 1) makes the graph worth starting at 6,000 items.
    PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 5}, {"space", "auto"}, {"M", 8}, {"efConstruction", 16}, {"efSearch", 1}, {"buildCredit", 10}});
    addGaussianItems(index, n, 8);
    Threads using_(threads);
    Random random(12);
    int searches = 0;
    for (; searches < 5000 && index->stats()["pending"].get<std::size_t>() > 0; ++searches) {
      const auto query = gaussian(random, kDim);
      const auto ids = index->search(query.data(), kDim, 10).ids;
      answers[threads - 1].insert(answers[threads - 1].end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(index->stats()["built"].get<std::size_t>(), n) << "the searches built the graph";
    EXPECT_GT(searches, 100) << "a slice at a time";
    EXPECT_TRUE(index->stats()["spaceDecided"].get<bool>());
    states.push_back(index.toBytes());
  }
  EXPECT_EQ(states[0], states[1]);
  EXPECT_EQ(answers[0], answers[1]);
}

TEST(ParallelPolicies, DefaultPoliciesMakeTheOneThreadChoicesOnTwoThreads) {
  // With a helper, Sub-TS's searches build their graph slice beside the scan, and the elimination
  // policies examine the arms of a review or re-partition on both threads: the same selections and
  // the same state, byte for byte. 20,000 arms, so that reviews examine more than one grain and
  // Sub-TS's graph gets slices.
  const std::size_t n = 20000;
  for (const std::string type : {"sub-ts", "sub-elim", "linear-elim"}) {
    std::vector<std::vector<std::uint8_t>> states;
    std::vector<std::vector<Id>> choices(2);
    for (std::size_t threads : {1u, 2u}) {
      PersistentLinearPolicy policy(Json{{"type", type}, {"dim", kDim}, {"seed", 3}, {"horizon", 2000}});
      Random random(21);
      std::vector<Id> ids(n);
      std::iota(ids.begin(), ids.end(), 0);
      std::vector<double> features(n * kDim);
      for (auto& value : features) value = random.normal();
      std::vector<double> theta(kDim);
      for (auto& value : theta) value = random.normal() / 4.0;
      policy->addArms(ids.data(), n, features.data(), features.size());
      Threads using_(threads);
      for (int t = 0; t < 600; ++t) {
        const Id arm = policy->select();
        choices[threads - 1].push_back(arm);
        double mean = 0.0;
        for (std::size_t j = 0; j < kDim; ++j) mean += features[arm * kDim + j] * theta[j];
        policy->update(arm, mean + 0.3 * random.normal());
      }
      states.push_back(policy.toBytes());
      const Json stats = policy->stats();
      if (type != "sub-ts") EXPECT_GT(stats["reviews"].get<double>(), 1.0) << type;
    }
    EXPECT_EQ(choices[0], choices[1]) << type;
    EXPECT_EQ(states[0], states[1]) << type;
  }
}
}  // namespace parallel_build_test
