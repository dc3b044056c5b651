// PersistentSemiBanditPolicy::toBytes / fromBytes for every policy type on every matroid class: the
// restored policy plays the same bases for the same rewards, and damaged bytes are CORRUPT_STATE.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <tuple>
#include <vector>

#include "persistence_checks.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace semi_bandit_persistence_test {

std::unique_ptr<Matroid> matroidOfKind(const std::string& kind) {
  if (kind == "uniform") return std::make_unique<UniformMatroid>(30, 4);
  if (kind == "partition") {
    std::vector<std::uint32_t> groups(30);
    for (std::size_t k = 0; k < groups.size(); ++k) groups[k] = static_cast<std::uint32_t>((k * 7) % 5) + 10;
    return std::make_unique<PartitionMatroid>(groups);
  }
  if (kind == "graphic") {
    std::vector<std::uint32_t> edges;
    for (std::uint32_t u = 0; u < 8; ++u) {
      for (std::uint32_t v = u + 1; v < 8; v += 2) edges.insert(edges.end(), {u, v});
    }
    return std::make_unique<GraphicMatroid>(8, edges);
  }
  std::vector<std::uint32_t> edges;
  for (std::uint32_t arm = 0; arm < 30; ++arm) edges.insert(edges.end(), {arm, arm % 6, arm, (arm * 5 + 1) % 6});
  return std::make_unique<TransversalMatroid>(30, 6, edges);
}

// Bernoulli rewards from a fixed mean per arm, drawn by the test's own generator.
std::vector<double> rewardsFor(const std::vector<Id>& basis, Random& random) {
  std::vector<double> rewards;
  for (const Id arm : basis) rewards.push_back(random.bernoulli(0.1 + 0.8 * ((arm * 37) % 30) / 30.0) ? 1.0 : 0.0);
  return rewards;
}

using Case = std::tuple<std::string, std::string>;  // policy type, matroid kind
class SemiBanditPersistence : public ::testing::TestWithParam<Case> {};

TEST_P(SemiBanditPersistence, RestoredPolicyPlaysTheSameBases) {
  const auto& [type, kind] = GetParam();
  const Json options{{"horizon", 400}, {"seed", 2}};
  auto original = makePersistentSemiBanditPolicy(type, *matroidOfKind(kind), options);
  Random random(4);
  for (int t = 0; t < 60; ++t) {
    const auto basis = original->select();
    const auto rewards = rewardsFor(basis, random);
    original->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  original->select();  // saved with a selection pending
  const auto bytes = original.toBytes();
  auto restored = PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), type);
  EXPECT_EQ(restored->matroid().kind(), kind);
  EXPECT_EQ(restored->matroid().rank(), original->matroid().rank());
  for (int t = 0; t < 60; ++t) {
    const auto basis = original->select();
    ASSERT_EQ(restored->select(), basis) << type << " on " << kind << ", round " << t;
    const auto rewards = rewardsFor(basis, random);
    original->update(basis.data(), basis.size(), rewards.data(), rewards.size());
    restored->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  EXPECT_EQ(restored->stats(), original->stats());
  EXPECT_EQ(restored.toBytes(), original.toBytes());
}

TEST_P(SemiBanditPersistence, DamagedBytesAreCorruptState) {
  const auto& [type, kind] = GetParam();
  auto policy = makePersistentSemiBanditPolicy(type, *matroidOfKind(kind), Json{{"horizon", 100}, {"seed", 1}});
  Random random(5);
  for (int t = 0; t < 5; ++t) {
    const auto basis = policy->select();
    const auto rewards = rewardsFor(basis, random);
    policy->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  expectDamageDetected(policy.toBytes(), [](const Bytes& bytes) {
    auto restored = PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), "");
    try {
      restored->select();
    } catch (const Error& error) {
      EXPECT_NE(error.code(), ErrorCode::CorruptState);
    }
  }, 40);
  const auto bytes = policy.toBytes();
  const std::string other = type == "cucb" ? "cts" : "cucb";
  expectError(ErrorCode::CorruptState, "not of a " + other, [&] { PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), other); });
}

// A snapshot holds the structure, not the history: after the initial pulls its size is bounded by
// the arms (a journal would grow by the bytes of every round).
TEST_P(SemiBanditPersistence, SavedSizeDoesNotGrowWithSteps) {
  const auto& [type, kind] = GetParam();
  auto policy = makePersistentSemiBanditPolicy(type, *matroidOfKind(kind), Json{{"horizon", 5000}, {"seed", 3}});
  Random random(6);
  std::size_t sizeAt500 = 0;
  for (int t = 1; t <= 5000; ++t) {
    const auto basis = policy->select();
    const auto rewards = rewardsFor(basis, random);
    policy->update(basis.data(), basis.size(), rewards.data(), rewards.size());
    if (t == 500) sizeAt500 = policy.toBytes().size();
  }
  // Bins, their groups and a cell order take at most 24 bytes per arm over any other state.
  const std::size_t arms = policy->armCount();
  EXPECT_LE(policy.toBytes().size(), sizeAt500 + 24 * arms) << type << " on " << kind;
  EXPECT_LT(24 * arms, 4500u);  // so that one byte per round would exceed the bound
}

