// Linear TS and Sub-TS learning in the arms' principal subspace (ArmSubspace, issue 37 item 3): the
// basis finds the arms' rank, a refit keeps what the model learned, saved states continue exactly,
// options refuse contradictions, and the model learns where the full one does not.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "persistence_checks.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/arm_subspace.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "low_rank_arms.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace arm_subspace_test {

TEST(ArmSubspace, FindsTheArmsRankAndReconstructsThem) {
  LowRankArms source(100, 6, 1);
  ArmSet arms(100);
  const auto rows = source.draw(500, 0.0);
  const auto ids = idRange(0, 500);
  arms.add(ids.data(), ids.size(), rows.data(), nullptr);
  ArmSubspace subspace(100, 40, 0.999999, 7);
  subspace.fit(arms);
  EXPECT_EQ(subspace.stats()["rank"], 6) << subspace.stats();
  for (std::size_t row = 0; row < 20; ++row) {
    const Eigen::Map<const Vector> x(arms.rowData(row), 100);
    EXPECT_NEAR((subspace.lift(subspace.project(arms.rowData(row))) - x).norm(), 0.0, 1e-9);
  }
  // A lower energy keeps fewer directions, never more than modelDim.
  ArmSubspace coarse(100, 3, 0.999999, 7);
  coarse.fit(arms);
  EXPECT_EQ(coarse.stats()["rank"], 3);
  // Over arms of rank 30, half the energy takes fewer directions, but never fewer than 8.
  LowRankArms wide(100, 30, 3);
  ArmSet wideArms(100);
  const auto wideRows = wide.draw(500, 0.0);
  wideArms.add(ids.data(), ids.size(), wideRows.data(), nullptr);
  ArmSubspace half(100, 40, 0.5, 7);
  half.fit(wideArms);
  EXPECT_GE(half.stats()["rank"].get<int>(), ArmSubspace::kMinimumRank);
  EXPECT_LT(half.stats()["rank"].get<int>(), 30);
  EXPECT_GE(half.stats()["energy"].get<double>(), 0.5);
  ArmSubspace low(100, 40, 0.01, 7);
  low.fit(wideArms);
  EXPECT_EQ(low.stats()["rank"], ArmSubspace::kMinimumRank);
}

Json subspaceSpec(const std::string& type, int dim) {
  Json spec{{"type", type}, {"dim", dim}, {"seed", 4}, {"horizon", 1000}};
  if (type == "sub-ts") spec["index"] = Json{{"type", "hnsw"}, {"M", 8}, {"efConstruction", 16}, {"build", "immediate"}};
  return spec;
}

