// PersistentIndex::toBytes / fromBytes for every index type: a restored index answers and continues
// exactly as the original (same results, same work counters after the same operations), and
// damaged bytes are CORRUPT_STATE.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "test_support.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"

namespace sublinear::testing {
namespace {

constexpr std::size_t kDim = 8;

Json specOf(const std::string& type) {
  Json spec{{"type", type}, {"dim", kDim}, {"seed", 5}};
  if (type == "pca-tree") spec["depth"] = 3;
  if (type == "adaptive") spec["base"] = Json{{"type", "hnsw"}, {"M", 4}};
  return spec;
}

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

void addRange(PersistentIndex& index, Random& random, Id first, std::size_t count) {
  std::vector<Id> ids(count);
  for (std::size_t i = 0; i < count; ++i) ids[i] = first + static_cast<Id>(i);
  const auto vectors = gaussian(random, count * kDim);
  index.add(ids.data(), ids.size(), vectors.data(), vectors.size());
}

// The same operations on both indexes must give the same answers.
void expectSameContinuation(PersistentIndex& original, PersistentIndex& restored) {
  Random a(77), b(77);
  for (int round = 0; round < 6; ++round) {
    addRange(original, a, 1000 + 20 * static_cast<Id>(round), 20);
    addRange(restored, b, 1000 + 20 * static_cast<Id>(round), 20);
    const Id gone[] = {static_cast<Id>(20 + round), static_cast<Id>(1005 + 20 * round)};
    original.remove(gone, 2);
    restored.remove(gone, 2);
    for (int q = 0; q < 5; ++q) {
      const auto query = gaussian(a, kDim);
      gaussian(b, kDim);
      const SearchResult x = original.search(query.data(), kDim, 10);
      const SearchResult y = restored.search(query.data(), kDim, 10);
      EXPECT_EQ(x.ids, y.ids) << original.index().type() << " round " << round;
      EXPECT_EQ(x.scores, y.scores) << original.index().type() << " round " << round;
    }
  }
  EXPECT_EQ(original.index().stats(), restored.index().stats()) << original.index().type();
  EXPECT_EQ(original.toBytes(), restored.toBytes()) << original.index().type();
}

class IndexPersistence : public ::testing::TestWithParam<std::string> {};

TEST_P(IndexPersistence, RestoredIndexContinuesExactly) {
  Random random(11);
  PersistentIndex index(specOf(GetParam()));
  addRange(index, random, 0, 300);
  const Id removed[] = {7, 8, 150};
  index.remove(removed, 3);
  const auto query = gaussian(random, kDim);
  index.search(query.data(), kDim, 5);

  const auto bytes = index.toBytes();
  auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), GetParam());
  EXPECT_EQ(restored->index().type(), GetParam());
  EXPECT_EQ(restored->index().size(), index.index().size());
  EXPECT_FALSE(restored->index().contains(7));
  expectSameContinuation(index, *restored);
}

TEST_P(IndexPersistence, DamagedBytesAreCorruptState) {
  Random random(12);
  PersistentIndex index(specOf(GetParam()));
  addRange(index, random, 0, 40);
  const std::vector<float> query(kDim, 0.5f);
  index.search(query.data(), kDim, 3);
  expectDamageDetected(index.toBytes(), [&](const Bytes& bytes) {
    auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "");
    // Whatever decoded must be a working index.
    restored->search(query.data(), restored->index().dim(), 3);
  });
}

TEST_P(IndexPersistence, StateOfAnotherTypeIsRejected) {
  PersistentIndex index(specOf(GetParam()));
  const auto bytes = index.toBytes();
  const std::string other = GetParam() == "exact" ? "hnsw" : "exact";
  expectError(ErrorCode::CorruptState, "not of a " + other, [&] { PersistentIndex::fromBytes(bytes.data(), bytes.size(), other); });
}

INSTANTIATE_TEST_SUITE_P(EveryType, IndexPersistence, ::testing::ValuesIn(mipsIndexTypes()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace sublinear::testing
