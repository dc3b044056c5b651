// Snapshots of the indexes that keep a structure beside their items (lsh, bounded-me, greedy,
// pca-tree, adaptive): saved at any point of a history of additions, removals and searches they
// continue exactly; the saved size follows the state, not the number of calls; and structure fields
// altered out of range are CORRUPT_STATE, quickly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "test_support.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"

namespace sublinear::testing {
namespace index_snapshot_test {

Json specOf(const std::string& type, std::size_t dim) {
  Json spec{{"type", type}, {"dim", dim}, {"seed", 5}};
  if (type == "pca-tree") spec["depth"] = 3;
  // HNSW, the default base, has its own snapshot; LSH keeps these tests about the wrapper.
  if (type == "adaptive") spec["base"] = Json{{"type", "lsh"}};
  return spec;
}

// Every registered type but the exact scan (no structure beside its items) and HNSW (its graph has
// snapshot tests of its own): a type added to the registry is covered here without a row.
const std::vector<std::string>& structuredTypes() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> structured;
    for (const std::string& type : mipsIndexTypes()) {
      if (type != "exact" && type != "hnsw") structured.push_back(type);
    }
    return structured;
  }();
  return types;
}

std::vector<float> gaussian(Random& random, std::size_t count, double scale = 1.0) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(scale * random.normal());
  return values;
}

void addRange(PersistentIndex& index, Random& random, Id first, std::size_t count, double scale = 1.0) {
  std::vector<Id> ids(count);
  for (std::size_t i = 0; i < count; ++i) ids[i] = first + static_cast<Id>(i);
  const auto vectors = gaussian(random, count * index->dim(), scale);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
}

PersistentIndex restore(const Bytes& bytes) { return PersistentIndex::fromBytes(bytes.data(), bytes.size(), ""); }

class IndexStatePersistence : public ::testing::TestWithParam<std::string> {};

// Saved after every step of a random history that reaches the states the structures distinguish
// (LSH rehashes and free slots, greedy's unsorted tails, dead slots and compactions, stale PCA trees
// and bounds): the restored index saves the same bytes, and a restored shadow answers every later
// search as the original does.
TEST_P(IndexStatePersistence, RestoredAtAnyPointContinuesExactly) {
  constexpr std::size_t kDim = 8;
  PersistentIndex index(specOf(GetParam(), kDim));
  std::optional<PersistentIndex> shadow;
  Random script(3), data(4);
  std::vector<Id> stored;
  Id next = 0;
  for (int step = 0; step < 90; ++step) {
    const std::uint64_t action = script.uniformInt(10);
    if (action < 4 || stored.size() < 10) {
      const std::size_t count = 1 + script.uniformInt(30);
      // Now and then longer items: the LSH scale and the PCA transform must grow.
      const double scale = script.uniformInt(6) == 0 ? 1.5 + 0.1 * step : 1.0;
      const auto vectors = gaussian(data, count * kDim, scale);
      std::vector<Id> ids(count);
      for (auto& id : ids) id = next++;
      index->add(ids.data(), count, vectors.data(), vectors.size());
      if (shadow) (*shadow)->add(ids.data(), count, vectors.data(), vectors.size());
      stored.insert(stored.end(), ids.begin(), ids.end());
    } else if (action < 6 || step % 30 == 29) {
      // Every 30 steps most of the items go: compactions, stale bounds and trees.
      const std::size_t count = step % 30 == 29 ? stored.size() * 2 / 3 : 1 + script.uniformInt(std::min<std::size_t>(stored.size(), 25));
      script.shuffle(stored);
      index->remove(stored.data(), count);
      if (shadow) (*shadow)->remove(stored.data(), count);
      stored.erase(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(count));
    } else {
      const auto query = gaussian(data, kDim);
      const std::size_t k = 1 + script.uniformInt(10);
      SearchOptions options;
      options.shortlist = script.uniformInt(3) == 0 ? 3 * k : 0;
      const SearchResult x = index->search(query.data(), kDim, k, options);
      if (shadow) {
        const SearchResult y = (*shadow)->search(query.data(), kDim, k, options);
        EXPECT_EQ(x.ids, y.ids) << "step " << step;
        EXPECT_EQ(x.scores, y.scores) << "step " << step;
      }
    }
    const Bytes bytes = index.toBytes();
    auto restored = restore(bytes);
    ASSERT_EQ(restored.toBytes(), bytes) << "step " << step;
    if (step % 7 == 0) shadow = restore(bytes);
    if (shadow) {
      EXPECT_EQ((*shadow)->stats(), index->stats()) << "step " << step;
    }
  }
}

