// Matroid classes against definitions checked by brute force on small ground sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"

using namespace sublinear;

namespace matroid_oracle_test {
using Subset = std::vector<Id>;
using Definition = std::function<bool(const Subset&)>;

Subset members(unsigned mask, std::size_t k) {
  Subset s;
  for (std::size_t i = 0; i < k; ++i)
    if (mask & (1u << i)) s.push_back(static_cast<Id>(i));
  return s;
}

// Forest by definition: |S| edges on V vertices form a forest iff they leave V - |S| components
// (counted with a plain graph search, no union-find).
bool isForest(std::size_t vertices, const std::vector<std::uint32_t>& edges, const Subset& s) {
  std::vector<std::vector<std::uint32_t>> adjacent(vertices);
  for (const auto arm : s) {
    adjacent[edges[2 * arm]].push_back(edges[2 * arm + 1]);
    adjacent[edges[2 * arm + 1]].push_back(edges[2 * arm]);
  }
  std::vector<char> seen(vertices, 0);
  std::size_t components = 0;
  for (std::size_t v = 0; v < vertices; ++v) {
    if (seen[v]) continue;
    ++components;
    std::vector<std::uint32_t> stack{static_cast<std::uint32_t>(v)};
    seen[v] = 1;
    while (!stack.empty()) {
      const auto u = stack.back();
      stack.pop_back();
      for (const auto w : adjacent[u])
        if (!seen[w]) seen[w] = 1, stack.push_back(w);
    }
  }
  return components + s.size() == vertices;
}

// Matchable by trying every assignment of distinct right vertices.
bool isMatchable(std::size_t right, const std::vector<std::uint32_t>& edges, const Subset& s) {
  std::vector<char> used(right, 0);
  std::function<bool(std::size_t)> assign = [&](std::size_t i) {
    if (i == s.size()) return true;
    for (std::size_t e = 0; e < edges.size(); e += 2) {
      if (edges[e] != s[i] || used[edges[e + 1]]) continue;
      used[edges[e + 1]] = 1;
      const bool ok = assign(i + 1);
      used[edges[e + 1]] = 0;
      if (ok) return true;
    }
    return false;
  };
  return assign(0);
}

struct Instance {
  std::unique_ptr<Matroid> matroid;
  Definition independent;
};

std::vector<Instance> smallInstances(Random& random) {
  std::vector<Instance> out;
  for (int trial = 0; trial < 6; ++trial) {
    const std::size_t k = 3 + random.uniformInt(6);  // 3..8 arms
    const std::size_t d = 1 + random.uniformInt(k);
    out.push_back({std::make_unique<UniformMatroid>(k, d), [d](const Subset& s) { return s.size() <= d; }});

    std::vector<std::uint32_t> groups(k);
    for (auto& g : groups) g = static_cast<std::uint32_t>(100 + 7 * random.uniformInt(3));  // sparse labels
    out.push_back({std::make_unique<PartitionMatroid>(groups), [groups](const Subset& s) {
                     for (std::size_t i = 0; i < s.size(); ++i)
                       for (std::size_t j = i + 1; j < s.size(); ++j)
                         if (groups[s[i]] == groups[s[j]]) return false;
                     return true;
                   }});

    const std::size_t vertices = 2 + random.uniformInt(4);
    std::vector<std::uint32_t> edges;
    for (std::size_t i = 0; i < k; ++i) {  // self-loops and parallel edges included
      edges.push_back(static_cast<std::uint32_t>(random.uniformInt(vertices)));
      edges.push_back(static_cast<std::uint32_t>(random.uniformInt(vertices)));
    }
    out.push_back({std::make_unique<GraphicMatroid>(vertices, edges), [vertices, edges](const Subset& s) { return isForest(vertices, edges, s); }});

    const std::size_t right = 1 + random.uniformInt(4);
    std::vector<std::uint32_t> bipartite;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t degree = random.uniformInt(3);  // arms without edges are loops
      for (std::size_t j = 0; j < degree; ++j) {
        bipartite.push_back(static_cast<std::uint32_t>(i));
        bipartite.push_back(static_cast<std::uint32_t>(random.uniformInt(right)));
      }
    }
    bipartite.push_back(0);
    bipartite.push_back(0);  // at least one edge
    out.push_back({std::make_unique<TransversalMatroid>(k, right, bipartite),
                   [right, bipartite](const Subset& s) { return isMatchable(right, bipartite, s); }});
  }
  return out;
}

TEST(MatroidOracles, IndependenceAndRankMatchTheDefinitions) {
  Random random(1);
  for (const auto& instance : smallInstances(random)) {
    const Matroid& m = *instance.matroid;
    const std::size_t k = m.groundSetSize();
    std::size_t largest = 0;
    for (unsigned mask = 0; mask < (1u << k); ++mask) {
      const Subset s = members(mask, k);
      const bool expected = instance.independent(s);
      EXPECT_EQ(m.isIndependent(s.data(), s.size()), expected) << m.kind() << " mask " << mask;
      if (expected) largest = std::max(largest, s.size());
    }
    EXPECT_EQ(m.rank(), largest) << m.kind();
  }
}