TEST(ArmSubspace, DefaultsAboveSixtyFourDimensionsAndRefusesContradictions) {
  auto full = makeLinearPolicy(64, Json{{"type", "lin-ts"}});
  auto reduced = makeLinearPolicy(65, Json{{"type", "lin-ts"}});
  std::vector<double> x(65, 0.0);
  x[0] = 1.0;
  const Id id = 0;
  full->addArms(&id, 1, x.data(), 64);
  reduced->addArms(&id, 1, x.data(), 65);
  EXPECT_FALSE(full->stats().contains("subspace"));
  EXPECT_EQ(reduced->stats()["subspace"]["rank"], 1);
  EXPECT_EQ(reduced->stats()["subspace"]["modelDim"], 65);
  EXPECT_EQ(makeLinearPolicy(4096, Json{{"type", "lin-ts"}})->stats()["subspace"]["modelDim"], 256);
  // Explicitly on at low d; off where the model is not in the arms' space.
  EXPECT_TRUE(makeLinearPolicy(8, Json{{"type", "sub-ts"}, {"subspace", "arms"}, {"modelDim", 3}})->stats().contains("subspace"));
  EXPECT_FALSE(makeLinearPolicy(128, Json{{"type", "lin-ts"}, {"prior", Json{{"theta", std::vector<double>(128, 0.0)}, {"weight", 1.0}}}})
                   ->stats()
                   .contains("subspace"));
  EXPECT_FALSE(makeLinearPolicy(128, Json{{"type", "sub-ts"}, {"negativeRewardTransform", true}})->stats().contains("subspace"));
  // The error code, -1 when the options were accepted.
  const auto refused = [](int dim, const Json& options) {
    try {
      makeLinearPolicy(dim, options);
      return -1;
    } catch (const Error& error) {
      return static_cast<int>(error.code());
    }
  };
  const int invalid = static_cast<int>(ErrorCode::InvalidArgument);
  // modelDim asks for a subspace at any d, and above d means d; 'none', a prior or the transform
  // leave the model in d dimensions whatever modelDim says.
  EXPECT_EQ(makeLinearPolicy(8, Json{{"type", "lin-ts"}, {"modelDim", 9}})->stats()["subspace"]["modelDim"], 8);
  EXPECT_FALSE(makeLinearPolicy(100, Json{{"type", "lin-ts"}, {"subspace", "none"}, {"modelDim", 10}})->stats().contains("subspace"));
  EXPECT_EQ(refused(100, Json{{"type", "lin-ts"}, {"modelDim", 0}}), invalid);
  EXPECT_EQ(refused(100, Json{{"type", "lin-ts"}, {"modelDim", 4097}}), invalid);
  EXPECT_EQ(refused(100, Json{{"type", "lin-ts"}, {"subspace", "pca"}}), invalid);
  EXPECT_EQ(refused(100, Json{{"type", "lin-ts"}, {"subspaceEnergy", 0}}), invalid);
  EXPECT_EQ(refused(100, Json{{"type", "sub-ts"}, {"subspace", "arms"}, {"negativeRewardTransform", true}}), invalid);
  EXPECT_EQ(refused(100, Json{{"type", "lin-ts"}, {"subspace", "arms"}, {"prior", Json{{"theta", std::vector<double>(100, 0.0)}, {"weight", 1.0}}}}),
            invalid);
  EXPECT_FALSE(makeLinearPolicy(100, Json{{"type", "lin-ts"}, {"modelDim", 10}, {"prior", Json{{"theta", std::vector<double>(100, 0.0)}, {"weight", 1.0}}}})
                   ->stats()
                   .contains("subspace"));
  // LinUCB and the elimination policies (scanning their rows) take the same rule over their own
  // arms; the lifted stage indexes are of the arms as they are.
  for (const char* type : {"lin-ucb", "linear-elim", "sub-elim"}) {
    EXPECT_EQ(makeLinearPolicy(100, Json{{"type", type}})->stats()["subspace"]["modelDim"], 100) << type;
    EXPECT_EQ(makeLinearPolicy(8, Json{{"type", type}, {"modelDim", 4}})->stats()["subspace"]["modelDim"], 4) << type;
    EXPECT_FALSE(makeLinearPolicy(100, Json{{"type", type}, {"subspace", "none"}})->stats().contains("subspace")) << type;
  }
  EXPECT_FALSE(makeLinearPolicy(8, Json{{"type", "sub-elim"}})->stats().contains("subspace"));
  EXPECT_EQ(refused(100, Json{{"type", "linear-elim"}, {"subspace", "arms"}, {"search", "lifted"}}), invalid);
  // Over a catalogue the subspace is the catalogue's (catalogue_subspace_test.cpp): a user may not ask for another.
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", 100}});
  EXPECT_NO_THROW(makeLinearPolicy(catalogue, Json{{"type", "lin-ts"}, {"subspace", "arms"}}));
  EXPECT_THROW(makeLinearPolicy(catalogue, Json{{"type", "lin-ts"}, {"modelDim", 10}}), Error);
}

TEST(ArmSubspace, ARefitKeepsWhatTheModelLearned) {
  // Arms from 4 directions, then as many again from those and 4 more: the second batch doubles the
  // arms, the basis is fitted again and contains the old one, so theta() must not move.
  LowRankArms first(80, 4, 2);
  auto policy = makeLinearPolicy(80, Json{{"type", "lin-ts"}, {"seed", 1}, {"subspaceEnergy", 0.9999999}});
  const auto rows = first.draw(40, 0.0);
  const auto ids = idRange(0, 40);
  policy->addArms(ids.data(), ids.size(), rows.data(), rows.size());
  Random rewards(3);
  for (int t = 0; t < 60; ++t) policy->update(policy->select(), rewards.normal());
  EXPECT_EQ(policy->stats()["subspace"]["rank"], 4);
  const Vector before = policy->theta();
  LowRankArms wider(80, 8, 5);
  wider.mixing.leftCols(4) = first.mixing;
  const auto more = wider.draw(40, 0.0);
  const auto moreIds = idRange(40, 40);
  policy->addArms(moreIds.data(), moreIds.size(), more.data(), more.size());
  EXPECT_EQ(policy->stats()["subspace"]["fits"], 2);
  EXPECT_EQ(policy->stats()["subspace"]["rank"], 8);
  EXPECT_LT((policy->theta() - before).norm(), 1e-8 * (1.0 + before.norm()));
  // Removing half the arms refits at the next selection; the model still selects and learns.
  policy->removeArms(moreIds.data(), moreIds.size());
  for (int t = 0; t < 10; ++t) policy->update(policy->select(), rewards.normal());
  EXPECT_EQ(policy->stats()["subspace"]["fits"], 3);
  EXPECT_TRUE(policy->theta().allFinite());
}