// Above 256 dimensions the random engines drive the work: bounded-me shuffles its panels per query,
// and the PCA tree finds its directions by randomized subspace iteration at every rebuild.
TEST(IndexStatePersistence, WideIndexesContinueTheirRandomStreams) {
  constexpr std::size_t kDim = 600;
  for (const std::string type : {"bounded-me", "pca-tree"}) {
    PersistentIndex index(specOf(type, kDim));
    Random random(8);
    addRange(index, random, 0, 150);
    index->search(gaussian(random, kDim).data(), kDim, 5);
    auto restored = restore(index.toBytes());
    for (int round = 0; round < 3; ++round) {
      // Enough additions to make the tree stale: both rebuild with their engines.
      Random a(40 + round), b(40 + round);
      addRange(index, a, 1000 + 200 * static_cast<Id>(round), 100);
      addRange(restored, b, 1000 + 200 * static_cast<Id>(round), 100);
      for (int q = 0; q < 4; ++q) {
        const auto query = gaussian(random, kDim);
        const SearchResult x = index->search(query.data(), kDim, 5);
        const SearchResult y = restored->search(query.data(), kDim, 5);
        EXPECT_EQ(x.ids, y.ids) << type;
        EXPECT_EQ(x.scores, y.scores) << type;
      }
    }
    EXPECT_EQ(index->stats(), restored->stats()) << type;
    EXPECT_EQ(index.toBytes(), restored.toBytes()) << type;
  }
}

// Where the structure's fields start: after the envelope's head, the options, the items (id and dim
// floats each) and the two work counters.
std::size_t structureOffset(const Bytes& bytes, std::size_t dim) {
  const auto read = [&](std::size_t at, int size) {
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i) value |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
    return value;
  };
  std::size_t at = 6;
  at += 4 + read(at, 4);  // library version
  at += 4 + read(at, 4);  // type
  at += 8;                // payload length
  at += 8 + read(at, 8);  // options
  const std::size_t items = read(at, 8);
  at += 8 + items * (4 + 4 * dim);
  at += 1 + 8 + items * 4 + 8;  // attributes: layout byte, one label an item, no value names (format 5)
  return at + 16;
}

// The structure's share of a state, a lower bound from what a search needs besides the items.
std::size_t structureBytes(const std::string& type, std::size_t n, std::size_t dim) {
  const std::size_t lshTables = 16;
  if (type == "lsh") return n * lshTables * 12;  // a key (u64) and a bucket position (u32) per item and table
  if (type == "bounded-me") return 2 * dim * 4;  // the column bounds; the panels are the items again
  if (type == "greedy") return n * dim * 4;      // each item's place in every coordinate's sorted list
  if (type == "pca-tree") return n * 4;          // each item in its leaf
  if (type == "adaptive") return 3 * (n * (4 + 4 + 4 * dim) + structureBytes("lsh", n, dim));  // three copies, each its own snapshot
  // A type without a row saves nothing per item beside its items (the toy index rebuilds its order
  // from them): one that does fails the upper bound below until its row says how much.
  return 0;
}

TEST_P(IndexStatePersistence, SavedSizeFollowsTheStateNotTheSearches) {
  constexpr std::size_t kDim = 16, kItems = 2000;
  PersistentIndex index(specOf(GetParam(), kDim));
  Random random(21);
  addRange(index, random, 0, kItems);
  // The first search completes what additions leave for later (greedy's sorted lists, the PCA
  // tree); from then on a search may only change counters.
  index->search(gaussian(random, kDim).data(), kDim, 10);
  const std::size_t before = index.toBytes().size();
  for (int q = 0; q < 1000; ++q) index->search(gaussian(random, kDim).data(), kDim, 1 + q % 20);
  const Bytes bytes = index.toBytes();
  EXPECT_EQ(bytes.size(), before);

  // The state holds the items (72 bytes each, their labels included) and the structure's per-item fields; 1.1 leaves room
  // for the fixed fields (options, counters, random engines: under 1 KB) and per-slot flags and ids
  // (at most 5 bytes an item), and fails a snapshot that stores anything per item beyond that,
  // such as bounded-me's panels (a second copy of the items) or greedy's values in its lists.
  const std::size_t items = kItems * (4 + 4 + 4 * kDim);
  const std::size_t expected = items + structureBytes(GetParam(), kItems, kDim);
  EXPECT_GE(bytes.size(), expected);
  EXPECT_LT(static_cast<double>(bytes.size()), 1.1 * static_cast<double>(expected));
  RecordProperty("bytes", std::to_string(bytes.size()));
  RecordProperty("expected", std::to_string(expected));
}