TEST(MatroidOracles, IncrementalOracleAgreesWithTheBatchTest) {
  Random random(2);
  for (const auto& instance : smallInstances(random)) {
    const Matroid& m = *instance.matroid;
    auto oracle = m.makeOracle();
    for (int pass = 0; pass < 4; ++pass) {  // clear() must restore the empty set every time
      oracle->clear();
      Subset order(m.groundSetSize());
      std::iota(order.begin(), order.end(), 0);
      random.shuffle(order);
      Subset held;
      for (const auto arm : order) {
        Subset extended = held;
        extended.push_back(arm);
        const bool expected = instance.independent(extended);
        ASSERT_EQ(oracle->canAdd(arm), expected) << m.kind();
        if (expected && random.bernoulli(0.8)) {
          oracle->add(arm);
          held = extended;
        }
        ASSERT_EQ(oracle->size(), held.size());
      }
    }
  }
}

TEST(MatroidOracles, GreedyFindsAMaximumWeightBasis) {
  Random random(3);
  for (const auto& instance : smallInstances(random)) {
    const Matroid& m = *instance.matroid;
    const std::size_t k = m.groundSetSize();
    for (int draw = 0; draw < 5; ++draw) {
      std::vector<double> weights(k);
      // Negative weights and ties included.
      for (auto& w : weights) w = draw % 2 == 0 ? random.uniform(-1.0, 1.0) : static_cast<double>(random.uniformInt(3)) - 1.0;
      const Subset basis = m.maxWeightBasis(weights.data(), k);
      ASSERT_EQ(basis.size(), m.rank());
      EXPECT_TRUE(instance.independent(basis));
      double best = -std::numeric_limits<double>::infinity();
      for (unsigned mask = 0; mask < (1u << k); ++mask) {
        const Subset s = members(mask, k);
        if (s.size() != m.rank() || !instance.independent(s)) continue;
        double w = 0;
        for (const auto arm : s) w += weights[arm];
        best = std::max(best, w);
      }
      double got = 0;
      for (const auto arm : basis) got += weights[arm];
      EXPECT_NEAR(got, best, 1e-12) << m.kind();
    }
  }
}

TEST(MatroidOracles, GreedyBreaksTiesBySmallerIndex) {
  const UniformMatroid m(5, 2);
  const std::vector<double> weights{1, 2, 2, 2, 0};
  EXPECT_EQ(m.maxWeightBasis(weights.data(), weights.size()), (Subset{1, 2}));
}

TEST(MatroidOracles, LargerInstancesAgreeWithGreedyOverASortedOrder) {
  // Heap-ordered greedy = greedy over a full sort, on instances too large to enumerate.
  Random random(4);
  const std::size_t k = 3000;
  std::vector<std::uint32_t> edges, bipartite, groups(k);
  for (std::size_t i = 0; i < k; ++i) {
    edges.push_back(static_cast<std::uint32_t>(random.uniformInt(500)));
    edges.push_back(static_cast<std::uint32_t>(random.uniformInt(500)));
    bipartite.push_back(static_cast<std::uint32_t>(i));
    bipartite.push_back(static_cast<std::uint32_t>(random.uniformInt(300)));
    groups[i] = static_cast<std::uint32_t>(random.uniformInt(40));
  }
  std::vector<std::unique_ptr<Matroid>> matroids;
  matroids.push_back(std::make_unique<UniformMatroid>(k, 50));
  matroids.push_back(std::make_unique<PartitionMatroid>(groups));
  matroids.push_back(std::make_unique<GraphicMatroid>(500, edges));
  matroids.push_back(std::make_unique<TransversalMatroid>(k, 300, bipartite));
  std::vector<double> weights(k);
  for (auto& w : weights) w = random.uniform();
  Subset order(k);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto x, auto y) { return weights[x] > weights[y] || (weights[x] == weights[y] && x < y); });
  for (const auto& m : matroids) {
    const Subset basis = m->maxWeightBasis(weights.data(), k);
    EXPECT_EQ(basis, m->greedyInOrder(order)) << m->kind();
    EXPECT_EQ(basis.size(), m->rank());
    EXPECT_TRUE(m->isIndependent(basis.data(), basis.size()));
  }
  EXPECT_EQ(matroids[1]->rank(), 40u);
}

TEST(MatroidOracles, RejectsInvalidInput) {
  const auto code = [](auto&& action) {
    try {
      action();
    } catch (const Error& error) {
      return error.code();
    }
    return ErrorCode::CorruptState;  // "did not throw"
  };
  EXPECT_EQ(code([] { UniformMatroid(5, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { UniformMatroid(5, 6); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { UniformMatroid(0, 1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { PartitionMatroid(std::vector<std::uint32_t>{}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { GraphicMatroid(3, {0, 1, 2}); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(code([] { GraphicMatroid(3, {0, 3}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { GraphicMatroid(3, {}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { TransversalMatroid(2, 2, {0, 1, 1}); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(code([] { TransversalMatroid(2, 2, {2, 0}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([] { TransversalMatroid(2, 2, {0, 2}); }), ErrorCode::InvalidArgument);
  const UniformMatroid m(4, 2);
  const Subset outside{4}, repeated{1, 1};
  EXPECT_EQ(code([&] { m.isIndependent(outside.data(), 1); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([&] { m.isIndependent(repeated.data(), 2); }), ErrorCode::DuplicateId);
  const std::vector<double> three{1, 2, 3}, nan{1, 2, 3, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(code([&] { m.maxWeightBasis(three.data(), 3); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(code([&] { m.maxWeightBasis(nan.data(), 4); }), ErrorCode::NonFinite);
}
}  // namespace matroid_oracle_test
