// PersistentIndex::toBytes / fromBytes for every index type: a restored index answers and continues
// exactly as the original (same results, same work counters after the same operations), and
// damaged bytes are CORRUPT_STATE.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "test_support.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"

namespace sublinear::testing {
namespace index_persistence_test {

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
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
}

// The same operations on both indexes must give the same answers.
void expectSameContinuation(PersistentIndex& original, PersistentIndex& restored) {
  Random a(77), b(77);
  for (int round = 0; round < 6; ++round) {
    addRange(original, a, 1000 + 20 * static_cast<Id>(round), 20);
    addRange(restored, b, 1000 + 20 * static_cast<Id>(round), 20);
    const Id gone[] = {static_cast<Id>(20 + round), static_cast<Id>(1005 + 20 * round)};
    original->remove(gone, 2);
    restored->remove(gone, 2);
    for (int q = 0; q < 5; ++q) {
      const auto query = gaussian(a, kDim);
      gaussian(b, kDim);
      const SearchResult x = original->search(query.data(), kDim, 10);
      const SearchResult y = restored->search(query.data(), kDim, 10);
      EXPECT_EQ(x.ids, y.ids) << original->type() << " round " << round;
      EXPECT_EQ(x.scores, y.scores) << original->type() << " round " << round;
    }
  }
  EXPECT_EQ(original->stats(), restored->stats()) << original->type();
  EXPECT_EQ(original.toBytes(), restored.toBytes()) << original->type();
}

class IndexPersistence : public ::testing::TestWithParam<std::string> {};

TEST_P(IndexPersistence, RestoredIndexContinuesExactly) {
  Random random(11);
  PersistentIndex index(specOf(GetParam()));
  addRange(index, random, 0, 300);
  const Id removed[] = {7, 8, 150};
  index->remove(removed, 3);
  const auto query = gaussian(random, kDim);
  index->search(query.data(), kDim, 5);

  const auto bytes = index.toBytes();
  auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), GetParam());
  EXPECT_EQ(restored->type(), GetParam());
  EXPECT_EQ(restored->size(), index->size());
  EXPECT_FALSE(restored->contains(7));
  expectSameContinuation(index, restored);
}

TEST_P(IndexPersistence, DamagedBytesAreCorruptState) {
  Random random(12);
  PersistentIndex index(specOf(GetParam()));
  addRange(index, random, 0, 40);
  const std::vector<float> query(kDim, 0.5f);
  index->search(query.data(), kDim, 3);
  expectDamageDetected(index.toBytes(), [&](const Bytes& bytes) {
    auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "");
    // Whatever decoded must be a working index.
    restored->search(query.data(), restored->dim(), 3);
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

// HNSW's snapshot holds the graph itself: the decided space, the euclidean radius, free slots from
// removals, a build under way (and the space trial's second graph) must all come back, and the
// restored graph must answer as the original would -- not merely as well.
TEST(HnswPersistence, RestoresTheGraphMidBuildInEitherSpace) {
  for (const char* space : {"auto", "euclidean", "inner-product"}) {
    Random random(21);
    PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"seed", 3}, {"M", 6}, {"space", space}});
    addRange(index, random, 0, 100);  // ids the continuation removes
    addRange(index, random, 10000, 1100);  // past the auto space trial's minimum
    index->build(300);
    for (Id id = 10000; id < 10040; ++id) index->remove(&id, 1);  // built items: freed slots
    for (Id id = 11000; id < 11010; ++id) index->remove(&id, 1);  // waiting items
    const std::vector<float> query(kDim, 0.25f);
    index->search(query.data(), kDim, 5);
    const Json stats = index->stats();
    ASSERT_GT(stats["built"].get<std::size_t>(), 200u) << space;
    ASSERT_GT(stats["pending"].get<std::size_t>(), 700u) << space;
    ASSERT_GT(stats["freeSlots"].get<std::size_t>(), 0u) << space;
    if (std::string(space) == "auto") ASSERT_TRUE(stats["spaceTrial"]["running"].get<bool>());
    const auto bytes = index.toBytes();
    auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "hnsw");
    EXPECT_EQ(restored->stats(), index->stats()) << space;
    EXPECT_EQ(restored.toBytes(), bytes) << space;
    expectSameContinuation(index, restored);
    // Both finish the build the same way.
    EXPECT_EQ(index->build(100000), 0u);
    EXPECT_EQ(restored->build(100000), 0u);
    EXPECT_EQ(restored.toBytes(), index.toBytes()) << space;
  }
}