INSTANTIATE_TEST_SUITE_P(EveryTypeAndMatroid, SemiBanditPersistence,
                         ::testing::Combine(::testing::ValuesIn(semiBanditPolicyTypes()),
                                            ::testing::Values("uniform", "partition", "graphic", "transversal")),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                           for (auto& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

// Hostile states: a valid state whose sizes were changed and resealed must be refused as
// CORRUPT_STATE before anything is allocated for the sizes it claims, so quickly.
Bytes savedState(const std::string& type, const Matroid& matroid) {
  auto policy = makePersistentSemiBanditPolicy(type, matroid, Json{{"horizon", 100}, {"seed", 1}});
  Random random(7);
  for (int t = 0; t < 5; ++t) {
    const auto basis = policy->select();
    const auto rewards = rewardsFor(basis, random);
    policy->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  return policy.toBytes();
}

// Sets the `field`-th u64 after the matroid's kind name (StateWriter::string: u64 length, bytes).
Bytes withMatroidSize(Bytes bytes, const std::string& kind, std::size_t field, std::uint64_t value) {
  Bytes name(8, 0);
  name[0] = static_cast<std::uint8_t>(kind.size());
  name.insert(name.end(), kind.begin(), kind.end());
  const auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  EXPECT_NE(at, bytes.end()) << kind;
  const auto offset = static_cast<std::size_t>(at - bytes.begin()) + name.size() + 8 * field;
  for (int i = 0; i < 8; ++i) bytes[offset + i] = static_cast<std::uint8_t>(value >> (8 * i));
  return resealed(bytes);
}

void expectQuicklyRefused(const Bytes& bytes, const std::string& fragment) {
  const auto start = std::chrono::steady_clock::now();
  expectError(ErrorCode::CorruptState, fragment, [&] { PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), ""); });
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 100.0) << bytes.size() << " bytes";
}

TEST(SemiBanditHostileState, HundredMillionUniformArmsAreRefusedQuickly) {
  for (const std::string type : {"cucb", "faster-cucb", "cts"}) {
    expectQuicklyRefused(withMatroidSize(savedState(type, UniformMatroid(30, 4)), "uniform", 0, 100000000), "more arms than the state has data for");
  }
}

TEST(SemiBanditHostileState, HundredMillionGraphVerticesAreRefusedQuickly) {
  const auto graph = matroidOfKind("graphic");
  for (const std::string type : {"cucb", "faster-cucb"}) {
    expectQuicklyRefused(withMatroidSize(savedState(type, *graph), "graphic", 0, 100000000), "more vertices than its edges touch");
  }
}

TEST(SemiBanditHostileState, HundredMillionTransversalVerticesAreRefusedQuickly) {
  const Bytes bytes = savedState("cucb", *matroidOfKind("transversal"));
  expectQuicklyRefused(withMatroidSize(bytes, "transversal", 0, 100000000), "more arms than the state has data for");
  expectQuicklyRefused(withMatroidSize(bytes, "transversal", 1, 100000000), "more right vertices than its edges touch");
}

// Isolated vertices are not saved, so the vertex bound holds for every valid state.
TEST(SemiBanditHostileState, GraphWithIsolatedVerticesIsRestored) {
  const GraphicMatroid graph(1000000, {0, 999999, 999999, 5, 5, 0, 7, 8});
  auto original = makePersistentSemiBanditPolicy("faster-cucb", graph, Json{{"seed", 2}});
  Random random(8);
  for (int t = 0; t < 30; ++t) {
    const auto basis = original->select();
    const auto rewards = rewardsFor(basis, random);
    original->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  const auto bytes = original.toBytes();
  EXPECT_LT(bytes.size(), 1000u);
  auto restored = PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), "faster-cucb");
  EXPECT_EQ(restored->matroid().rank(), 3u);
  for (int t = 0; t < 30; ++t) {
    const auto basis = original->select();
    ASSERT_EQ(restored->select(), basis) << "round " << t;
    const auto rewards = rewardsFor(basis, random);
    original->update(basis.data(), basis.size(), rewards.data(), rewards.size());
    restored->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  EXPECT_EQ(restored->stats(), original->stats());
}

}  // namespace semi_bandit_persistence_test
}  // namespace sublinear::testing
