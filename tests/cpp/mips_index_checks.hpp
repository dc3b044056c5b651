#pragma once
// Shared checks for approximate MIPS indexes: an index runs side by side with ExactIndex (the
// oracle) through interleaved additions and removals on random data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "test_support.hpp"

using sublinear::testing::codeOf;

namespace sublinear::testing {

inline std::vector<float> gaussianVector(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

struct InterleavingReport {
  double meanPrecision = 0;  // |returned ∩ exact top-k| / k, averaged over searches
  std::size_t searches = 0;
};

// Runs `rounds` of: add a batch, remove ~30% at random (sometimes re-adding removed ids with new
// vectors), search. Checks every result: length min(k, size), sorted, exact scores, only live ids.
// With `mustEqualExact` the ids must equal ExactIndex's.
inline InterleavingReport checkAgainstExact(const Json& spec, std::size_t dim, std::size_t batch, int rounds,
                                            std::size_t k, bool mustEqualExact, std::uint64_t seed) {
  Random random(seed);
  auto index = makeMipsIndex(dim, spec);
  ExactIndex exact(dim);
  std::map<ItemId, std::vector<float>> live;
  std::vector<ItemId> removedIds;
  ItemId nextId = 500;
  InterleavingReport report;
  double precisionSum = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<ItemId> ids;
    for (std::size_t i = 0; i < batch; ++i) {
      // Re-add a removed id now and then: its old vector must never come back.
      if (!removedIds.empty() && random.bernoulli(0.1)) {
        ids.push_back(removedIds.back());
        removedIds.pop_back();
      } else {
        ids.push_back(nextId++ * 3 + 1);
      }
    }
    const auto vectors = gaussianVector(random, ids.size() * dim);
    index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
    exact.add(ids.data(), ids.size(), vectors.data(), vectors.size());
    for (std::size_t i = 0; i < ids.size(); ++i) live[ids[i]] = std::vector<float>(vectors.begin() + i * dim, vectors.begin() + (i + 1) * dim);
    std::vector<ItemId> removed;
    for (const auto& entry : live) {
      if (random.bernoulli(0.3)) removed.push_back(entry.first);
    }
    index->remove(removed.data(), removed.size());
    exact.remove(removed.data(), removed.size());
    for (ItemId id : removed) live.erase(id);
    removedIds.insert(removedIds.end(), removed.begin(), removed.end());
    EXPECT_EQ(index->size(), live.size());
    for (int q = 0; q < 3; ++q) {
      const auto query = gaussianVector(random, dim);
      const auto result = index->search(query.data(), dim, k);
      const auto truth = exact.search(query.data(), dim, k);
      EXPECT_EQ(result.ids.size(), std::min(k, live.size())) << "round " << round;
      EXPECT_EQ(result.scores.size(), result.ids.size());
      std::set<ItemId> distinct(result.ids.begin(), result.ids.end());
      EXPECT_EQ(distinct.size(), result.ids.size()) << "duplicate ids";
      for (std::size_t i = 0; i < result.ids.size(); ++i) {
        const auto it = live.find(result.ids[i]);
        if (it == live.end()) {
          ADD_FAILURE() << "returned id " << result.ids[i] << " is not live";
          continue;
        }
        double score = 0;
        for (std::size_t j = 0; j < dim; ++j) score += static_cast<double>(it->second[j]) * query[j];
        EXPECT_NEAR(result.scores[i], score, 1e-4 * (1 + std::fabs(score)));
        if (i > 0) {
          EXPECT_GE(result.scores[i - 1], result.scores[i]);
        }
      }
      if (mustEqualExact) {
        EXPECT_EQ(result.ids, truth.ids) << "round " << round;
      }
      std::size_t hits = 0;
      for (ItemId id : result.ids) hits += std::count(truth.ids.begin(), truth.ids.end(), id);
      precisionSum += truth.ids.empty() ? 1.0 : static_cast<double>(hits) / static_cast<double>(truth.ids.size());
      ++report.searches;
    }
  }
  report.meanPrecision = precisionSum / static_cast<double>(report.searches);
  return report;
}

}  // namespace sublinear::testing
