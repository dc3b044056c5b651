// PersistentLinearPolicy::toBytes / fromBytes for every linear policy type: after a save in the middle
// of a run with arriving and leaving arms, the restored policy makes the same selections as the
// original for the same updates, and damaged bytes are CORRUPT_STATE.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace {

constexpr int kDim = 4;

Json specOf(const std::string& type) {
  Json spec{{"type", type}, {"dim", kDim}, {"seed", 3}, {"horizon", 500}, {"beta", 1.0}};
  if (type == "sub-ts" || type == "sub-elim") spec["index"] = Json{{"type", "hnsw"}, {"M", 4}};
  return spec;
}

// A small problem with its own randomness, so that both policies see identical inputs.
struct Drive {
  Random random;
  std::vector<double> thetaStar;
  Id nextId = 0;
  explicit Drive(std::uint64_t seed) : random(seed), thetaStar(kDim) {
    for (auto& value : thetaStar) value = random.normal();
  }
  std::vector<double> features(std::size_t count) {
    std::vector<double> values(count * kDim);
    for (auto& value : values) value = random.normal();
    return values;
  }
};

void addArms(PersistentLinearPolicy& a, PersistentLinearPolicy* b, Drive& drive, std::size_t count) {
  std::vector<Id> ids;
  for (std::size_t i = 0; i < count; ++i) ids.push_back(drive.nextId++);
  const auto x = drive.features(count);
  a.addArms(ids.data(), ids.size(), x.data(), x.size());
  if (b) b->addArms(ids.data(), ids.size(), x.data(), x.size());
}

class LinearPersistence : public ::testing::TestWithParam<std::string> {};

TEST_P(LinearPersistence, RestoredPolicyMakesTheSameSelections) {
  Drive drive(5);
  PersistentLinearPolicy original(specOf(GetParam()));
  addArms(original, nullptr, drive, 60);
  for (int t = 0; t < 80; ++t) original.update(original.select(), drive.random.normal());
  const Id gone[] = {2};
  if (GetParam() != "linear-elim" && GetParam() != "sub-elim") original.removeArms(gone, 1);

  const auto bytes = original.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  EXPECT_EQ(restored->policy().armCount(), original.policy().armCount());
  for (int t = 0; t < 120; ++t) {
    const Id x = original.select();
    ASSERT_EQ(restored->select(), x) << GetParam() << " step " << t;
    const double reward = drive.random.normal();
    original.update(x, reward);
    restored->update(x, reward);
    if (t % 20 == 0) addArms(original, restored.get(), drive, 2);
  }
  EXPECT_EQ(restored->policy().theta(), original.policy().theta());
  EXPECT_EQ(restored->policy().stats(), original.policy().stats());
  EXPECT_EQ(restored->toBytes(), original.toBytes());
}

TEST_P(LinearPersistence, DamagedBytesAreCorruptState) {
  Drive drive(6);
  PersistentLinearPolicy policy(specOf(GetParam()));
  addArms(policy, nullptr, drive, 10);
  for (int t = 0; t < 10; ++t) policy.update(policy.select(), drive.random.normal());
  expectDamageDetected(policy.toBytes(), [](const Bytes& bytes) {
    auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "");
    // What decoded is a valid policy: using it may fail only with a coded error.
    try {
      restored->update(restored->select(), 0.5);
    } catch (const Error& error) {
      EXPECT_NE(error.code(), ErrorCode::CorruptState);
    }
  }, 60);
}

TEST_P(LinearPersistence, StateOfAnotherTypeIsRejected) {
  PersistentLinearPolicy policy(specOf(GetParam()));
  const auto bytes = policy.toBytes();
  const std::string other = GetParam() == "lin-ucb" ? "sub-ts" : "lin-ucb";
  expectError(ErrorCode::CorruptState, "not of a " + other, [&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), other); });
}

INSTANTIATE_TEST_SUITE_P(EveryType, LinearPersistence, ::testing::ValuesIn(linearPolicyTypes()), [](const auto& info) {
  std::string name = info.param;
  for (auto& c : name) c = (c == '-') ? '_' : c;
  return name;
});

}  // namespace
}  // namespace sublinear::testing