class SubspacePersistence : public ::testing::TestWithParam<std::string> {};

TEST_P(SubspacePersistence, RestoredPolicyContinuesExactly) {
  LowRankArms source(96, 10, 6);
  PersistentLinearPolicy original(subspaceSpec(GetParam(), 96));
  const auto rows = source.draw(150, 0.2);
  const auto ids = idRange(0, 150);
  original->addArms(ids.data(), ids.size(), rows.data(), rows.size());
  Random rewards(8);
  for (int t = 0; t < 50; ++t) original->update(original->select(), rewards.normal());
  const auto bytes = original.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  for (int t = 0; t < 60; ++t) {
    const Id arm = original->select();
    ASSERT_EQ(restored->select(), arm) << "step " << t;
    const double reward = rewards.normal();
    original->update(arm, reward);
    restored->update(arm, reward);
    if (t == 30) {
      // Doubling the arms refits the basis on both sides alike.
      const auto more = source.draw(160, 0.2);
      const auto moreIds = idRange(150, 160);
      original->addArms(moreIds.data(), moreIds.size(), more.data(), more.size());
      restored->addArms(moreIds.data(), moreIds.size(), more.data(), more.size());
    }
  }
  EXPECT_EQ(original->stats()["subspace"]["fits"], 2);
  EXPECT_EQ(restored->theta(), original->theta());
  expectDamageDetected(bytes, [&](const Bytes& damaged) {
    auto policy = PersistentLinearPolicy::fromBytes(damaged.data(), damaged.size(), GetParam());
    policy->update(policy->select(), 0.5);
  }, 60);
}

INSTANTIATE_TEST_SUITE_P(Thompson, SubspacePersistence, ::testing::Values("lin-ts", "sub-ts"));

// The failure in small: unit-norm arms with a few strong directions and a long weak tail.
// Linear TS in all d dimensions keeps sampling noise from the tail's unexplored directions; the
// subspace model does not. Same arms, same rewards, same seeds.
double lastQuarterRegret(const std::string& subspace, std::uint64_t seed) {
  const int d = 256;
  LowRankArms source(d, 12, 100 + seed);
  const std::size_t count = 3000;
  const auto rows = source.draw(count, 0.6);
  Vector thetaStar = source.mixing * Vector::Ones(12);
  thetaStar.normalize();
  std::vector<double> means(count);
  double best = -1e300;
  for (std::size_t i = 0; i < count; ++i) {
    means[i] = Eigen::Map<const Vector>(rows.data() + i * d, d).dot(thetaStar);
    best = std::max(best, means[i]);
  }
  auto policy = makeLinearPolicy(d, Json{{"type", "lin-ts"}, {"seed", seed}, {"horizon", 1200}, {"subspace", subspace}});
  const auto ids = idRange(0, count);
  policy->addArms(ids.data(), ids.size(), rows.data(), rows.size());
  Random noise(seed);
  double regret = 0.0;
  for (int t = 0; t < 1200; ++t) {
    const Id arm = policy->select();
    if (t >= 900) regret += best - means[arm];
    policy->update(arm, means[arm] + 0.1 * noise.normal());
  }
  return regret;
}

TEST(ArmSubspace, LearnsWhereTheFullModelKeepsExploring) {
  double full = 0.0;
  double reduced = 0.0;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    full += lastQuarterRegret("none", seed);
    reduced += lastQuarterRegret("arms", seed);
  }
  EXPECT_LT(reduced, 0.6 * full) << "subspace " << reduced << " full " << full;
}

TEST(HighDimension, PoliciesAndIndexesWorkAt4096Dimensions) {
  const int d = 4096;
  Random random(9);
  std::vector<double> rows(40 * d);
  for (auto& value : rows) value = random.normal() / 64.0;
  const auto ids = idRange(0, 40);
  for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts"}) {
    Json options{{"type", type}, {"seed", 1}};
    auto policy = makeLinearPolicy(d, options);
    policy->addArms(ids.data(), ids.size(), rows.data(), rows.size());
    for (int t = 0; t < 30; ++t) {
      const Id arm = policy->select();
      policy->update(arm, rows[arm * d] * 64.0);
    }
    EXPECT_EQ(policy->theta().size(), d) << type;
    EXPECT_TRUE(policy->theta().allFinite()) << type;
  }
  try {
    makeLinearPolicy(4097, Json{{"type", "lin-ts"}});
    ADD_FAILURE() << "d = 4097 accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  }
}

}  // namespace arm_subspace_test
}  // namespace sublinear::testing