TEST_P(IndexStatePersistence, RandomEditsAreCorruptStateOrAWorkingIndex) {
  Random random(13);
  PersistentIndex index(specOf(GetParam(), 8));
  addRange(index, random, 0, 60);
  const Id removed[] = {3, 17, 40};
  index->remove(removed, 3);
  const std::vector<float> query(8, 0.5f);
  index->search(query.data(), 8, 3);
  expectDamageDetected(index.toBytes(), [&](const Bytes& bytes) {
    auto restored = restore(bytes);
    restored->search(query.data(), restored->dim(), 3);
  }, 400);
}

INSTANTIATE_TEST_SUITE_P(Structured, IndexStatePersistence, ::testing::ValuesIn(structuredTypes()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

// Hostile states: one structure field set out of range, resealed so that it reaches the decoder.
class HostileState {
 public:
  HostileState(const std::string& type, std::size_t dim, std::size_t items, const std::vector<Id>& removed = {}) : dim_(dim) {
    PersistentIndex index(specOf(type, dim));
    Random random(31);
    addRange(index, random, 0, items);
    if (!removed.empty()) index->remove(removed.data(), removed.size());
    index->search(gaussian(random, dim).data(), dim, 5);
    bytes_ = index.toBytes();
    structure_ = structureOffset(bytes_, dim);
  }

  std::size_t structure() const { return structure_; }
  std::size_t dim() const { return dim_; }
  std::uint64_t read(std::size_t at, int size) const {
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i) value |= static_cast<std::uint64_t>(bytes_[at + i]) << (8 * i);
    return value;
  }

  // Applies `edit` and expects CORRUPT_STATE naming `fragment` within 100 ms (the decoder checks
  // before it allocates or loops).
  void expectRejected(const std::function<void(Bytes&)>& edit, const std::string& fragment) const {
    Bytes bytes = bytes_;
    edit(bytes);
    const auto start = std::chrono::steady_clock::now();
    expectError(ErrorCode::CorruptState, fragment, [&] { restore(resealed(bytes)); });
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    EXPECT_LT(elapsed.count(), 100) << fragment;
  }
  // `value` as `size` (at most 8) little-endian bytes at `at`.
  void expectRejected(std::size_t at, std::uint64_t value, int size, const std::string& fragment) const {
    expectRejected([&](Bytes& bytes) {
      for (int i = 0; i < size; ++i) bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
    }, fragment);
  }
  void expectRejectedFloat(std::size_t at, float value, const std::string& fragment) const {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    expectRejected(at, bits, 4, fragment);
  }
  void expectRejectedDouble(std::size_t at, double value, const std::string& fragment) const {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    expectRejected(at, bits, 8, fragment);
  }

 private:
  std::size_t dim_;
  Bytes bytes_;
  std::size_t structure_;
};

constexpr std::uint64_t kHuge = std::uint64_t{1} << 40;
// Bytes of a saved random engine: four words, the spare-normal flag and the spare normal.
constexpr std::size_t kRandomBytes = 4 * 8 + 1 + 8;

TEST(IndexStatePersistence, LshSlotsOutOfRangeAreCorruptState) {
  // Items 7 and 8 leave slots 7 and 8 free (the free list is [7, 8]).
  const HostileState state("lsh", 8, 300, {7, 8});
  const std::size_t s = state.structure(), tables = 16;
  const std::size_t slotCount = s + 24, freeList = s + 32, slots = s + 40 + 2 * 4;
  const std::size_t slotBytes = 4 + tables * 12;
  ASSERT_EQ(state.read(slotCount, 8), 300u);
  ASSERT_EQ(state.read(freeList, 8), 2u);
  state.expectRejected(slotCount, kHuge, 8, "count exceeds");
  state.expectRejected(slotCount, 299, 8, "do not hold the stored items");
  state.expectRejected(freeList + 8, 300, 4, "free slot is out of range");
  state.expectRejected(freeList + 12, 7, 4, "listed twice");
  state.expectRejected(slots + 7 * slotBytes, 12, 4, "free slot holds an item");
  state.expectRejected(slots, 999999, 4, "not stored");
  state.expectRejected(slots + slotBytes, 0, 4, "has two slots");
  state.expectRejected(slots + 4, 1u << 8, 8, "more bits");
  state.expectRejected(slots + 4 + tables * 8, 0xFFFFFFFFu, 4, "bucket position");
  state.expectRejectedDouble(s, -1.0, "scale");
  state.expectRejectedDouble(s + 8, 1e-3, "longer than the largest norm");
}

TEST(IndexStatePersistence, BoundedMeFieldsOutOfRangeAreCorruptState) {
  const HostileState state("bounded-me", 8, 300);
  const std::size_t s = state.structure(), dim = state.dim();
  const std::size_t low = s + kRandomBytes, high = low + 8 + 4 * dim, removals = high + 8 + 4 * dim;
  const std::size_t stale = removals + 8, carried = stale + 1 + 8;
  state.expectRejected([&](Bytes& bytes) { std::fill(bytes.begin() + s, bytes.begin() + s + 32, 0); }, "all zero");
  state.expectRejected(low, kHuge, 8, "count exceeds");
  state.expectRejected(high, dim - 1, 8, "wrong length");
  state.expectRejectedFloat(low + 8, 1e30f, "outside its column's bounds");
  state.expectRejectedFloat(high + 8, std::numeric_limits<float>::infinity(), "infinite the wrong way");
  state.expectRejected(removals, 300, 8, "not marked stale");
  state.expectRejected(stale, 2, 1, "stale-bounds flag");
  state.expectRejected(carried, dim, 8, "carried pulls");
}

TEST(IndexStatePersistence, GreedyListsOutOfRangeAreCorruptState) {
  constexpr std::size_t kItems = 300;
  const HostileState state("greedy", 8, kItems);
  const std::size_t s = state.structure();
  const std::size_t slots = s + 8, sorted = slots + 5 * kItems, lists = sorted + 8;
  ASSERT_EQ(state.read(sorted, 8), kItems);
  state.expectRejected(s, kHuge, 8, "count exceeds");
  state.expectRejected(slots, 2, 1, "bad slot flag");
  state.expectRejected(slots + 1, 999999, 4, "not stored");
  state.expectRejected(slots + 5 + 1, state.read(slots + 1, 4), 4, "two slots");
  state.expectRejected(sorted, kItems + 1, 8, "longer than the lists");
  state.expectRejected(lists, kItems, 4, "out of range or twice");
  state.expectRejected(lists, state.read(lists + 4, 4), 4, "out of range or twice");
  state.expectRejected([&](Bytes& bytes) { std::swap_ranges(bytes.begin() + lists, bytes.begin() + lists + 4, bytes.begin() + lists + 4); },
                       "not sorted");
}

TEST(IndexStatePersistence, PcaTreeNodesOutOfRangeAreCorruptState) {
  const HostileState state("pca-tree", 8, 300);
  const std::size_t s = state.structure(), width = state.dim() + 1;
  const std::size_t flags = s + 8 + kRandomBytes + 16, changes = flags + 2 + 8 + 8;
  const std::size_t thresholds = changes + 8 + (8 + width * 8) + (8 + 3 * width * 8), leaves = thresholds + 8 + 7 * 8;
  ASSERT_EQ(state.read(thresholds, 8), 7u);
  ASSERT_GT(state.read(leaves, 8), 1u);
  state.expectRejected(s, 4, 8, "depth");
  state.expectRejected(flags, 0, 1, "build flags");
  state.expectRejected(changes, 300, 8, "enough changes to be stale");
  state.expectRejected(thresholds, 8, 8, "thresholds");
  state.expectRejectedDouble(thresholds + 8, std::numeric_limits<double>::quiet_NaN(), "thresholds");
  state.expectRejected(leaves, kHuge, 8, "count exceeds");
  state.expectRejected(leaves + 8, 999999, 4, "not stored");
  state.expectRejected(leaves + 8, state.read(leaves + 12, 4), 4, "two leaves");
}

TEST(IndexStatePersistence, AdaptiveCopiesMustHoldTheItems) {
  constexpr std::size_t kItems = 300;
  const HostileState state("adaptive", 8, kItems);
  const std::size_t s = state.structure(), dim = state.dim();
  // The first copy's snapshot: its items, its attributes (as above), its counters, then its LSH slots.
  const std::size_t copyItems = s + 8, copyStructure = copyItems + kItems * (4 + 4 * dim) + 1 + 8 + kItems * 4 + 8 + 16;
  ASSERT_EQ(state.read(s, 8), kItems);
  state.expectRejectedFloat(copyItems + 4, 0.0f, "copy holds other items");
  state.expectRejected(s, kHuge, 8, "count exceeds");
  state.expectRejected(copyStructure + 40 + 4 + 16 * 8, 0xFFFFFFFFu, 4, "bucket position");
}

}  // namespace index_snapshot_test
}  // namespace sublinear::testing
