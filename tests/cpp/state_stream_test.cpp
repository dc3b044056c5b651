// The streamed forms of a saved state (the bindings' toBytes and large fromBytes, add's large
// batches): a state written to a sink a piece at a time is the bytes toBytes() returns, a reader
// over a source read a piece at a time reads what the reader over memory reads and refuses the
// same damage in every family, and an add whose vectors (an index's) or features (a catalogue's, a
// policy's own arms) arrive in pieces stores what one in memory stores.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/piece_source.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace state_stream_test {

// The pieces as they come, joined behind the head at the end (as the binding's sink joins them).
class VectorSink final : public StateSink {
 public:
  void payload(const std::uint8_t* data, std::size_t count) override {
    ++pieces;
    largest = std::max(largest, count);
    payloadBytes.insert(payloadBytes.end(), data, data + count);
  }
  void finish(const std::uint8_t* head, std::size_t headLength, const std::uint8_t* checksum, std::size_t checksumLength) override {
    bytes.assign(head, head + headLength);
    bytes.insert(bytes.end(), payloadBytes.begin(), payloadBytes.end());
    bytes.insert(bytes.end(), checksum, checksum + checksumLength);
  }
  std::size_t pieces = 0;
  std::size_t largest = 0;
  std::vector<std::uint8_t> payloadBytes;
  std::vector<std::uint8_t> bytes;
};

// Values read only through read(), as a JS array outside the heap is.
template <class T>
class CopyingSource final : public PieceSource<T> {
 public:
  explicit CopyingSource(const std::vector<T>& values) : values_(values) {}
  std::size_t length() const override { return values_.size(); }
  void read(std::size_t first, std::size_t count, T* piece) const override {
    EXPECT_LE(count, PieceSource<T>::kPieceValues);
    std::copy(values_.begin() + first, values_.begin() + first + count, piece);
  }

 private:
  const std::vector<T>& values_;
};

