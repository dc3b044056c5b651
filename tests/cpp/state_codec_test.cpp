#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::expectError;

namespace state_codec_test {
std::vector<std::uint8_t> sample() {
  StateWriter writer("thing");
  writer.u8(7);
  writer.u32(0xDEADBEEF);
  writer.u64(0x0123456789ABCDEFULL);
  writer.f64(-0.0);
  writer.f64(std::numeric_limits<double>::denorm_min());
  writer.f32(1.5f);
  writer.string("héllo");
  const double doubles[] = {1.0, std::nan(""), -2.5};
  writer.f64s(doubles, 3);
  const float floats[] = {0.25f};
  writer.f32s(floats, 1);
  const std::uint32_t ids[] = {0, 4294967295U};
  writer.u32s(ids, 2);
  return writer.finish();
}

bool isCorrupt(const std::vector<std::uint8_t>& bytes, const std::string& type = "thing") {
  try {
    StateReader reader(bytes.data(), bytes.size(), type);
    reader.u8();
    reader.u32();
    reader.u64();
    reader.f64();
    reader.f64();
    reader.f32();
    reader.string();
    reader.f64s();
    reader.f32s();
    reader.u32s();
    reader.finish();
    return false;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::CorruptState);
    return true;
  }
}

TEST(StateCodec, RoundTripsEveryFieldBitExactly) {
  const auto bytes = sample();
  StateReader reader(bytes.data(), bytes.size(), "thing");
  EXPECT_EQ(reader.u8(), 7);
  EXPECT_EQ(reader.u32(), 0xDEADBEEFU);
  EXPECT_EQ(reader.u64(), 0x0123456789ABCDEFULL);
  const double negativeZero = reader.f64();
  EXPECT_EQ(negativeZero, 0.0);
  EXPECT_TRUE(std::signbit(negativeZero));
  EXPECT_EQ(reader.f64(), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(reader.f32(), 1.5f);
  EXPECT_EQ(reader.string(), "héllo");
  const auto doubles = reader.f64s();
  ASSERT_EQ(doubles.size(), 3u);
  EXPECT_TRUE(std::isnan(doubles[1]));
  EXPECT_EQ(reader.f32s(), std::vector<float>{0.25f});
  EXPECT_EQ(reader.u32s(), (std::vector<std::uint32_t>{0, 4294967295U}));
  EXPECT_NO_THROW(reader.finish());
  EXPECT_EQ(StateReader::peekType(bytes.data(), bytes.size()), "thing");
}

TEST(StateCodec, IsLittleEndianWithAKnownHeader) {
  const auto bytes = sample();
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "SBST");
  EXPECT_EQ(bytes[4], kStateFormatVersion);  // format version, low byte first
  EXPECT_EQ(bytes[5], 0);
  const std::string library = kLibraryVersion;
  EXPECT_EQ(bytes[6], library.size());  // the library version that wrote it
  EXPECT_EQ(std::string(bytes.begin() + 10, bytes.begin() + 10 + static_cast<std::ptrdiff_t>(library.size())), library);
  EXPECT_EQ(bytes[10 + library.size()], 5);  // length of "thing"
}

// A state of another format version is refused with both versions named, whether it is older
// (format 1 had no library version field) or newer (its head keeps the same first three fields).
TEST(StateCodec, OtherFormatVersionsAreRefusedNamingBothVersions) {
  auto older = sample();
  older[4] = 1;
  expectError(ErrorCode::CorruptState, "format version 1 (written by sublinear-bandits 0.1.x)", [&] { StateReader(older.data(), older.size(), "thing"); });
  auto newer = sample();
  newer[4] = static_cast<std::uint8_t>(kStateFormatVersion + 1);
  try {
    StateReader(newer.data(), newer.size(), "thing");
    ADD_FAILURE() << "a newer format was read";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::CorruptState);
    const std::string message = error.what();
    EXPECT_NE(message.find("format version " + std::to_string(kStateFormatVersion + 1) + " (written by sublinear-bandits " + std::string(kLibraryVersion) + ")"), std::string::npos) << message;
    EXPECT_NE(message.find("reads format version " + std::to_string(kStateFormatVersion)), std::string::npos) << message;
  }
}

TEST(StateCodec, EveryFlippedByteAndEveryTruncationIsCorruptState) {
  const auto bytes = sample();
  EXPECT_FALSE(isCorrupt(bytes));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto damaged = bytes;
    damaged[i] ^= 0x40;
    EXPECT_TRUE(isCorrupt(damaged)) << "byte " << i;
  }
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_TRUE(isCorrupt(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + length))) << "length " << length;
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_TRUE(isCorrupt(longer));
  EXPECT_TRUE(isCorrupt(bytes, "other"));
  EXPECT_THROW(StateReader(nullptr, 0, "thing"), Error);
}

TEST(StateCodec, HugeCountsInAValidEnvelopeAreRejectedBeforeAllocating) {
  StateWriter writer("thing");
  writer.u64(std::numeric_limits<std::uint64_t>::max());  // read back as an f64s count
  const auto bytes = writer.finish();
  StateReader reader(bytes.data(), bytes.size(), "thing");
  try {
    reader.f64s();
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::CorruptState);
  }
}

TEST(StateCodec, Crc32OfAKnownString) {
  const std::string text = "123456789";
  EXPECT_EQ(crc32(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), 0xCBF43926U);
}

TEST(StateCodec, JsonRandomEnginesAndMatricesRoundTrip) {
  Random engine(9);
  engine.normal();  // leaves a spare normal, which must be saved too
  Eigen::MatrixXd m(2, 3);
  m << 1, 2, 3, 4, 5, -0.0;
  StateWriter writer("outer");
  writer.json(Json{{"a", 1}, {"b", "x"}});
  writer.random(engine);
  writer.matrix(m);
  writer.vector(Eigen::VectorXd::Constant(3, 0.5));
  const std::uint64_t wide[] = {1, 0xFFFFFFFFFFFFFFFFULL};
  writer.u64s(wide, 2);
  const auto bytes = writer.finish();

  StateReader reader(bytes.data(), bytes.size(), "outer");
  EXPECT_EQ(reader.json(), (Json{{"a", 1}, {"b", "x"}}));
  Random restored(0);
  reader.random(restored);
  EXPECT_EQ(restored.normal(), engine.normal());
  EXPECT_EQ(restored.nextU64(), engine.nextU64());
  EXPECT_EQ(reader.matrix(2, 3), m);
  EXPECT_EQ(reader.vector(3), Eigen::VectorXd::Constant(3, 0.5));
  EXPECT_EQ(reader.u64s(), std::vector<std::uint64_t>(std::begin(wide), std::end(wide)));
  reader.finish();

  StateReader wrongShape(bytes.data(), bytes.size(), "outer");
  wrongShape.json();
  wrongShape.random(restored);
  EXPECT_THROW(wrongShape.matrix(3, 2), Error);
}
}  // namespace state_codec_test
