// LinUCB and the elimination policies over their own arms in the arms' principal subspace (above 64
// dimensions by default, RidgePolicy::projected_): each chooses exactly what the same policy in all
// dimensions chooses over arms whose features are the projections B^T x, moves its model when the
// arms double, saves and reloads to the same bits, and learns on a low-rank embedding where the
// model in all d dimensions kept exploring.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sublinear/linear/arm_subspace.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "low_rank_arms.hpp"

using namespace sublinear;
using sublinear::testing::idRange;
using sublinear::testing::LowRankArms;

// Features x of `count` arms projected by `basis` (the same function the policy uses).
std::vector<double> projectedRows(const ArmSubspace& basis, const std::vector<double>& rows, int dim) {
  std::vector<double> projected;
  for (std::size_t i = 0; i < rows.size() / static_cast<std::size_t>(dim); ++i) {
    const Vector z = basis.project(rows.data() + i * static_cast<std::size_t>(dim));
    projected.insert(projected.end(), z.data(), z.data() + z.size());
  }
  return projected;
}

class OwnArmsSubspace : public ::testing::TestWithParam<const char*> {};

TEST_P(OwnArmsSubspace, ChoosesWhatThePolicyChoosesOverTheProjectedArms) {
  const int d = 100;
  LowRankArms source(d, 6, 3);
  const std::vector<double> rows = source.draw(400, 0.2);
  const std::vector<Id> ids = idRange(0, 400);
  PersistentLinearPolicy ucb(Json{{"type", GetParam()}, {"dim", d}, {"seed", 4}, {"subspaceEnergy", 0.7}});
  ucb->addArms(ids.data(), ids.size(), rows.data(), rows.size());
  const Json subspace = ucb->stats()["subspace"];
  ASSERT_EQ(subspace["modelDim"], 100);
  // The same basis, fitted alike (the arms, the model's dimension, the energy, the seed).
  ArmSet arms(d);
  arms.add(ids.data(), ids.size(), rows.data());
  ArmSubspace basis(d, 100, 0.7, 4);
  basis.fit(arms);
  const std::vector<double> z = projectedRows(basis, rows, d);
  PersistentLinearPolicy oracle(Json{{"type", GetParam()}, {"dim", 100}, {"subspace", "none"}, {"seed", 4}});
  oracle->addArms(ids.data(), ids.size(), z.data(), z.size());
  Vector thetaStar = source.mixing * Vector::Ones(6);
  thetaStar.normalize();
  Random noise(9);
  for (int t = 0; t < 300; ++t) {
    if (t == 150) {
      // A removal follows the rows (no refit: far from half of the arms).
      const std::vector<Id> gone{3, 77, 250};
      ucb->removeArms(gone.data(), gone.size());
      oracle->removeArms(gone.data(), gone.size());
    }
    const Id arm = oracle->select();
    ASSERT_EQ(ucb->select(), arm) << "step " << t;
    const double reward = Eigen::Map<const Vector>(rows.data() + arm * static_cast<std::size_t>(d), d).dot(thetaStar) + 0.1 * noise.normal();
    ucb->update(arm, reward);
    oracle->update(arm, reward);
  }
  // theta() is the model lifted by the basis.
  EXPECT_LT((ucb->theta() - basis.lift(oracle->theta())).norm(), 1e-12);
  EXPECT_EQ(ucb->stats()["subspace"]["fits"], 1);
}