std::vector<float> gaussian(std::size_t count, std::uint64_t seed) {
  Random random(seed);
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

std::vector<Id> idsTo(std::size_t count) {
  std::vector<Id> ids(count);
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<Id>(i);
  return ids;
}

// 3,000 x 200 floats, 2.4 MB: its state spans three pieces.
constexpr std::size_t kDim = 200;
constexpr std::size_t kItems = 3000;

TEST(StateStream, ASinkGetsTheBytesOfToBytesInPieces) {
  PersistentIndex index(Json{{"type", "hnsw"}, {"dim", kDim}, {"M", 6}, {"efConstruction", 20}, {"seed", 2}});
  const std::vector<float> vectors = gaussian(kItems * kDim, 3);
  const std::vector<Id> ids = idsTo(kItems);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  index->build(kItems / 2);  // mid-build: waiting items are saved too
  VectorSink sink;
  index.saveTo(sink);
  EXPECT_EQ(sink.bytes, index.toBytes());
  // The fields written once, a mebibyte (and the last number that crossed it) at a time.
  EXPECT_GE(sink.pieces, 3u);
  EXPECT_LE(sink.largest, ByteSource::kPieceValues + 64);
}

TEST(StateStream, TheChecksumOfHeadAndPayloadCombinesTheirs) {
  const std::vector<float> floats = gaussian(3000, 7);
  std::vector<std::uint8_t> bytes(floats.size());
  // Through a wide signed integer, wrapped to a byte: a float outside a byte's range cast to one is undefined.
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(static_cast<std::int64_t>(floats[i] * 1000.0f) & 0xff);
  for (const std::size_t split : {std::size_t{0}, std::size_t{1}, std::size_t{77}, bytes.size() - 1, bytes.size()}) {
    EXPECT_EQ(crc32Combine(crc32(bytes.data(), split), crc32(bytes.data() + split, bytes.size() - split), bytes.size() - split),
              crc32(bytes.data(), bytes.size()));
  }
}

TEST(StateStream, AStreamedReaderRestoresTheSameIndexAndRefusesTheSameDamage) {
  PersistentIndex index(Json{{"type", "exact"}, {"dim", kDim}});
  const std::vector<float> vectors = gaussian(kItems * kDim, 4);
  const std::vector<Id> ids = idsTo(kItems);
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const std::vector<std::uint8_t> bytes = index.toBytes();
  ASSERT_GT(bytes.size(), ByteSource::kPieceValues);
  const PersistentIndex restored = PersistentIndex::fromBytes(CopyingSource<std::uint8_t>(bytes), "");
  EXPECT_EQ(restored.toBytes(), bytes);
  expectError(ErrorCode::CorruptState, "not of a hnsw", [&] { PersistentIndex::fromBytes(CopyingSource<std::uint8_t>(bytes), "hnsw"); });
  // A flipped byte in each piece, a truncation at a piece's edge, a byte too many.
  for (const std::size_t at : {std::size_t{40}, ByteSource::kPieceValues + 3, bytes.size() - 2}) {
    std::vector<std::uint8_t> damaged = bytes;
    damaged[at] ^= 0x10;
    expectError(ErrorCode::CorruptState, "damaged", [&] { PersistentIndex::fromBytes(CopyingSource<std::uint8_t>(damaged), ""); });
  }
  const std::vector<std::uint8_t> truncated(bytes.begin(), bytes.begin() + ByteSource::kPieceValues);
  expectError(ErrorCode::CorruptState, "damaged", [&] { PersistentIndex::fromBytes(CopyingSource<std::uint8_t>(truncated), ""); });
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(0);
  expectError(ErrorCode::CorruptState, "damaged", [&] { PersistentIndex::fromBytes(CopyingSource<std::uint8_t>(longer), ""); });
}

TEST(StateStream, TheSharedRestoreReadsEveryFamilyFromPieces) {
  // A catalogue whose state spans three pieces and a user over it (whose restore compares the
  // catalogue's identity from the source before it reads the state).
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"index", {{"type", "exact"}}}, {"seed", 5}});
  const std::vector<float> floats = gaussian(kItems * kDim, 6);
  const std::vector<double> features(floats.begin(), floats.end());
  const std::vector<Id> ids = idsTo(kItems);
  catalogue->add(ids.data(), ids.size(), features.data(), features.size(), nullptr, 0);
  const std::vector<std::uint8_t> bytes = catalogue->toBytes();
  ASSERT_GT(bytes.size(), 2 * ByteSource::kPieceValues);
  const auto restored = Catalogue::fromBytes(CopyingSource<std::uint8_t>(bytes));
  EXPECT_EQ(restored->toBytes(), bytes);
  std::vector<std::uint8_t> damaged = bytes;
  damaged[ByteSource::kPieceValues + 11] ^= 0x01;
  expectError(ErrorCode::CorruptState, "checksum", [&] { Catalogue::fromBytes(CopyingSource<std::uint8_t>(damaged)); });

  PersistentLinearPolicy user(Json{{"type", "lin-ucb"}, {"seed", 1}}, catalogue);
  user->update(user->select(), 0.5);
  const std::vector<std::uint8_t> userBytes = user.toBytes();
  const PersistentLinearPolicy again = PersistentLinearPolicy::fromBytes(CopyingSource<std::uint8_t>(userBytes), "", restored);
  EXPECT_EQ(again.toBytes(), userBytes);
  expectError(ErrorCode::InvalidArgument, "catalogue", [&] { PersistentLinearPolicy::fromBytes(CopyingSource<std::uint8_t>(userBytes), "", nullptr); });
  expectError(ErrorCode::CorruptState, "not of a", [&] { PersistentLinearPolicy::fromBytes(CopyingSource<std::uint8_t>(bytes), "", restored); });
}

TEST(StateStream, ReadsAcrossPiecesMatchTheReaderOverMemory) {
  // Strings and numbers that straddle the pieces' edges.
  StateWriter writer("thing");
  const std::string text(ByteSource::kPieceValues / 3, 'x');
  for (int i = 0; i < 7; ++i) {
    writer.string(text + std::to_string(i));
    writer.u64(0x0102030405060708ULL + static_cast<std::uint64_t>(i));
    writer.u8(static_cast<std::uint8_t>(i));
  }
  const std::vector<std::uint8_t> bytes = writer.finish();
  CopyingSource<std::uint8_t> source(bytes);
  StateReader streamed(source, "thing");
  StateReader whole(bytes.data(), bytes.size(), "thing");
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(streamed.remaining(), whole.remaining());
    EXPECT_EQ(streamed.string(), whole.string());
    EXPECT_EQ(streamed.u64(), whole.u64());
    EXPECT_EQ(streamed.u8(), whole.u8());
  }
  EXPECT_TRUE(streamed.atEnd());
  EXPECT_NO_THROW(streamed.finish());
  expectError(ErrorCode::CorruptState, "ends early", [&] { streamed.u8(); });
}

