// PersistentClsPolicy::toBytes / fromBytes for every combinatorial linear policy type, with per-round
// features, with a fixed arm set and an index, and saved with a selection pending: the restored policy
// selects the same rows for the same feedback, and damaged bytes are CORRUPT_STATE.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/cls/persistent_cls_policy.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace cls_persistence_test {

constexpr int kDim = 3;
constexpr std::size_t kRows = 12;

std::vector<double> features(Random& random) {
  std::vector<double> values(kRows * kDim);
  for (auto& value : values) value = random.normal();
  return values;
}

std::vector<double> rewardsOf(const std::vector<Id>& rows, Random& random) {
  std::vector<double> rewards;
  for (std::size_t i = 0; i < rows.size(); ++i) rewards.push_back(random.bernoulli(0.5) ? 1.0 : -1.0);
  return rewards;
}

SuperArmConstraint topK(std::size_t k) {
  SuperArmConstraint constraint;
  constraint.k = k;
  return constraint;
}

// "type" or "type:randomization" (CombTS runs both ways).
Json optionsOf(const std::string& param, int seed) {
  const auto colon = param.find(':');
  Json options{{"type", param.substr(0, colon)}, {"dim", kDim}, {"seed", seed}};
  if (colon != std::string::npos) options["randomization"] = param.substr(colon + 1);
  return options;
}

std::vector<std::string> everyVariant() {
  std::vector<std::string> variants = clsPolicyTypes();
  variants.push_back("comb-ts:arm");
  return variants;
}

class ClsPersistence : public ::testing::TestWithParam<std::string> {};

TEST_P(ClsPersistence, RestoredPolicySelectsTheSameRows) {
  Random drive(8);
  PersistentClsPolicy original(optionsOf(GetParam(), 4));
  for (int t = 0; t < 15; ++t) {
    const auto rows = original->select(features(drive).data(), kRows * kDim, topK(3));
    const auto rewards = rewardsOf(rows, drive);
    original->update(rows.data(), rows.size(), rewards.data(), rewards.size());
  }
  const auto pendingRows = original->select(features(drive).data(), kRows * kDim, topK(3));  // saved while pending
  const auto bytes = original.toBytes();
  auto restored = PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), original->type());
  const auto rewards = rewardsOf(pendingRows, drive);
  original->update(pendingRows.data(), pendingRows.size(), rewards.data(), rewards.size());
  restored->update(pendingRows.data(), pendingRows.size(), rewards.data(), rewards.size());
  for (int t = 0; t < 20; ++t) {
    const auto x = features(drive);
    const auto rows = original->select(x.data(), x.size(), topK(4));
    ASSERT_EQ(restored->select(x.data(), x.size(), topK(4)), rows) << GetParam() << " round " << t;
    const auto r = rewardsOf(rows, drive);
    original->update(rows.data(), rows.size(), r.data(), r.size());
    restored->update(rows.data(), rows.size(), r.data(), r.size());
  }
  EXPECT_EQ(restored->ridge().theta(), original->ridge().theta());
  EXPECT_EQ(restored.toBytes(), original.toBytes());
}

// The index is saved, not rebuilt: it answers and counts its work as the original's does.
TEST_P(ClsPersistence, FixedArmsWithAnIndexAreRestored) {
  for (const std::string index : {"exact", "hnsw"}) {
    Random drive(9);
    Json options = optionsOf(GetParam(), 5);
    options["index"] = Json{{"type", index}, {"shortlist", 6}};
    PersistentClsPolicy original(options);
    const auto arms = features(drive);
    original->setArms(arms.data(), arms.size());
    for (int t = 0; t < 10; ++t) {
      const auto rows = original->selectFromArms(topK(2));
      const auto r = rewardsOf(rows, drive);
      original->update(rows.data(), rows.size(), r.data(), r.size());
    }
    const auto bytes = original.toBytes();
    auto restored = PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), "");
    EXPECT_EQ(restored->armCount(), kRows);
    EXPECT_EQ(restored->stats(), original->stats()) << index;
    for (int t = 0; t < 10; ++t) {
      const auto rows = original->selectFromArms(topK(2));
      ASSERT_EQ(restored->selectFromArms(topK(2)), rows) << GetParam() << " with " << index << ", round " << t;
      const auto r = rewardsOf(rows, drive);
      original->update(rows.data(), rows.size(), r.data(), r.size());
      restored->update(rows.data(), rows.size(), r.data(), r.size());
    }
    EXPECT_EQ(restored->ridge().theta(), original->ridge().theta());
    EXPECT_EQ(restored->stats(), original->stats()) << index;
    EXPECT_EQ(restored.toBytes(), original.toBytes()) << index;
  }
}

TEST_P(ClsPersistence, DamagedFixedArmIndexIsCorruptState) {
  Random drive(11);
  Json options = optionsOf(GetParam(), 7);
  options["index"] = Json{{"type", "exact"}, {"shortlist", 6}};
  PersistentClsPolicy policy(options);
  const auto arms = features(drive);
  policy->setArms(arms.data(), arms.size());
  for (int t = 0; t < 4; ++t) {
    const auto rows = policy->selectFromArms(topK(2));
    const auto r = rewardsOf(rows, drive);
    policy->update(rows.data(), rows.size(), r.data(), r.size());
  }
  const auto bytes = policy.toBytes();
  expectDamageDetected(bytes, [&](const Bytes& damaged) {
    auto restored = PersistentClsPolicy::fromBytes(damaged.data(), damaged.size(), "");
    try {
      restored->selectFromArms(topK(2));
    } catch (const Error& error) {
      EXPECT_NE(error.code(), ErrorCode::CorruptState);
    }
  }, 60);
  // The exact index ends the payload with its last item's floats, then its items' attributes (a
  // layout byte, a count and one u32 label per item, one item per arm, and no value names: a u64 0)
  // and its two work counters: an item that is no longer the lift of its arm is refused.
  Bytes changed = bytes;
  const std::size_t labels = 1 + 8 + 4 * kRows + 8;
  ASSERT_GT(changed.size(), 24u + labels);
  changed.at(changed.size() - 4 - 16 - labels - 4) ^= 1;
  changed = resealed(changed);
  expectError(ErrorCode::CorruptState, "other vectors than the fixed arms", [&] { PersistentClsPolicy::fromBytes(changed.data(), changed.size(), ""); });
}

