// PersistentLinearPolicy::toBytes / fromBytes for every linear policy type: after a save in the middle
// of a run with arriving and leaving arms, the restored policy makes the same selections as the
// original for the same updates, and damaged bytes are CORRUPT_STATE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "sublinear/core/forgetting.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/linear/staged_elimination.hpp"
#include "sublinear/linear/sub_ts.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace linear_persistence_test {

constexpr int kDim = 4;

Json specOf(const std::string& type) {
  Json spec{{"type", type}, {"dim", kDim}, {"seed", 3}, {"horizon", 500}, {"beta", 1.0}};
  if (type == "sub-ts" || type == "sub-elim") {
    // A weak graph built at once, every search audited: the audits miss, raise the shortlist and
    // draw from their stream, all of which a restored policy must continue.
    spec["index"] = Json{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}, {"efSearch", 1}, {"build", "immediate"}};
    spec["shortlist"] = 1;
    spec["auditBudget"] = 1.0;
  }
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
  a->addArms(ids.data(), ids.size(), x.data(), x.size());
  if (b) (*b)->addArms(ids.data(), ids.size(), x.data(), x.size());
}

class LinearPersistence : public ::testing::TestWithParam<std::string> {};

TEST_P(LinearPersistence, RestoredPolicyMakesTheSameSelections) {
  Drive drive(5);
  PersistentLinearPolicy original(specOf(GetParam()));
  addArms(original, nullptr, drive, 60);
  for (int t = 0; t < 80; ++t) original->update(original->select(), drive.random.normal());
  const Id gone[] = {2};
  if (GetParam() != "linear-elim" && GetParam() != "sub-elim") original->removeArms(gone, 1);

  const auto bytes = original.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  EXPECT_EQ(restored->armCount(), original->armCount());
  for (int t = 0; t < 120; ++t) {
    const Id x = original->select();
    ASSERT_EQ(restored->select(), x) << GetParam() << " step " << t;
    const double reward = drive.random.normal();
    original->update(x, reward);
    restored->update(x, reward);
    if (t % 20 == 0) addArms(original, &restored, drive, 2);
  }
  EXPECT_EQ(restored->theta(), original->theta());
  EXPECT_EQ(restored->stats(), original->stats());
  EXPECT_EQ(restored.toBytes(), original.toBytes());
  // Sub-Elim's searches go through its bounds (boundsFirst), which the bytes above carry; its index,
  // and so its audits, is hardly asked.
  if (GetParam() == "sub-elim") {
    EXPECT_GT(original->stats()["certifiedAnswers"].get<int>(), 0);
  }
  if (GetParam() == "sub-ts") {
    const Json approximation = original->stats()["approximation"];
    EXPECT_GT(approximation["audits"].get<int>(), 0) << approximation;
    EXPECT_GT(approximation["effortRaises"].get<int>(), 0) << approximation;
  }
}