TEST(StateStream, AnAddFromPiecesStoresWhatAnAddFromMemoryStores) {
  const std::vector<float> vectors = gaussian(kItems * kDim, 5);
  const std::vector<Id> ids = idsTo(kItems);
  PersistentIndex fromMemory(Json{{"type", "exact"}, {"dim", kDim}});
  PersistentIndex fromPieces(Json{{"type", "exact"}, {"dim", kDim}});
  addUserItems(*fromMemory, ids.data(), ids.size(), vectors.data(), vectors.size());
  addUserItems(*fromPieces, ids.data(), ids.size(), CopyingSource<float>(vectors), ItemAttributes::withLabels(nullptr, kItems));
  EXPECT_EQ(fromPieces.toBytes(), fromMemory.toBytes());
  // A bad entry in the last piece is refused by its position, and nothing is added.
  std::vector<float> bad = vectors;
  bad[bad.size() - 5] = 1e16f;
  PersistentIndex refused(Json{{"type", "exact"}, {"dim", kDim}});
  expectError(ErrorCode::InvalidArgument, "vectors[" + std::to_string(bad.size() - 5) + "]", [&] {
    addUserItems(*refused, ids.data(), ids.size(), CopyingSource<float>(bad), ItemAttributes::withLabels(nullptr, kItems));
  });
  bad[bad.size() - 5] = std::numeric_limits<float>::quiet_NaN();
  expectError(ErrorCode::NonFinite, "position " + std::to_string(bad.size() - 5), [&] {
    addUserItems(*refused, ids.data(), ids.size(), CopyingSource<float>(bad), ItemAttributes::withLabels(nullptr, kItems));
  });
  EXPECT_EQ(refused->size(), 0u);
}

// 3,000 x 200 doubles, 4.8 MB: five pieces.
std::vector<double> doubleFeatures(std::size_t count, std::uint64_t seed) {
  const std::vector<float> floats = gaussian(count, seed);
  return std::vector<double>(floats.begin(), floats.end());
}

