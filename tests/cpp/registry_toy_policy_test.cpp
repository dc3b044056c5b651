// The recipe of docs/architecture.md ("Adding a linear policy") followed outside the library: the toy
// policy (tests/toys/toy_policy.cpp, registered by core_tests' main) is built by the factory,
// described by its option table, listed among the types, saved and restored through the
// persistence family, served over a catalogue, and given the common machinery of every linear
// policy (filters, slates, decisions and their rewards, forgetting) with no other file touched. If
// any of these paths named the policy types by hand instead of reading the registry, the toy type
// would be refused there and this test would fail. The generic suites meet it too (their loops
// over linearPolicyTypes()).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "test_support.hpp"
#include "toy_types.hpp"

namespace sublinear::testing {
namespace registry_toy_policy_test {

struct World {
  static constexpr int dim = 4;
  std::vector<Id> ids;
  std::vector<double> features;
  Vector theta = Vector::Zero(dim);
  World() {
    Random random(7);
    for (Id i = 0; i < 50; ++i) ids.push_back(10 + i);
    features.resize(ids.size() * dim);
    for (double& value : features) value = random.normal();
    theta << 1.0, -0.5, 0.25, 0.0;
  }
  double mean(Id id) const { return Eigen::Map<const Vector>(features.data() + (id - 10) * dim, dim).dot(theta); }
};

TEST(RegistryToyPolicy, FactoryTableAndTypeList) {
  const std::vector<std::string> types = linearPolicyTypes();
  EXPECT_NE(std::find(types.begin(), types.end(), "toy-greedy"), types.end());
  ASSERT_NE(findOptionTable("linear-policy", "toy-greedy"), nullptr);
  auto policy = makeLinearPolicy(World::dim, Json{{"type", "toy-greedy"}, {"lambda", 2}});
  EXPECT_EQ(policy->type(), "toy-greedy");
  // Its table refuses what it does not take, naming the nearest option, as every type's does.
  EXPECT_EQ(codeOf([] { makeLinearPolicy(World::dim, Json{{"type", "toy-greedy"}, {"lamda", 2}}); }), ErrorCode::InvalidArgument);
  EXPECT_THROW(linearPolicyRegistry().add(toys::greedyEntry(), {&option_groups::typed()}), std::logic_error);
}

TEST(RegistryToyPolicy, LearnsFiltersDecidesForgetsAndRestores) {
  const World world;
  PersistentLinearPolicy policy(Json{{"type", "toy-greedy"}, {"dim", World::dim}, {"seed", 1}});
  policy->addArms(world.ids.data(), world.ids.size(), world.features.data(), world.features.size());
  for (int step = 0; step < 100; ++step) {
    const Id arm = policy->select();
    policy->update(arm, world.mean(arm));
  }
  // Noiseless rewards: greedy on the ridge estimate finds an arm near the best.
  double best = -1e300;
  for (const Id id : world.ids) best = std::max(best, world.mean(id));
  EXPECT_GT(world.mean(policy->select()), best - 0.5);
  EXPECT_EQ(policy->stats()["forgetting"]["kind"], "auto");

  // Filters and slates come from the base.
  ArmFilter filter;
  filter.exclude = {policy->select()};
  const std::vector<Id> slate = policy->selectSlate(3, filter);
  ASSERT_EQ(slate.size(), 3u);
  EXPECT_EQ(std::find(slate.begin(), slate.end(), filter.exclude.front()), slate.end());

  // Decisions: a deterministic choice has propensity 1; the reward reaches the model.
  const Decision decision = policy->decide(2, ArmFilter{}, true);
  ASSERT_EQ(decision.propensities.size(), 2u);
  EXPECT_EQ(decision.propensities[0], 1.0);
  const std::uint64_t updates = policy->stats()["updates"].get<std::uint64_t>();
  const double rewards[2] = {world.mean(decision.arms[0]), world.mean(decision.arms[1])};
  policy->reward(decision.eventId, rewards, 2);
  EXPECT_EQ(policy->stats()["updates"].get<std::uint64_t>(), updates + 2);

  // The saved state restores through the persistence family, its own field included.
  const std::vector<std::uint8_t> bytes = policy.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "toy-greedy");
  EXPECT_EQ(restored.toBytes(), bytes);
  EXPECT_EQ(restored->stats()["choices"], policy->stats()["choices"]);
  EXPECT_EQ(restored->select(), policy->select());
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "lin-ucb"); }), ErrorCode::CorruptState);

  // forget(0) is the fresh model: theta^ back to 0.
  restored->forget(0.0);
  EXPECT_EQ(restored->theta().norm(), 0.0);
}

TEST(RegistryToyPolicy, ServesTheUsersOfACatalogue) {
  const World world;
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", World::dim}});
  catalogue->add(world.ids.data(), world.ids.size(), world.features.data(), world.features.size());
  auto user = makeLinearPolicy(catalogue, Json{{"type", "toy-greedy"}});
  for (int step = 0; step < 50; ++step) {
    const Id arm = user->select();
    user->update(arm, world.mean(arm));
  }
  EXPECT_EQ(user->armCount(), world.ids.size());
  EXPECT_GT(user->stats()["choices"].get<int>(), 0);
}

}  // namespace registry_toy_policy_test
}  // namespace sublinear::testing