TEST_P(ClsPersistence, DamagedBytesAreCorruptState) {
  Random drive(10);
  PersistentClsPolicy policy(optionsOf(GetParam(), 6));
  for (int t = 0; t < 4; ++t) {
    const auto rows = policy->select(features(drive).data(), kRows * kDim, topK(2));
    const auto r = rewardsOf(rows, drive);
    policy->update(rows.data(), rows.size(), r.data(), r.size());
  }
  const auto x = features(drive);
  expectDamageDetected(policy.toBytes(), [&](const Bytes& bytes) {
    auto restored = PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), "");
    try {
      restored->select(x.data(), restored->dim() == kDim ? x.size() : 0, topK(2));
    } catch (const Error& error) {
      EXPECT_NE(error.code(), ErrorCode::CorruptState);
    }
  }, 60);
  const auto bytes = policy.toBytes();
  const std::string other = policy->type() == "c2ucb" ? "pc2ucb" : "c2ucb";
  expectError(ErrorCode::CorruptState, "not of a " + other, [&] { PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), other); });
}

// Issue 34: a selection over a round with more rows than setArms registered, and one made before
// setArms shrank the fixed arms, are valid call sequences: their states reload and continue.
TEST_P(ClsPersistence, PendingRowsBeyondTheFixedArmsReload) {
  Random drive(21);
  PersistentClsPolicy original(optionsOf(GetParam(), 5));
  const std::vector<double> fewArms(2 * kDim, 0.5);
  original->setArms(fewArms.data(), fewArms.size());
  const auto roundFeatures = features(drive);  // kRows rows, more than the 2 fixed arms
  const auto pendingRows = original->select(roundFeatures.data(), roundFeatures.size(), topK(3));
  ASSERT_TRUE(std::any_of(pendingRows.begin(), pendingRows.end(), [](Id row) { return row >= 2; })) << "a row beyond the fixed arms";
  const auto bytes = original.toBytes();
  auto restored = PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), original->type());
  const auto rewards = rewardsOf(pendingRows, drive);
  original->update(pendingRows.data(), pendingRows.size(), rewards.data(), rewards.size());
  restored->update(pendingRows.data(), pendingRows.size(), rewards.data(), rewards.size());
  const auto x = features(drive);
  EXPECT_EQ(restored->select(x.data(), x.size(), topK(2)), original->select(x.data(), x.size(), topK(2)));
  EXPECT_EQ(restored.toBytes(), original.toBytes());
}

TEST_P(ClsPersistence, PendingSelectionFromArmsThatShrankReloads) {
  Random drive(22);
  PersistentClsPolicy original(optionsOf(GetParam(), 6));
  const auto manyArms = features(drive);
  original->setArms(manyArms.data(), manyArms.size());
  const auto pendingRows = original->selectFromArms(topK(4));
  // A smaller arm set, then a round of features: the earlier selection is replaced, and the new one
  // is saved while pending.
  const std::vector<double> fewArms(2 * kDim, 0.25);
  original->setArms(fewArms.data(), fewArms.size());
  const auto roundFeatures = features(drive);
  const auto rows = original->select(roundFeatures.data(), roundFeatures.size(), topK(4));
  const auto bytes = original.toBytes();
  auto restored = PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), original->type());
  const auto rewards = rewardsOf(rows, drive);
  original->update(rows.data(), rows.size(), rewards.data(), rewards.size());
  restored->update(rows.data(), rows.size(), rewards.data(), rewards.size());
  EXPECT_EQ(restored.toBytes(), original.toBytes());
  (void)pendingRows;
}

// Features and rewards beyond 1e15 never reach the ridge sums, whichever way they come in.
TEST_P(ClsPersistence, FeaturesAndRewardsBeyondTheBoundAreRefused) {
  PersistentClsPolicy policy(optionsOf(GetParam(), 7));
  Random drive(23);
  auto x = features(drive);
  const auto before = policy.toBytes();
  x[4] = 1e300;
  expectError(ErrorCode::InvalidArgument, "1e15", [&] { policy->select(x.data(), x.size(), topK(2)); });
  expectError(ErrorCode::InvalidArgument, "1e15", [&] { policy->setArms(x.data(), x.size()); });
  x[4] = 0.0;
  const auto rows = policy->select(x.data(), x.size(), topK(2));
  const std::vector<double> huge(rows.size(), -1e16);
  expectError(ErrorCode::InvalidArgument, "1e15", [&] { policy->update(rows.data(), rows.size(), huge.data(), huge.size()); });
  const std::vector<double> fine(rows.size(), 1.0);
  policy->update(rows.data(), rows.size(), fine.data(), fine.size());
  const auto bytes = policy.toBytes();
  EXPECT_NO_THROW(PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), policy->type()));
  EXPECT_NE(bytes, before);
}

INSTANTIATE_TEST_SUITE_P(EveryType, ClsPersistence, ::testing::ValuesIn(everyVariant()), [](const auto& info) {
  std::string name = info.param;
  for (auto& c : name) c = (c == '-' || c == ':') ? '_' : c;
  return name;
});

}  // namespace cls_persistence_test
}  // namespace sublinear::testing