TEST(StateStream, ACatalogueAddFromPiecesStoresWhatAnAddFromMemoryStores) {
  // Two catalogues of one identity (restored from one empty state), each with a user that learns in
  // the subspace, so that the second add also appends projected rows.
  const std::vector<std::uint8_t> empty = Catalogue(Json{{"dim", kDim}, {"index", {{"type", "exact"}}}, {"seed", 5}}).toBytes();
  const auto fromMemory = Catalogue::fromBytes(empty.data(), empty.size());
  const auto fromPieces = Catalogue::fromBytes(empty.data(), empty.size());
  const std::vector<double> first = doubleFeatures(kItems * kDim, 7);
  const std::vector<Id> firstIds = idsTo(kItems);
  for (const auto& catalogue : {fromMemory, fromPieces}) {
    catalogue->add(firstIds.data(), kItems, first.data(), first.size(), nullptr, 0);
    PersistentLinearPolicy user(Json{{"type", "lin-ucb"}, {"seed", 1}}, catalogue);
    user->update(user->select(), 0.5);
  }
  const std::vector<double> features = doubleFeatures(kItems * kDim, 8);
  std::vector<Id> ids = idsTo(2 * kItems);
  ids.erase(ids.begin(), ids.begin() + kItems);
  std::vector<Label> labels(kItems);
  for (std::size_t i = 0; i < kItems; ++i) labels[i] = static_cast<Label>(i % 7);
  const ItemAttributes batch = ItemAttributes::withLabels(labels.data(), kItems);
  fromMemory->add(ids.data(), kItems, features.data(), features.size(), &batch);
  fromPieces->add(ids.data(), kItems, CopyingSource<double>(features), &batch);
  EXPECT_EQ(fromPieces->toBytes(), fromMemory->toBytes());
  const ArmSet& projectedFromMemory = fromMemory->projectedArms();
  const ArmSet& projectedFromPieces = fromPieces->projectedArms();
  ASSERT_EQ(projectedFromPieces.size(), 2 * kItems);
  ASSERT_EQ(projectedFromMemory.size(), 2 * kItems);
  for (std::size_t row = 0; row < 2 * kItems; ++row) {
    ASSERT_EQ(projectedFromPieces.idAt(row), projectedFromMemory.idAt(row));
    ASSERT_TRUE(std::equal(projectedFromPieces.rowData(row), projectedFromPieces.rowData(row) + projectedFromPieces.dim(),
                           projectedFromMemory.rowData(row)));
    ASSERT_EQ(projectedFromPieces.labelOf(projectedFromPieces.idAt(row)), projectedFromMemory.labelOf(projectedFromMemory.idAt(row)));
  }

  // A bad entry in the last piece is refused by its position, as from memory, and nothing is added.
  std::vector<Id> moreIds = idsTo(3 * kItems);
  moreIds.erase(moreIds.begin(), moreIds.begin() + 2 * kItems);
  std::vector<double> bad = features;
  const std::size_t at = bad.size() - 5;
  bad[at] = std::numeric_limits<double>::quiet_NaN();
  expectError(ErrorCode::NonFinite, "position " + std::to_string(at), [&] {
    fromPieces->add(moreIds.data(), kItems, CopyingSource<double>(bad), nullptr);
  });
  bad[at] = 1e16;
  expectError(ErrorCode::InvalidArgument, "feature entry at position " + std::to_string(at), [&] {
    fromPieces->add(moreIds.data(), kItems, CopyingSource<double>(bad), nullptr);
  });
  expectError(ErrorCode::DuplicateId, "arm " + std::to_string(ids.front()) + " is already in the set", [&] {
    fromPieces->add(ids.data(), kItems, CopyingSource<double>(features), nullptr);
  });
  expectError(ErrorCode::DimensionMismatch, "feature entries", [&] {
    fromPieces->add(moreIds.data(), kItems - 1, CopyingSource<double>(features), nullptr);
  });
  EXPECT_EQ(fromPieces->size(), 2 * kItems);
  EXPECT_EQ(fromPieces->toBytes(), fromMemory->toBytes());
}

TEST(StateStream, AnAddOfOwnArmsFromPiecesStoresWhatAnAddFromMemoryStores) {
  // d = 200 > 64: LinUCB learns in its arms' subspace ('auto'), whose projected rows follow the add.
  const std::vector<double> features = doubleFeatures(kItems * kDim, 9);
  const std::vector<Id> ids = idsTo(kItems);
  PersistentLinearPolicy fromMemory(Json{{"type", "lin-ucb"}, {"dim", kDim}, {"seed", 2}});
  PersistentLinearPolicy fromPieces(Json{{"type", "lin-ucb"}, {"dim", kDim}, {"seed", 2}});
  fromMemory->addArms(ids.data(), kItems, features.data(), features.size());
  fromPieces->addArms(ids.data(), kItems, CopyingSource<double>(features), nullptr);
  for (int t = 0; t < 3; ++t) {
    const Id chosen = fromMemory->select();
    ASSERT_EQ(fromPieces->select(), chosen);
    fromMemory->update(chosen, 0.25 * t);
    fromPieces->update(chosen, 0.25 * t);
  }
  const std::vector<std::uint8_t> bytes = fromMemory.toBytes();
  EXPECT_EQ(fromPieces.toBytes(), bytes);
  // Its arms decoded in place, a piece at a time, restore to the same bits.
  EXPECT_EQ(PersistentLinearPolicy::fromBytes(CopyingSource<std::uint8_t>(bytes), "", nullptr).toBytes(), bytes);
  std::vector<double> bad = features;
  bad[bad.size() - 1] = std::numeric_limits<double>::infinity();
  PersistentLinearPolicy refused(Json{{"type", "lin-ucb"}, {"dim", kDim}});
  expectError(ErrorCode::NonFinite, "position " + std::to_string(bad.size() - 1), [&] {
    refused->addArms(ids.data(), kItems, CopyingSource<double>(bad), nullptr);
  });
  EXPECT_EQ(refused->armCount(), 0u);
}

}  // namespace state_stream_test
}  // namespace sublinear::testing
