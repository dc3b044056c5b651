// inspectState (core/state_inspection.hpp): the one reader of a saved state's head describes a state
// from its first bytes, with what the families' describers read after the options, and never reads
// or allocates past the bytes it is given.
#include <gtest/gtest.h>

#include <memory>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_inspection.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::expectError;

namespace state_inspection_test {

Json inspect(const std::vector<std::uint8_t>& bytes, std::size_t available) { return inspectState(bytes.data(), available, bytes.size()); }
Json inspect(const std::vector<std::uint8_t>& bytes) { return inspect(bytes, bytes.size()); }

TEST(StateInspection, NamesAnIndexAndItsSizesFromTheHeadAlone) {
  PersistentIndex index(Json{{"type", "exact"}, {"dim", 3}});
  const Id ids[] = {4, 9};
  const float vectors[] = {1, 0, 0, 0, 1, 0};
  index->add(ids, 2, vectors, 6);
  const std::vector<std::uint8_t> bytes = index.toBytes();
  const Json summary = inspect(bytes);
  EXPECT_EQ(summary["type"], "exact");
  EXPECT_EQ(summary["classType"], "exact");
  EXPECT_EQ(summary["formatVersion"], kStateFormatVersion);
  EXPECT_EQ(summary["libraryVersion"], kLibraryVersion);
  EXPECT_TRUE(summary["complete"].get<bool>());
  EXPECT_EQ(summary["sizes"]["bytes"], bytes.size());
  EXPECT_EQ(summary["sizes"]["dim"], 3);
  EXPECT_EQ(summary["sizes"]["items"], 2);
  // From the head alone: the envelope is read, the payload's fields are left out.
  const Json head = inspect(bytes, kLongestStateHead);
  EXPECT_EQ(head["type"], "exact");
  EXPECT_TRUE(head["complete"].get<bool>());
}

TEST(StateInspection, AUserNamesItsCatalogueAndItsPolicyType) {
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", 3}, {"index", {{"type", "exact"}}}, {"seed", 5}});
  const Id ids[] = {1, 2};
  const double features[] = {1, 0, 0, 0, 1, 0};
  catalogue->add(ids, 2, features, 6);
  PersistentLinearPolicy user(Json{{"type", "sub-ts"}}, catalogue);
  const Json summary = inspect(user.toBytes());
  EXPECT_EQ(summary["type"], "sub-ts@catalogue");
  EXPECT_EQ(summary["classType"], "sub-ts");
  EXPECT_EQ(summary["catalogueIdentity"], catalogue->identityText());
  EXPECT_FALSE(summary["sizes"].contains("dim"));
  const Json own = inspect(catalogue->toBytes());
  EXPECT_EQ(own["catalogueIdentity"], catalogue->identityText());
  EXPECT_EQ(own["sizes"]["arms"], 2);
}

TEST(StateInspection, AnotherFormatIsDescribedAndTheLoadersRefuseIt) {
  PersistentIndex index(Json{{"type", "exact"}, {"dim", 2}});
  std::vector<std::uint8_t> older = index.toBytes();
  older[4] = static_cast<std::uint8_t>(kStateFormatVersion - 1);
  const Json summary = inspect(older);
  EXPECT_EQ(summary["formatVersion"], kStateFormatVersion - 1);
  EXPECT_EQ(summary["type"], "exact");
  EXPECT_FALSE(summary.contains("damage"));
  expectError(ErrorCode::CorruptState, "format version", [&] { PersistentIndex::fromBytes(older.data(), older.size(), "exact"); });
}

TEST(StateInspection, HostileHeadsAreCorruptAndClaimedSizesAreNotRead) {
  PersistentIndex index(Json{{"type", "exact"}, {"dim", 2}});
  const std::vector<std::uint8_t> bytes = index.toBytes();
  expectError(ErrorCode::CorruptState, "not a sublinear-bandits state", [&] { inspectState(nullptr, 0, 0); });
  std::vector<std::uint8_t> magic = bytes;
  magic[0] = 'X';
  expectError(ErrorCode::CorruptState, "not a sublinear-bandits state", [&] { inspect(magic); });
  // A library version of 2^32 - 1 bytes: refused from its length.
  std::vector<std::uint8_t> longString = bytes;
  for (int i = 6; i < 10; ++i) longString[static_cast<std::size_t>(i)] = 0xFF;
  expectError(ErrorCode::CorruptState, "truncated header", [&] { inspect(longString); });
  // Cut short and padded: damage named as the loader names it.
  const std::vector<std::uint8_t> cut(bytes.begin(), bytes.end() - 1);
  EXPECT_EQ(inspect(cut)["damage"], "length does not match");
  std::vector<std::uint8_t> padded = bytes;
  padded.push_back(0);
  EXPECT_EQ(inspect(padded)["damage"], "length does not match");
  // Fewer bytes given than the head needs: the head cannot be read.
  expectError(ErrorCode::CorruptState, "truncated header", [&] { inspect(bytes, 12); });
}

}  // namespace state_inspection_test