TEST_P(LinearPersistence, DamagedBytesAreCorruptState) {
  Drive drive(6);
  PersistentLinearPolicy policy(specOf(GetParam()));
  addArms(policy, nullptr, drive, 10);
  for (int t = 0; t < 10; ++t) policy->update(policy->select(), drive.random.normal());
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

// The practical radius without a fixed beta (the noise estimated from the sums, Sub-Elim's reviews),
// and for Thompson sampling the negative-reward transform (a model of dimension d + 1).
Json practicalSpecOf(const std::string& type) {
  Json spec = specOf(type);
  spec.erase("beta");
  spec["seed"] = 11;
  if (type == "sub-ts" || type == "lin-ts") spec["negativeRewardTransform"] = true;
  return spec;
}

bool isElimination(const std::string& type) { return type == "linear-elim" || type == "sub-elim"; }

TEST_P(LinearPersistence, SavedSizeDoesNotGrowWithSteps) {
  for (Json spec : {specOf(GetParam()), practicalSpecOf(GetParam())}) {
    // Arms that Sub-Elim moves between stages leave deleted nodes in the stages' HNSW graphs until
    // the index compacts them (the index's business, bounded by it); exact indexes hold just their
    // items, so the policy's own fields are what is measured.
    if (isElimination(GetParam())) spec["index"] = Json{{"type", "exact"}};
    Drive drive(7);
    PersistentLinearPolicy policy(spec);
    addArms(policy, nullptr, drive, 50);
    for (int t = 0; t < 100; ++t) policy->update(policy->select(), drive.random.normal());
    const std::size_t before = policy.toBytes().size();
    for (int t = 0; t < 1000; ++t) policy->update(policy->select(), drive.random.normal());
    const std::size_t after = policy.toBytes().size();
    // Forgetting 'auto' keeps the observations since its detector's statistic rose from 0, at most
    // Forgetting::kRecentRows (a u64 count and d doubles, the reward and the weight each).
    const std::size_t recent = Forgetting::kRecentRows * (8 + 8 * kDim + 16);
    // Eliminated arms leave their stage's index, so Linear Elim's state may only shrink. Sub-Elim's
    // bounds keep the entries of arms that left a stage until a search pops them or they outnumber
    // the stage's members: at most one per arm (12 bytes), whatever the number of steps.
    if (GetParam() == "linear-elim") {
      EXPECT_LE(after, before + recent) << spec.dump();
    } else if (GetParam() == "sub-elim") {
      const std::size_t limit = before + 12 * policy->armCount() + recent;
      EXPECT_LE(after, limit) << spec.dump();
      for (int t = 0; t < 1000; ++t) policy->update(policy->select(), drive.random.normal());
      EXPECT_LE(policy.toBytes().size(), limit) << spec.dump();
    } else if (GetParam() == "sub-ts") {
      // Sub-TS recalls at most kRecalled arms that audits found missing (4 bytes each).
      EXPECT_LE(after, before + 4 * sublinear::SubTS::kRecalled + recent) << spec.dump();
      for (int t = 0; t < 1000; ++t) policy->update(policy->select(), drive.random.normal());
      EXPECT_LE(policy.toBytes().size(), before + 4 * sublinear::SubTS::kRecalled + recent) << spec.dump();
    } else {
      EXPECT_LE(after, before + recent) << spec.dump();
      Json none = spec;
      none["forgetting"] = "none";
      PersistentLinearPolicy fixed(none);
      Drive again(7);
      addArms(fixed, nullptr, again, 50);
      for (int t = 0; t < 100; ++t) fixed->update(fixed->select(), again.random.normal());
      const std::size_t noneBefore = fixed.toBytes().size();
      for (int t = 0; t < 1000; ++t) fixed->update(fixed->select(), again.random.normal());
      EXPECT_EQ(fixed.toBytes().size(), noneBefore) << none.dump();
    }
  }
}

// Arms leave (for the elimination policies the threshold's witness too, which brings the eliminated
// arms back) and arrive before and after the save; the restored policy then goes on exactly as the
// original.
TEST_P(LinearPersistence, PolicyRestoredMidRunGoesOnIdentically) {
  const Json defaults{{"type", GetParam()}, {"dim", kDim}};
  for (const Json& spec : {specOf(GetParam()), practicalSpecOf(GetParam()), defaults}) {
    SCOPED_TRACE(spec.dump());
    Drive drive(8);
    PersistentLinearPolicy original(spec);
    addArms(original, nullptr, drive, 80);
    for (int t = 0; t < 300; ++t) {
      original->update(original->select(), drive.random.normal());
      if (t % 50 == 25) {
        const Id gone[] = {static_cast<Id>(t / 5), static_cast<Id>(t / 5 + 1)};
        original->removeArms(gone, 2);
        addArms(original, nullptr, drive, 3);
      }
    }
    const auto* elimination = dynamic_cast<const StagedElimination*>(&*original);
    if (elimination != nullptr) {
      ASSERT_TRUE(elimination->hasWitness());
      const Id witness = elimination->witness();
      original->removeArms(&witness, 1);
    }
    const auto bytes = original.toBytes();
    auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
    EXPECT_EQ(restored.toBytes(), bytes);
    for (int t = 0; t < 200; ++t) {
      const Id x = original->select();
      ASSERT_EQ(restored->select(), x) << "step " << t;
      const double reward = drive.random.normal();
      original->update(x, reward);
      restored->update(x, reward);
      if (t % 40 == 10) {
        original->removeArms(&x, 1);
        restored->removeArms(&x, 1);
        addArms(original, &restored, drive, 2);
      }
    }
    EXPECT_EQ(restored->theta(), original->theta());
    EXPECT_EQ(restored->stats(), original->stats());
    EXPECT_EQ(restored.toBytes(), original.toBytes());
  }
}

// Offsets into a saved linear policy (docs/state-format.md): the envelope's head, the options, then
// the arms (count, then id and features per arm) and the ridge regression (dim, lambda,
// observations, then V as rows, count and the entries in column-major order, then V^-1 likewise).
struct Layout {
  std::size_t armCount;
  std::size_t gram;     // V(0, 0) (0 when the regression keeps no V)
  std::size_t inverse;  // V^-1(0, 0)
};

// The policies that never sample keep their regression in the InverseOnly form (no V, no factor).
bool keepsGram(const std::string& type) { return type == "lin-ts" || type == "sub-ts"; }

std::uint64_t readU64(const Bytes& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
  return value;
}

void writeU64(Bytes& bytes, std::size_t at, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

void writeF64(Bytes& bytes, std::size_t at, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  writeU64(bytes, at, bits);
}

double readF64(const Bytes& bytes, std::size_t at) {
  const std::uint64_t bits = readU64(bytes, at);
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

Layout layoutOf(const Bytes& bytes, std::size_t d, bool gram) {
  std::size_t at = 6;                                          // magic, format version
  at += 4 + (readU64(bytes, at) & 0xFFFFFFFFU);              // library version
  at += 4 + (readU64(bytes, at) & 0xFFFFFFFFU);              // type
  at += 8;                                                   // payload length
  at += 8 + readU64(bytes, at);                              // options
  Layout layout{};
  layout.armCount = at;
  const std::size_t arms = readU64(bytes, at);
  at += 8 + arms * (4 + 8 * d);                              // arms
  at += 1 + 8 + arms * 4 + 8;                                // their attributes: one label each, no values
  at += 4 + 8 + 8;                                           // dim, lambda, observations
  layout.gram = gram ? at + 16 : 0;
  layout.inverse = gram ? layout.gram + 8 * d * d + 16 : at + 16;
  return layout;
}

TEST_P(LinearPersistence, HostileRidgeAndArmCountAreCorruptState) {
  Drive drive(9);
  PersistentLinearPolicy policy(specOf(GetParam()));
  addArms(policy, nullptr, drive, 12);
  for (int t = 0; t < 30; ++t) policy->update(policy->select(), drive.random.normal());
  const Bytes bytes = policy.toBytes();
  const std::size_t d = kDim;
  const bool gram = keepsGram(GetParam());
  const Layout layout = layoutOf(bytes, d, gram);
  const std::size_t v01 = layout.gram + 8 * d;  // column 1, row 0
  const std::size_t inverse01 = layout.inverse + 8 * d;
  // The layout is right: the counts, and V = I + sum x x^T (when kept) and V^-1 where they should be.
  ASSERT_EQ(readU64(bytes, layout.armCount), 12u);
  ASSERT_EQ(readU64(bytes, layout.inverse - 16), d);
  ASSERT_LT(readF64(bytes, layout.inverse), 1.0);
  auto restore = [&](const Bytes& damaged) { PersistentLinearPolicy::fromBytes(damaged.data(), damaged.size(), GetParam()); };
  restore(bytes);

  auto changed = [&](std::size_t at, double value) {
    Bytes damaged = bytes;
    writeF64(damaged, at, value);
    return resealed(damaged);
  };
  if (gram) {
    ASSERT_EQ(readU64(bytes, layout.gram - 16), d);
    ASSERT_GT(readF64(bytes, layout.gram), 1.0);
    ASSERT_EQ(readF64(bytes, v01), readF64(bytes, layout.gram + 8));
    expectError(ErrorCode::CorruptState, "symmetric", [&] { restore(changed(v01, readF64(bytes, v01) + 0.5)); });
    expectError(ErrorCode::CorruptState, "symmetric", [&] { restore(changed(v01, std::nextafter(readF64(bytes, v01), 0.0))); });
    expectError(ErrorCode::CorruptState, "positive diagonal", [&] { restore(changed(layout.gram, -1.0)); });
    expectError(ErrorCode::CorruptState, "non-finite", [&] { restore(changed(v01, std::nan(""))); });
    expectError(ErrorCode::CorruptState, "non-finite", [&] { restore(changed(layout.gram, INFINITY)); });
  } else {
    // Without V, V^-1 itself is checked: its downdates keep it symmetric bit for bit.
    ASSERT_EQ(readF64(bytes, inverse01), readF64(bytes, layout.inverse + 8));
    expectError(ErrorCode::CorruptState, "symmetric", [&] { restore(changed(inverse01, readF64(bytes, inverse01) + 0.5)); });
    expectError(ErrorCode::CorruptState, "symmetric",
                [&] { restore(changed(inverse01, std::nextafter(readF64(bytes, inverse01), 0.0))); });
    expectError(ErrorCode::CorruptState, "non-finite", [&] { restore(changed(layout.inverse, std::nan(""))); });
  }
  expectError(ErrorCode::CorruptState, "non-finite", [&] { restore(changed(inverse01, -INFINITY)); });

  for (const std::uint64_t count : {std::uint64_t{13}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
    Bytes inflated = bytes;
    writeU64(inflated, layout.armCount, count);
    EXPECT_EQ(codeOf([&] { restore(resealed(inflated)); }), ErrorCode::CorruptState) << count;
  }
  // Two arms with one id.
  Bytes duplicate = bytes;
  std::memcpy(&duplicate[layout.armCount + 8 + 4 + 8 * d], &bytes[layout.armCount + 8], 4);
  expectError(ErrorCode::CorruptState, "appears twice", [&] { restore(resealed(duplicate)); });
}

// With ill-conditioned features Sherman-Morrison's V^-1 drifts from symmetry and its diagonal can turn
// non-positive: such states are the library's own and must restore. The updates name arms directly,
// so that every type sees the same regression.
TEST_P(LinearPersistence, IllConditionedRegressionRestores) {
  Drive drive(13);
  PersistentLinearPolicy original(specOf(GetParam()));
  constexpr std::size_t kArms = 40;
  std::vector<Id> ids;
  std::vector<double> x = drive.features(kArms);
  for (std::size_t i = 0; i < kArms; ++i) ids.push_back(static_cast<Id>(i));
  // Large entries up to 5e7: Sub-Elim's lift x x^T / d stays within the indexes' 1e15.
  for (std::size_t i = 0; i < x.size(); i += 2) x[i] = std::clamp(2e7 * x[i], -5e7, 5e7);
  original->addArms(ids.data(), ids.size(), x.data(), x.size());
  for (int t = 0; t < 200; ++t) {
    const auto arm = static_cast<Id>(drive.random.uniformInt(kArms));
    original->update(arm, drive.random.normal());
  }
  const Bytes bytes = original.toBytes();
  const std::size_t d = kDim;
  const bool gram = keepsGram(GetParam());
  const Layout layout = layoutOf(bytes, d, gram);
  double asymmetry = 0.0, largest = 0.0, smallestDiagonal = INFINITY;
  for (std::size_t j = 0; j < d; ++j) {
    smallestDiagonal = std::min(smallestDiagonal, readF64(bytes, layout.inverse + 8 * (j * d + j)));
    for (std::size_t i = 0; i < d; ++i) {
      const double upper = readF64(bytes, layout.inverse + 8 * (j * d + i));
      const double lower = readF64(bytes, layout.inverse + 8 * (i * d + j));
      asymmetry = std::max(asymmetry, std::fabs(upper - lower));
      largest = std::max(largest, std::fabs(upper));
    }
  }
  // The InverseOnly form's downdates keep V^-1 symmetric whatever the conditioning; its diagonal
  // may still turn non-positive.
  if (gram) {
    ASSERT_TRUE(smallestDiagonal <= 0.0 || asymmetry > 1e-6 * largest)
        << "the premise: V^-1 is not symmetric with a positive diagonal (" << smallestDiagonal << ", " << asymmetry << " of " << largest << ")";
  } else {
    ASSERT_EQ(asymmetry, 0.0);
    ASSERT_LT(smallestDiagonal, 1e-12 * largest) << "the premise: V^-1 is ill-conditioned";
  }
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  for (int t = 0; t < 50; ++t) {
    const Id arm = original->select();
    ASSERT_EQ(restored->select(), arm) << "step " << t;
    const double reward = drive.random.normal();
    original->update(arm, reward);
    restored->update(arm, reward);
  }
}

// Options that claim a dimension the payload cannot hold fail before the constructor allocates and
// factors d x d matrices for them.
TEST_P(LinearPersistence, DimensionBeyondTheStateIsCorruptState) {
  Json spec = specOf(GetParam());
  spec["dim"] = 1000;
  StateWriter out(GetParam());
  out.json(spec);
  const Bytes bytes = out.finish();
  expectError(ErrorCode::CorruptState, "dimension exceeds the state",
              [&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam()); });
}

INSTANTIATE_TEST_SUITE_P(EveryType, LinearPersistence, ::testing::ValuesIn(linearPolicyTypes()), [](const auto& info) {
  std::string name = info.param;
  for (auto& c : name) c = (c == '-') ? '_' : c;
  return name;
});

}  // namespace linear_persistence_test
}  // namespace sublinear::testing