TEST(HnswPersistence, SavedSizeDependsOnTheStateNotOnTheCalls) {
  Random random(22);
  PersistentIndex index(Json{{"type", "hnsw"}, {"dim", 16}, {"seed", 3}, {"build", "immediate"}});
  std::vector<Id> ids(2000);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(i);
  const auto vectors = gaussian(random, ids.size() * 16);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const std::size_t before = index.toBytes().size();
  for (int q = 0; q < 1000; ++q) {
    const auto query = gaussian(random, 16);
    index->search(query.data(), 16, 10);
  }
  EXPECT_EQ(index.toBytes().size(), before);
  // Items (4 + 64 bytes) and level-0 links (at most 2M = 32 of 4 bytes, plus counts and marks):
  // never more than the vectors twice over, however the graph was reached.
  EXPECT_LT(before, ids.size() * (4 + 16 * 4) * 3);
}

// Byte offset of the first graph in an HNSW state with `items` items of dimension `dim`.
std::size_t graphOffset(const Bytes& bytes, std::size_t items, std::size_t dim) {
  std::size_t at = 6;
  for (int field = 0; field < 2; ++field) at += 4 + (bytes[at] | bytes[at + 1] << 8);  // library version, type
  at += 8;                                                                             // payload length
  at += 8 + (bytes[at] | bytes[at + 1] << 8);                                          // options
  at += 8 + items * (4 + 4 * dim) + 1 + 8 + items * 4 + 8 + 16;                      // items, attributes, counters
  return at + 2 + 8 * 11 + 1;  // space flags, trial and norm fields, counters, built rows, graph flag
}

TEST(HnswPersistence, HostileGraphsAreRefusedQuickly) {
  Random random(23);
  PersistentIndex index(Json{{"type", "hnsw"}, {"dim", 4}, {"seed", 3}, {"space", "inner-product"}, {"build", "immediate"}});
  std::vector<Id> ids(50);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(i);
  const auto vectors = gaussian(random, ids.size() * 4);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const Bytes bytes = index.toBytes();
  const std::size_t graph = graphOffset(bytes, ids.size(), 4);
  auto write64 = [](Bytes state, std::size_t at, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) state[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
    return resealed(state);
  };
  // The decoded header: capacity, node count; the state as saved loads.
  ASSERT_EQ(bytes[graph + 8], 50);
  ASSERT_NO_THROW(PersistentIndex::fromBytes(bytes.data(), bytes.size(), "hnsw"));
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::pair<std::string, Bytes>> hostile = {
      {"huge capacity", write64(bytes, graph, std::uint64_t{1} << 40)},
      {"node count beyond the data", write64(bytes, graph + 8, std::uint64_t{1} << 30)},
      {"one node fewer", write64(bytes, graph + 8, 49)},
  };
  for (const auto& [what, state] : hostile) {
    try {
      auto restored = PersistentIndex::fromBytes(state.data(), state.size(), "hnsw");
      // A capacity is reserved memory: beyond what the nodes need it is not honoured.
      EXPECT_EQ(what, "huge capacity");
      EXPECT_LE(restored->stats()["capacity"].get<std::size_t>(), 100u);
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::CorruptState) << what;
    }
  }
  // Every link: redirected to a node that does not exist, it must be refused.
  std::size_t refused = 0;
  for (std::size_t at = graph; at + 4 < bytes.size() - 4; ++at) {
    Bytes state = bytes;
    state[at + 3] = 0x7F;  // the high byte of a u32 there
    try {
      PersistentIndex::fromBytes(resealed(state).data(), state.size(), "hnsw");
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::CorruptState);
      ++refused;
    }
  }
  EXPECT_GT(refused, bytes.size() - graph - 200);  // all but the float fields' bytes
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds / static_cast<double>(bytes.size() - graph), 0.1);
}

}  // namespace index_persistence_test
}  // namespace sublinear::testing
