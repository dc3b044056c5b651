// FasterCUCB's maintained basis on graphic and transversal matroids: after every update, the basis
// it plays is an exact maximum-weight basis under the dominating weights (the greedy over all arms
// is the oracle). And the arm classes its scans rely on: arms of one class are interchangeable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/matroid/faster_cucb.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"

using namespace sublinear;

namespace faster_cucb_basis_test {

// Bernoulli means: the first `strong` arms near 0.9, the others spread in [0, 0.6].
std::vector<double> meansFor(std::size_t k, std::size_t strong, std::uint64_t seed) {
  Random random(seed);
  std::vector<double> means(k);
  for (std::size_t arm = 0; arm < k; ++arm) means[arm] = arm < strong ? 0.85 + 0.1 * random.uniform() : 0.6 * random.uniform();
  return means;
}

// A random multigraph on `vertices` vertices, or with `hubEdges` parallel edges between vertices 0
// and 1 first (the strong arms): every basis holds exactly one of them, so a greedy pass in index
// order meets all of them before it can complete the basis.
GraphicMatroid graphFor(std::size_t vertices, std::size_t k, std::size_t hubEdges, std::uint64_t seed) {
  Random random(seed);
  std::vector<std::uint32_t> edges;
  for (std::size_t arm = 0; arm < k; ++arm) {
    if (arm < hubEdges) {
      edges.insert(edges.end(), {0, 1});
    } else {
      const auto u = static_cast<std::uint32_t>(random.uniformInt(vertices));
      auto v = static_cast<std::uint32_t>(random.uniformInt(vertices - 1));
      if (v >= u) ++v;
      edges.insert(edges.end(), {u, v});
    }
  }
  return GraphicMatroid(vertices, edges);
}

TransversalMatroid transversalFor(std::size_t right, std::size_t k, std::uint64_t seed) {
  Random random(seed);
  std::vector<std::uint32_t> edges;
  for (std::size_t arm = 0; arm < k; ++arm) {
    for (int j = 0; j < 2; ++j) {
      edges.push_back(static_cast<std::uint32_t>(arm));
      edges.push_back(static_cast<std::uint32_t>(random.uniformInt(right)));
    }
  }
  return TransversalMatroid(k, right, edges);
}

void playRound(FasterCucb& policy, const std::vector<double>& means, Random& random) {
  const std::vector<Id> basis = policy.select();
  std::vector<double> rewards;
  for (const Id arm : basis) rewards.push_back(random.uniform() < means[arm] ? 1.0 : 0.0);
  policy.update(basis.data(), basis.size(), rewards.data(), rewards.size());
}

double counter(const Json& stats, const char* name) { return stats.at(name).get<double>(); }

TEST(FasterCucbBasis, IsAnExactMaximumBasisOfTheDominatingWeightsEveryRound) {
  struct Case {
    std::string name;
    Matroid* matroid;
    std::vector<double> means;
  };
  GraphicMatroid random = graphFor(12, 400, 0, 1);
  GraphicMatroid hub = graphFor(12, 400, 200, 2);
  TransversalMatroid transversal = transversalFor(10, 300, 3);
  std::vector<Case> cases{{"random graph", &random, meansFor(400, 0, 4)},
                          {"hub graph", &hub, meansFor(400, 200, 5)},
                          {"transversal", &transversal, meansFor(300, 0, 6)}};
  for (const auto& c : cases) {
    for (const double epsilon : {0.05, 0.3}) {
      FasterCucb policy(*c.matroid, Json{{"epsilon", epsilon}, {"seed", 7}, {"horizon", 3000}});
      Random random(8);
      std::size_t checked = 0;
      for (int round = 0; round < 3000; ++round) {
        if (policy.initialPullsDone()) {
          const std::vector<Id> basis = policy.select();
          const double lambda = policy.confidenceWidth(policy.rounds() + 1);
          std::vector<double> dominating(c.matroid->groundSetSize(), 0.0);
          for (Id arm = 0; arm < dominating.size(); ++arm) {
            if (!c.matroid->isLoop(arm)) dominating[arm] = policy.roundedIndex(arm, lambda);
          }
          double optimum = 0.0, played = 0.0;
          for (const Id arm : c.matroid->maxWeightBasis(dominating.data(), dominating.size())) optimum += dominating[arm];
          for (const Id arm : basis) played += dominating[arm];
          ASSERT_NEAR(played, optimum, 1e-9 * optimum) << c.name << " epsilon " << epsilon << " round " << round;
          ++checked;
          std::vector<double> rewards;
          for (const Id arm : basis) rewards.push_back(random.uniform() < c.means[arm] ? 1.0 : 0.0);
          policy.update(basis.data(), basis.size(), rewards.data(), rewards.size());
        } else {
          playRound(policy, c.means, random);
        }
      }
      EXPECT_GT(checked, 2000u) << c.name;
      // Both paths ran: rebuilds at the cells' entries, exchanges in between.
      const Json stats = policy.stats();
      EXPECT_GT(counter(stats, "basisExchanges"), 100.0) << c.name;
      EXPECT_LT(counter(stats, "basisRebuilds"), static_cast<double>(checked)) << c.name;
    }
  }
}

TEST(MatroidArmClasses, ArmsOfOneClassAreInterchangeable) {
  // The property scans rely on: for any independent set S holding neither a nor b of one class,
  // S + a is independent exactly when S + b is (checked against the batch independence test).
  GraphicMatroid graph = graphFor(5, 40, 0, 13);
  TransversalMatroid transversal = transversalFor(4, 40, 14);
  std::vector<std::uint32_t> groups(40);
  for (std::size_t arm = 0; arm < groups.size(); ++arm) groups[arm] = static_cast<std::uint32_t>(arm % 3);
  PartitionMatroid partition(groups);
  UniformMatroid uniform(40, 3);
  const std::vector<const Matroid*> matroids{&graph, &transversal, &partition, &uniform};
  Random random(15);
  for (const Matroid* m : matroids) {
    const std::vector<std::uint32_t> classes = m->armClasses();
    ASSERT_EQ(classes.size(), m->groundSetSize()) << m->kind();
    std::size_t sharedPairs = 0;
    for (int trial = 0; trial < 300; ++trial) {
      // A random independent set, grown greedily from a random order.
      std::vector<Id> held;
      auto oracle = m->makeOracle();
      for (int attempt = 0; attempt < 6; ++attempt) {
        const auto arm = static_cast<Id>(random.uniformInt(m->groundSetSize()));
        if (std::find(held.begin(), held.end(), arm) == held.end() && oracle->canAdd(arm)) {
          oracle->add(arm);
          held.push_back(arm);
        }
      }
      for (Id a = 0; a < m->groundSetSize(); ++a) {
        for (Id b = a + 1; b < m->groundSetSize(); ++b) {
          if (classes[a] != classes[b]) continue;
          if (std::find(held.begin(), held.end(), a) != held.end() || std::find(held.begin(), held.end(), b) != held.end()) continue;
          std::vector<Id> withA = held, withB = held;
          withA.push_back(a);
          withB.push_back(b);
          ASSERT_EQ(m->isIndependent(withA.data(), withA.size()), m->isIndependent(withB.data(), withB.size())) << m->kind();
          ++sharedPairs;
        }
      }
    }
    EXPECT_GT(sharedPairs, 0u) << m->kind();
  }
  // Parallel edges share a class whatever their direction; other edges do not.
  GraphicMatroid parallel(3, {0, 1, 1, 0, 1, 2, 0, 1});
  EXPECT_EQ(parallel.armClasses(), (std::vector<std::uint32_t>{0, 0, 1, 0}));
  TransversalMatroid sameRights(3, 3, {0, 1, 0, 2, 1, 2, 1, 1, 2, 1});
  EXPECT_EQ(sameRights.armClasses(), (std::vector<std::uint32_t>{0, 0, 1}));
}

double workPerRoundOn(const GraphicMatroid& matroid, const std::vector<double>& means) {
  FasterCucb policy(matroid, Json{{"epsilon", 0.1}, {"seed", 11}, {"horizon", 40000}});
  Random random(12);
  while (!policy.initialPullsDone()) playRound(policy, means, random);
  for (int round = 0; round < 200; ++round) playRound(policy, means, random);
  const Json before = policy.stats();
  const int rounds = 400;
  for (int round = 0; round < rounds; ++round) playRound(policy, means, random);
  const Json after = policy.stats();
  return (counter(after, "armsScanned") - counter(before, "armsScanned") + counter(after, "binsVisited") -
          counter(before, "binsVisited")) / rounds;
}

TEST(FasterCucbBasis, RepairWorkPerRoundGrowsWithTheVertexPairsNotWithTheParallelEdges) {
  // K edges on 31 vertices, half of them parallel strong edges between vertices 0 and 1. Scans test
  // one arm per class of parallel edges in a bin (at most 465 pairs), so the work per round grows
  // far less than K (x20 here): measured x1.6, where testing every arm grows x15.
  const double small = workPerRoundOn(graphFor(31, 1000, 500, 9), meansFor(1000, 500, 10));
  const double large = workPerRoundOn(graphFor(31, 20000, 10000, 9), meansFor(20000, 10000, 10));
  EXPECT_LE(large, 3.0 * small) << small << " -> " << large;
}
}  // namespace faster_cucb_basis_test
