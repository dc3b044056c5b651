#pragma once
// Shared checks for the approximate MIPS indexes: an exact oracle (ExactIndex on the same items),
// and the properties every index must keep through add/remove interleavings.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/inner_product.hpp"
#include "test_support.hpp"

using sublinear::testing::codeOf;

namespace mips_oracle {

using namespace sublinear;

inline std::vector<float> gaussian(Random& random, std::size_t count, double scale = 1.0) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(scale * random.normal());
  return values;
}

// The float score the base class must report: the project's kernel on padded copies.
inline float exactScore(const MipsIndex& index, Id id, const std::vector<float>& query) {
  std::vector<float> padded(index.items().queryStride(), 0.0f);
  std::copy(query.begin(), query.end(), padded.begin());
  return index.items().score(index.items().rowOf(id), padded.data());
}

// Checks one search result against the oracle; returns |result ∩ exact top-k| / min(k, size).
inline double checkResult(const MipsIndex& index, ExactIndex& oracle, const std::vector<float>& query, std::size_t k,
                          const SearchResult& result) {
  EXPECT_EQ(result.ids.size(), result.scores.size());
  EXPECT_LE(result.ids.size(), std::min(k, oracle.size()));
  std::set<Id> seen;
  for (std::size_t i = 0; i < result.ids.size(); ++i) {
    EXPECT_TRUE(oracle.contains(result.ids[i])) << "returned an id that is not (or no longer) in the set";
    EXPECT_TRUE(index.contains(result.ids[i])) << "returned an id the index does not hold";
    EXPECT_TRUE(seen.insert(result.ids[i]).second) << "returned an id twice";
    if (!oracle.contains(result.ids[i])) continue;
    EXPECT_EQ(result.scores[i], exactScore(oracle, result.ids[i], query)) << "score is not the exact inner product";
    if (i > 0) {
      EXPECT_GE(result.scores[i - 1], result.scores[i]) << "results not sorted";
    }
  }
  const SearchResult exact = oracle.search(query.data(), query.size(), k);
  if (exact.ids.empty()) return 1.0;
  std::size_t hits = 0;
  for (Id id : exact.ids) hits += seen.count(id);
  return static_cast<double>(hits) / static_cast<double>(exact.ids.size());
}

// What interleave() runs, and what it demands beyond checkResult's properties.
struct Interleaving {
  int rounds = 12;
  std::size_t k = 10;
  std::size_t batch = 0;     // items added per round; 0: from 40 to 159 at random
  bool fullLength = false;   // every result holds min(k, size) ids
  bool equalsExact = false;  // ... and they are the oracle's, in its order
};

// Random interleavings of batch adds (fresh and re-used ids), removals and searches on Gaussian data;
// returns the mean recall@k over all searches.
inline double interleave(MipsIndex& index, std::size_t dim, std::uint64_t seed, const Interleaving& plan = {}) {
  Random random(seed);
  ExactIndex oracle(dim);
  std::vector<Id> removedIds;
  Id nextId = 5;
  double recallSum = 0;
  int searches = 0;
  for (int round = 0; round < plan.rounds; ++round) {
    const std::size_t n = plan.batch > 0 ? plan.batch : 40 + random.uniformInt(120);
    std::vector<Id> ids;
    for (std::size_t i = 0; i < n; ++i) {
      // Sometimes bring back a removed id: ids are caller-chosen and may return (with a new vector).
      if (!removedIds.empty() && random.bernoulli(0.2)) {
        ids.push_back(removedIds.back());
        removedIds.pop_back();
      } else {
        ids.push_back(nextId);
        nextId += 3;
      }
    }
    const auto vectors = gaussian(random, n * dim);
    index.add(ids.data(), n, vectors.data(), vectors.size());
    oracle.add(ids.data(), n, vectors.data(), vectors.size());
    std::vector<Id> removed;
    for (Id id : oracle.items().ids()) {
      if (random.bernoulli(0.3)) removed.push_back(id);
    }
    index.remove(removed.data(), removed.size());
    oracle.remove(removed.data(), removed.size());
    removedIds.insert(removedIds.end(), removed.begin(), removed.end());
    EXPECT_EQ(index.size(), oracle.size());
    for (Id id : removed) EXPECT_FALSE(index.contains(id));
    for (int q = 0; q < 3; ++q) {
      const auto query = gaussian(random, dim);
      const SearchResult result = index.search(query.data(), dim, plan.k);
      recallSum += checkResult(index, oracle, query, plan.k, result);
      ++searches;
      if (plan.fullLength) EXPECT_EQ(result.ids.size(), std::min(plan.k, oracle.size())) << "round " << round;
      if (plan.equalsExact) EXPECT_EQ(result.ids, oracle.search(query.data(), dim, plan.k).ids) << "round " << round;
    }
  }
  return recallSum / searches;
}