TEST_P(OwnArmsSubspace, RefitsWhenTheArmsDoubleAndReloadsToTheSameBits) {
  const int d = 128;
  LowRankArms source(d, 8, 5);
  Vector thetaStar = source.mixing * Vector::Ones(8);
  thetaStar.normalize();
  std::vector<double> rows = source.draw(300, 0.3);
  PersistentLinearPolicy ucb(Json{{"type", GetParam()}, {"dim", d}, {"seed", 2}});
  const std::vector<Id> first = idRange(0, 300);
  ucb->addArms(first.data(), first.size(), rows.data(), rows.size());
  Random noise(1);
  const auto step = [&](PersistentLinearPolicy& policy, Random& rewards) {
    const Id arm = policy->select();
    policy->update(arm, Eigen::Map<const Vector>(rows.data() + arm * static_cast<std::size_t>(d), d).dot(thetaStar) + 0.1 * rewards.normal());
    return arm;
  };
  for (int t = 0; t < 100; ++t) step(ucb, noise);
  // Saved before the arms double: the copy refits at the same call as the original.
  const std::vector<std::uint8_t> bytes = ucb.toBytes();
  PersistentLinearPolicy copy = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  Random copyNoise = noise;
  const std::vector<double> more = source.draw(400, 0.3);
  rows.insert(rows.end(), more.begin(), more.end());
  const std::vector<Id> second = idRange(300, 400);
  for (PersistentLinearPolicy* policy : {&ucb, &copy}) (*policy)->addArms(second.data(), second.size(), more.data(), more.size());
  EXPECT_EQ(ucb->stats()["subspace"]["fits"], 2);
  for (int t = 0; t < 200; ++t) ASSERT_EQ(step(copy, copyNoise), step(ucb, noise)) << "step " << t;
  EXPECT_EQ(copy.toBytes(), ucb.toBytes());
  // A state cut short is refused.
  const std::vector<std::uint8_t> whole = ucb.toBytes();
  EXPECT_THROW(PersistentLinearPolicy::fromBytes(whole.data(), whole.size() - 9, GetParam()), Error);
}

// A low-rank embedding at d = 768 as the battery's (high_dimensional_battery_test.cpp): with defaults
// (the model in the arms' subspace) the last quarter ends far below uniform play's regret, and below
// half of what the model in all d dimensions leaves.
TEST_P(OwnArmsSubspace, LearnsOnALowRankEmbedding) {
  const int d = 768;
  LowRankArms source(d, 100, 12);
  Vector thetaStar = source.mixing * Vector::Ones(100);
  thetaStar.normalize();
  const std::vector<double> rows = source.draw(2000, 0.3);
  const std::vector<Id> ids = idRange(0, 2000);
  std::vector<double> means(2000);
  for (std::size_t i = 0; i < 2000; ++i) means[i] = Eigen::Map<const Vector>(rows.data() + i * d, d).dot(thetaStar);
  const double best = *std::max_element(means.begin(), means.end());
  double uniform = 0.0;
  for (const double m : means) uniform += (best - m) / 2000.0;
  const auto lastQuarter = [&](const Json& options) {
    auto policy = makeLinearPolicy(d, options);
    policy->addArms(ids.data(), ids.size(), rows.data(), rows.size());
    Random noise(3);
    double late = 0.0;
    for (int t = 0; t < 2000; ++t) {
      const Id arm = policy->select();
      if (t >= 1500) late += best - means[arm];
      policy->update(arm, means[arm] + 0.1 * noise.normal());
    }
    return late / (500 * uniform);
  };
  const double subspace = lastQuarter(Json{{"type", GetParam()}, {"seed", 1}});
  const double full = lastQuarter(Json{{"type", GetParam()}, {"seed", 1}, {"subspace", "none"}});
  std::printf("%s: last quarter %.3f in the subspace, %.3f in all d dimensions\n", GetParam(), subspace, full);
  EXPECT_LT(subspace, 0.2);
  EXPECT_LT(subspace, full / 2) << "full model " << full;
}

INSTANTIATE_TEST_SUITE_P(Scanning, OwnArmsSubspace, ::testing::Values("lin-ucb", "linear-elim", "sub-elim"),
                         [](const auto& info) { return std::string(info.param) == "lin-ucb" ? "LinUCB" : std::string(info.param) == "linear-elim" ? "LinearElim" : "SubElim"; });
