// The recipe of docs/architecture.md ("Adding an index type") followed outside the library: the toy
// index (tests/toys/toy_index.cpp, registered by core_tests' main) is built by the factory,
// described by its option table, answers as the exact scan does, is saved and restored through the
// persistence family, and is searched by a linear policy, with no other file touched. If any of
// these paths named the index types by hand instead of reading the registry, the toy type would be
// refused there and this test would fail. The generic suites meet it too (their loops over
// mipsIndexTypes()).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/mips_option_tables.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"
#include "toy_types.hpp"

namespace sublinear::testing {
namespace registry_toy_index_test {

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (float& value : values) value = static_cast<float>(random.normal());
  return values;
}

TEST(RegistryToyIndex, FactoryTableRefusalsAndTypeList) {
  const auto types = mipsIndexTypes();
  EXPECT_NE(std::find(types.begin(), types.end(), "toy-norm-bound"), types.end());
  // The option table: described like any other, defaults and ranges from the entry's group.
  const Json described = optionTable("index", "toy-norm-bound").describe();
  const auto block = std::find_if(described.begin(), described.end(), [](const Json& entry) { return entry["name"] == "block"; });
  ASSERT_NE(block, described.end());
  EXPECT_EQ((*block)["default"], 16.0);
  EXPECT_EQ((*block)["low"], 1.0);
  // The factory checks keys and ranges through it.
  expectError(ErrorCode::InvalidArgument, "unknown option 'blok' for toy-norm-bound (did you mean 'block'?)",
              [] { makeMipsIndex(4, Json{{"type", "toy-norm-bound"}, {"blok", 3}}); });
  EXPECT_EQ(codeOf([] { makeMipsIndex(4, Json{{"type", "toy-norm-bound"}, {"block", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(makeMipsIndex(4, Json{{"type", "toy-norm-bound"}})->type(), "toy-norm-bound");
  // An unknown type's refusal lists the registered ones, the toy included.
  expectError(ErrorCode::InvalidArgument, "pca-tree, toy-norm-bound)", [] { makeMipsIndex(4, Json{{"type", "toy"}}); });
  // A second registration of the name is a programming error.
  EXPECT_THROW(mipsIndexRegistry().add(toys::normBoundEntry(), {&option_groups::typed()}), std::logic_error);
}

// The entry's class name is the JavaScript class (web/src makes it from the registry): a valid
// identifier that starts with a capital, one per type of the family; anything else is refused when
// the type is added, before any table or entry is kept.
TEST(RegistryToyIndex, ClassNames) {
  EXPECT_EQ(mipsIndexRegistry().at("toy-norm-bound").className, "ToyNormBoundIndex");
  EXPECT_EQ(mipsIndexRegistry().at("hnsw").className, "HnswIndex");
  for (const char* name : {"", "toyIndex", "Toy-Index", "Toy Index"}) {
    MipsIndexType entry = toys::normBoundEntry();
    entry.type = "toy-misnamed";
    entry.className = name;
    EXPECT_THROW(mipsIndexRegistry().add(entry, {&option_groups::typed()}), std::logic_error) << name;
  }
  MipsIndexType twin = toys::normBoundEntry();
  twin.type = "toy-twin";
  twin.className = "ExactIndex";
  EXPECT_THROW(mipsIndexRegistry().add(twin, {&option_groups::typed()}), std::logic_error);
  EXPECT_EQ(mipsIndexRegistry().find("toy-misnamed"), nullptr);
  EXPECT_EQ(mipsIndexRegistry().find("toy-twin"), nullptr);
}

// Exact: every answer is searchExactly's, with and without filters, while items come and go; and
// the bound spares work on items whose norms differ (the rows it never scored are counted).
TEST(RegistryToyIndex, AnswersAsTheExactScanAndSkipsRows) {
  constexpr std::size_t dim = 8;
  auto index = makeMipsIndex(dim, Json{{"type", "toy-norm-bound"}, {"block", 4}});
  Random random(11);
  std::vector<Id> ids(2000);
  std::vector<Label> labels(ids.size());
  std::vector<float> vectors = gaussian(random, ids.size() * dim);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = static_cast<Id>(7 * i + 1);
    labels[i] = static_cast<Label>(i % 5);
    // Norms spread over two orders of magnitude, as real embeddings' often are.
    const float scale = static_cast<float>(std::exp(3.0 * random.uniform()));
    for (std::size_t j = 0; j < dim; ++j) vectors[i * dim + j] *= scale;
  }
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());
  const std::vector<Id> removed(ids.begin() + 100, ids.begin() + 300);
  index->remove(removed.data(), removed.size());
  SearchOptions filtered;
  filtered.labels = {2};
  filtered.exclude = {ids[0], ids[2]};
  for (int query = 0; query < 40; ++query) {
    const auto vector = gaussian(random, dim);
    for (const std::size_t k : {std::size_t{1}, std::size_t{10}}) {
      const SearchResult exact = index->searchExactly(vector.data(), dim, k);
      const SearchResult found = index->search(vector.data(), dim, k);
      EXPECT_EQ(found.ids, exact.ids);
      EXPECT_EQ(found.scores, exact.scores);
      EXPECT_EQ(index->search(vector.data(), dim, k, filtered).ids, index->searchExactly(vector.data(), dim, k, filtered).ids);
    }
  }
  EXPECT_GT(index->stats()["rowsSkipped"].get<double>(), 0.0);
}

TEST(RegistryToyIndex, SavesAndRestoresThroughThePersistenceFamily) {
  constexpr std::size_t dim = 6;
  PersistentIndex original(Json{{"type", "toy-norm-bound"}, {"dim", dim}, {"block", 2}});
  Random random(3);
  std::vector<Id> ids(40);
  for (Id i = 0; i < 40; ++i) ids[i] = 100 + i;
  const auto vectors = gaussian(random, ids.size() * dim);
  original->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const auto query = gaussian(random, dim);
  const SearchResult first = original->search(query.data(), dim, 3);
  ASSERT_EQ(first.ids.size(), 3u);

  const std::vector<std::uint8_t> bytes = original.toBytes();
  auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "toy-norm-bound");
  EXPECT_EQ(restored->type(), "toy-norm-bound");
  EXPECT_EQ(restored->stats(), original->stats());
  EXPECT_EQ(restored.toBytes(), bytes);
  const SearchResult again = restored->search(query.data(), dim, 3);
  EXPECT_EQ(again.ids, first.ids);
  EXPECT_EQ(again.scores, first.scores);
  // A state of another type is refused as of another type, not as an unknown one.
  EXPECT_EQ(codeOf([&] { PersistentIndex::fromBytes(bytes.data(), bytes.size(), "exact"); }), ErrorCode::CorruptState);
  std::vector<std::uint8_t> damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x10;
  EXPECT_EQ(codeOf([&] { PersistentIndex::fromBytes(damaged.data(), damaged.size(), "toy-norm-bound"); }), ErrorCode::CorruptState);
}

TEST(RegistryToyIndex, ALinearPolicySearchesIt) {
  constexpr int dim = 4;
  PersistentLinearPolicy policy(Json{{"type", "sub-ts"}, {"dim", dim}, {"seed", 2}, {"shortlist", 4},
                                     {"index", {{"type", "toy-norm-bound"}}}});
  Random random(5);
  std::vector<Id> ids(30);
  std::vector<double> features(ids.size() * dim);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(i);
  for (double& value : features) value = random.normal();
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  for (int step = 0; step < 20; ++step) {
    const Id arm = policy->select();
    EXPECT_LT(arm, 30u);
    policy->update(arm, features[arm * dim]);
  }
  EXPECT_GE(policy->stats()["index"].value("searches", 0), 20);
  EXPECT_TRUE(policy->stats()["index"].contains("rowsSkipped"));
  // The policy's state holds the toy index and restores through the same family.
  const std::vector<std::uint8_t> bytes = policy.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "sub-ts");
  EXPECT_EQ(restored.toBytes(), bytes);
  EXPECT_EQ(restored->select(), policy->select());
}

}  // namespace registry_toy_index_test
}  // namespace sublinear::testing