// The same on a new index of the given spec (makeMipsIndex).
inline double interleave(const Json& spec, std::size_t dim, std::uint64_t seed, const Interleaving& plan = {}) {
  auto index = makeMipsIndex(dim, spec);
  return interleave(*index, dim, seed, plan);
}

// Mean recall@k of `index` over `queries` Gaussian queries on n Gaussian items.
inline double recallAt(MipsIndex& index, std::size_t n, std::size_t dim, std::size_t queries, std::size_t k, std::uint64_t seed) {
  Random random(seed);
  ExactIndex oracle(dim);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  const auto vectors = gaussian(random, n * dim);
  index.add(ids.data(), n, vectors.data(), vectors.size());
  oracle.add(ids.data(), n, vectors.data(), vectors.size());
  double sum = 0;
  for (std::size_t q = 0; q < queries; ++q) {
    const auto query = gaussian(random, dim);
    sum += checkResult(index, oracle, query, k, index.search(query.data(), dim, k));
  }
  return sum / static_cast<double>(queries);
}

// Bad input leaves the index as it was (the base class validates; this checks the subclass agrees).
inline void checkErrorsLeaveStateUnchanged(MipsIndex& index) {
  const std::size_t dim = index.dim();
  Random random(99);
  std::vector<Id> ids(30);
  std::iota(ids.begin(), ids.end(), 100);
  const auto vectors = gaussian(random, 30 * dim);
  index.add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const auto query = gaussian(random, dim);
  const SearchResult before = index.search(query.data(), dim, 5);
  const std::size_t sizeBefore = index.size();
  const Id clash[] = {500, 100};
  EXPECT_EQ(codeOf([&] { index.add(clash, 2, vectors.data(), 2 * dim); }), ErrorCode::DuplicateId);
  EXPECT_EQ(codeOf([&] { index.add(clash, 2, vectors.data(), 2 * dim - 1); }), ErrorCode::DimensionMismatch);
  std::vector<float> bad(vectors.begin(), vectors.begin() + 2 * dim);
  bad[1] = std::numeric_limits<float>::quiet_NaN();
  const Id fresh[] = {500, 501};
  EXPECT_EQ(codeOf([&] { index.add(fresh, 2, bad.data(), bad.size()); }), ErrorCode::NonFinite);
  const Id unknown[] = {100, 999};
  EXPECT_EQ(codeOf([&] { index.remove(unknown, 2); }), ErrorCode::UnknownId);
  EXPECT_EQ(codeOf([&] { index.search(query.data(), dim, 0); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([&] { index.search(query.data(), dim - 1, 3); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(index.size(), sizeBefore);
  EXPECT_TRUE(index.contains(100));
  EXPECT_FALSE(index.contains(500));
  const SearchResult after = index.search(query.data(), dim, 5);
  EXPECT_EQ(after.ids, before.ids);
  EXPECT_EQ(after.scores, before.scores);
}

}  // namespace mips_oracle
