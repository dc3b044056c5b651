// Labels, filters and slates of the linear policies: every policy returns only eligible arms
// (against brute force over the eligible ones), own arms and over a catalogue; slates are distinct,
// eligible and best first against a brute-force oracle (LinUCB with a fixed radius, Thompson
// sampling with a zero sampling scale, whose draw is theta^); the elimination policies take
// feedback for every position; labels survive a snapshot; simulate() learns with slates.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sublinear/core/random.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/linear/staged_elimination.hpp"
#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace linear_slates_test {

constexpr int kDim = 4;
constexpr Label kLabels = 5;

// Arms with labels 0..kLabels-1, a linear reward model, and the ridge statistics an oracle needs.
struct World {
  Random random;
  std::vector<Id> ids;
  std::vector<double> features;
  std::vector<Label> labels;
  Eigen::VectorXd thetaStar = Eigen::VectorXd::Zero(kDim);
  Eigen::MatrixXd gram = Eigen::MatrixXd::Identity(kDim, kDim);
  Eigen::VectorXd responses = Eigen::VectorXd::Zero(kDim);

  World(std::size_t count, std::uint64_t seed) : random(seed) {
    for (int j = 0; j < kDim; ++j) thetaStar[j] = random.normal();
    for (std::size_t i = 0; i < count; ++i) {
      ids.push_back(static_cast<Id>(3 * i + 1));
      labels.push_back(static_cast<Label>(random.uniformInt(kLabels)));
      for (int j = 0; j < kDim; ++j) features.push_back(random.normal());
    }
  }
  Eigen::Map<const Eigen::VectorXd> x(Id id) const {
    const auto row = static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
    return Eigen::Map<const Eigen::VectorXd>(features.data() + row * kDim, kDim);
  }
  Label labelOf(Id id) const { return labels[static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin())]; }
  double reward(Id id) { return x(id).dot(thetaStar) + 0.3 * random.normal(); }
  void observe(Id id, double r) {
    gram += x(id) * x(id).transpose();
    responses += r * x(id);
  }
  bool eligible(Id id, const ArmFilter& filter) const {
    if (std::find(filter.exclude.begin(), filter.exclude.end(), id) != filter.exclude.end()) return false;
    return filter.labels.empty() || std::find(filter.labels.begin(), filter.labels.end(), labelOf(id)) != filter.labels.end();
  }
  std::size_t eligibleCount(const ArmFilter& filter) const {
    return static_cast<std::size_t>(std::count_if(ids.begin(), ids.end(), [&](Id id) { return eligible(id, filter); }));
  }
  // The eligible arms by `score`, best first (ties to the smaller id).
  template <class Score>
  std::vector<Id> ranked(const ArmFilter& filter, Score score) const {
    std::vector<std::pair<double, Id>> scored;
    for (const Id id : ids) {
      if (eligible(id, filter)) scored.emplace_back(score(id), id);
    }
    std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    std::vector<Id> out;
    for (const auto& entry : scored) out.push_back(entry.second);
    return out;
  }
  // A random filter: some excluded ids (some not arms at all) and one or two allowed labels, or none.
  ArmFilter randomFilter() {
    ArmFilter filter;
    const std::size_t excluded = random.uniformInt(6);
    for (std::size_t i = 0; i < excluded; ++i) filter.exclude.push_back(static_cast<Id>(random.uniformInt(3 * ids.size() + 5)));
    const std::size_t kind = random.uniformInt(3);
    for (std::size_t i = 0; i < kind; ++i) filter.labels.push_back(static_cast<Label>(random.uniformInt(kLabels + 1)));
    return filter;
  }
};

Json specOf(const std::string& type) {
  Json spec{{"type", type}, {"dim", kDim}, {"seed", 3}, {"horizon", 2000}};
  if (type == "sub-ts" || type == "sub-elim") spec["index"] = Json{{"type", "hnsw"}, {"M", 8}, {"efConstruction", 32}, {"seed", 2}};
  return spec;
}

void addWorld(PersistentLinearPolicy& policy, const World& world) {
  policy->addArms(world.ids.data(), world.ids.size(), world.features.data(), world.features.size(), world.labels.data(),
                 world.labels.size());
}

void expectEligibleSlate(const std::vector<Id>& slate, std::size_t k, const ArmFilter& filter, const World& world) {
  ASSERT_EQ(slate.size(), std::min(k, world.eligibleCount(filter)));
  EXPECT_EQ(std::set<Id>(slate.begin(), slate.end()).size(), slate.size()) << "not distinct";
  for (const Id id : slate) EXPECT_TRUE(world.eligible(id, filter)) << "arm " << id << " is not eligible";
}

class EveryType : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryType, SelectAndSlatesReturnOnlyEligibleArms) {
  World world(300, 7);
  PersistentLinearPolicy policy(specOf(GetParam()));
  addWorld(policy, world);
  for (int t = 0; t < 150; ++t) {
    const ArmFilter filter = world.randomFilter();
    const std::size_t eligible = world.eligibleCount(filter);
    if (eligible == 0) {
      EXPECT_EQ(codeOf([&] { policy->select(filter); }), ErrorCode::Empty);
      continue;
    }
    const Id arm = policy->select(filter);
    ASSERT_TRUE(world.eligible(arm, filter)) << "round " << t << " arm " << arm;
    policy->update(arm, world.reward(arm));
    const std::size_t k = 1 + world.random.uniformInt(12);
    const std::vector<Id> slate = policy->selectSlate(k, filter);
    expectEligibleSlate(slate, k, filter, world);
    // Feedback per position, for arms other than the last one selected too.
    for (const Id id : slate) policy->update(id, world.reward(id));
  }
  if (GetParam() == "sub-elim" || GetParam() == "linear-elim") {
    const auto& elimination = dynamic_cast<const StagedElimination&>(*policy);
    EXPECT_TRUE(elimination.heapsCoverEveryArm());
  }
}

TEST_P(EveryType, NothingEligibleIsEmptyAndChangesNothing) {
  World world(40, 8);
  PersistentLinearPolicy policy(specOf(GetParam()));
  addWorld(policy, world);
  for (int t = 0; t < 10; ++t) policy->update(policy->select(), 0.5);
  const std::vector<std::uint8_t> before = policy.toBytes();
  ArmFilter absent;
  absent.labels = {kLabels + 3};
  expectError(ErrorCode::Empty, "eligible", [&] { policy->select(absent); });
  expectError(ErrorCode::Empty, "eligible", [&] { policy->selectSlate(5, absent); });
  ArmFilter everything;
  everything.exclude = world.ids;
  expectError(ErrorCode::Empty, "eligible", [&] { policy->selectSlate(3, everything); });
  expectError(ErrorCode::InvalidArgument, "k must", [&] { policy->selectSlate(0, ArmFilter{}); });
  EXPECT_EQ(policy.toBytes(), before);
  // More than eligible: every eligible arm, once.
  ArmFilter one;
  one.labels = {world.labels.front()};
  const std::vector<Id> slate = policy->selectSlate(1000, one);
  expectEligibleSlate(slate, 1000, one, world);
  // Labels of another count are refused and nothing is added.
  const Id extra = 1000000;
  const std::vector<double> x(2 * kDim, 0.5);
  const std::vector<Label> labels{1};
  const Id pair[] = {extra, extra + 1};
  expectError(ErrorCode::InvalidArgument, "labels", [&] { policy->addArms(pair, 2, x.data(), x.size(), labels.data(), labels.size()); });
  EXPECT_FALSE(policy->hasArm(extra));
}

TEST_P(EveryType, LabelsSurviveASnapshot) {
  World world(120, 9);
  PersistentLinearPolicy policy(specOf(GetParam()));
  addWorld(policy, world);
  for (int t = 0; t < 40; ++t) {
    const std::vector<Id> slate = policy->selectSlate(4, ArmFilter{});
    for (const Id id : slate) policy->update(id, world.reward(id));
  }
  const std::vector<std::uint8_t> bytes = policy.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam());
  EXPECT_EQ(restored.toBytes(), bytes);
  for (Label label = 0; label < kLabels; ++label) {
    ArmFilter filter;
    filter.labels = {label};
    const std::vector<Id> expected = policy->selectSlate(6, filter);
    const std::vector<Id> got = restored->selectSlate(6, filter);
    EXPECT_EQ(got, expected) << "label " << label;
    for (const Id id : got) EXPECT_EQ(world.labelOf(id), label);
  }
}

INSTANTIATE_TEST_SUITE_P(Linear, EveryType, ::testing::ValuesIn(linearPolicyTypes()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(LinUCBSlates, AreTheTopIndicesOfTheEligibleArms) {
  World world(200, 11);
  const double beta = 1.5;
  Json spec = specOf("lin-ucb");
  spec["beta"] = beta;
  PersistentLinearPolicy policy(spec);
  addWorld(policy, world);
  for (int t = 0; t < 60; ++t) {
    const ArmFilter filter = world.randomFilter();
    if (world.eligibleCount(filter) == 0) continue;
    const std::vector<Id> slate = policy->selectSlate(10, filter);
    const Eigen::MatrixXd inverse = world.gram.inverse();
    const Eigen::VectorXd theta = inverse * world.responses;
    const std::vector<Id> oracle = world.ranked(filter, [&](Id id) {
      return world.x(id).dot(theta) + beta * std::sqrt(world.x(id).dot(inverse * world.x(id)));
    });
    ASSERT_EQ(slate.size(), std::min<std::size_t>(10, oracle.size()));
    for (std::size_t i = 0; i < slate.size(); ++i) EXPECT_EQ(slate[i], oracle[i]) << "round " << t << " position " << i;
    for (const Id id : slate) {
      const double r = world.reward(id);
      policy->update(id, r);
      world.observe(id, r);
    }
  }
}

// With a sampling scale of 0 the draw is theta^ itself: the slate is the top k of x^T theta^.
TEST(ThompsonSlates, AreTheTopOfTheDrawOverTheEligibleArms) {
  for (const std::string type : {"lin-ts", "sub-ts"}) {
    World world(400, 12);
    Json spec = specOf(type);
    spec["beta"] = 0;
    spec["index"] = Json{{"type", "exact"}};
    PersistentLinearPolicy policy(spec);
    addWorld(policy, world);
    for (int t = 0; t < 60; ++t) {
      const ArmFilter filter = world.randomFilter();
      if (world.eligibleCount(filter) == 0) continue;
      const std::vector<Id> slate = policy->selectSlate(10, filter);
      const Eigen::VectorXd theta = world.gram.inverse() * world.responses;
      const std::vector<Id> oracle = world.ranked(filter, [&](Id id) { return static_cast<double>(static_cast<float>(world.x(id).dot(theta))); });
      ASSERT_EQ(slate.size(), std::min<std::size_t>(10, oracle.size()));
      // Scores are float32 in the index: compare the sets of the top 10 and the first arm (no near ties here).
      std::vector<Id> top(oracle.begin(), oracle.begin() + static_cast<std::ptrdiff_t>(slate.size()));
      EXPECT_EQ(std::set<Id>(slate.begin(), slate.end()), std::set<Id>(top.begin(), top.end())) << type << " round " << t;
      EXPECT_EQ(slate.front(), oracle.front()) << type << " round " << t;
      for (const Id id : slate) {
        const double r = world.reward(id);
        policy->update(id, r);
        world.observe(id, r);
      }
    }
  }
}

// One draw for the whole slate: the slate's first arm is what select() plays from the same state.
TEST(ThompsonSlates, LeadWithTheArmOfTheSameDraw) {
  for (const std::string type : {"lin-ts", "sub-ts"}) {
    World world(300, 13);
    PersistentLinearPolicy policy(specOf(type));
    addWorld(policy, world);
    for (int t = 0; t < 30; ++t) {
      const std::vector<std::uint8_t> bytes = policy.toBytes();
      auto twin = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), type);
      const std::vector<Id> slate = policy->selectSlate(10, ArmFilter{});
      EXPECT_EQ(slate.front(), twin->select()) << type << " round " << t;
      for (const Id id : slate) policy->update(id, world.reward(id));
    }
  }
}

// Sub-TS stays sublinear with slates: at K = 10^5 a slate of 100 (unfiltered, or with 100 shown arms
// excluded) costs a small fraction of the K inner products Linear TS's scan costs. (Below about
// 60,000 arms a filtered HnswIndex search for 100 scans instead, by its measured crossover: there
// the scan is the faster of the two.)
TEST(ThompsonSlates, SubTSSlatesOfAHundredCostFarLessThanAScan) {
  World world(100000, 16);
  Json spec{{"type", "sub-ts"}, {"dim", kDim}, {"seed", 3}, {"horizon", 2000}};
  PersistentLinearPolicy policy(spec);
  addWorld(policy, world);
  policy->buildIndex(world.ids.size());
  for (int t = 0; t < 50; ++t) {
    const Id arm = policy->select();
    policy->update(arm, world.reward(arm));
  }
  ArmFilter excluded;
  excluded.exclude.assign(world.ids.begin(), world.ids.begin() + 100);
  for (const ArmFilter& filter : {ArmFilter{}, excluded}) {
    const auto before = policy->stats()["innerProducts"].get<std::uint64_t>();
    for (int t = 0; t < 20; ++t) {
      const std::vector<Id> slate = policy->selectSlate(100, filter);
      ASSERT_EQ(slate.size(), 100u);
      policy->update(slate.front(), world.reward(slate.front()));
    }
    const auto perSlate = (policy->stats()["innerProducts"].get<std::uint64_t>() - before) / 20;
    EXPECT_LT(perSlate, world.ids.size() / 5) << "inner products per slate of 100, " << filter.exclude.size() << " excluded";
  }
}

// Over a catalogue: the catalogue's labels are the arms' labels.
TEST(CatalogueSlates, UsersHonourTheCataloguesLabels) {
  World world(500, 14);
  for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts"}) {
    auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"seed", 1}});
    catalogue->add(world.ids.data(), world.ids.size(), world.features.data(), world.features.size(), world.labels.data(),
                   world.labels.size());
    PersistentLinearPolicy user(Json{{"type", type}, {"seed", 4}}, catalogue);
    for (int t = 0; t < 80; ++t) {
      const ArmFilter filter = world.randomFilter();
      if (world.eligibleCount(filter) == 0) {
        EXPECT_EQ(codeOf([&] { user->selectSlate(3, filter); }), ErrorCode::Empty);
        continue;
      }
      const Id arm = user->select(filter);
      EXPECT_TRUE(world.eligible(arm, filter)) << type;
      const std::vector<Id> slate = user->selectSlate(10, filter);
      expectEligibleSlate(slate, 10, filter, world);
      for (const Id id : slate) user->update(id, world.reward(id));
    }
    const std::vector<std::uint8_t> bytes = catalogue->toBytes();
    auto restored = Catalogue::fromBytes(bytes.data(), bytes.size());
    for (const Id id : world.ids) ASSERT_EQ(restored->labelOf(id), catalogue->labelOf(id));
  }
}

// Elimination: the slate's arms come stage by stage, the most uncertain first within a stage, and
// from arms still in play while enough eligible ones are.
TEST(EliminationSlates, TakeArmsInPlayStageByStageByUncertainty) {
  for (const std::string type : {"linear-elim", "sub-elim"}) {
    World world(300, 15);
    PersistentLinearPolicy policy(specOf(type));
    addWorld(policy, world);
    const auto& elimination = dynamic_cast<const StagedElimination&>(*policy);
    for (int t = 0; t < 200; ++t) {
      const ArmFilter filter = t % 2 == 0 ? ArmFilter{} : world.randomFilter();
      if (world.eligibleCount(filter) == 0) continue;
      const std::vector<Id> slate = policy->selectSlate(8, filter);
      expectEligibleSlate(slate, 8, filter, world);
      std::size_t inPlay = 0;
      for (const Id id : world.ids) inPlay += world.eligible(id, filter) && elimination.stageOf(id) >= 0 ? 1 : 0;
      const Eigen::MatrixXd inverse = world.gram.inverse();
      for (std::size_t i = 0; i < slate.size(); ++i) {
        if (i < inPlay) EXPECT_GE(elimination.stageOf(slate[i]), 0) << type << " round " << t;
        if (i == 0 || elimination.stageOf(slate[i]) < 0) continue;
        EXPECT_GE(elimination.stageOf(slate[i]), elimination.stageOf(slate[i - 1])) << type << " round " << t;
        if (elimination.stageOf(slate[i]) == elimination.stageOf(slate[i - 1]) && type == "linear-elim") {
          const double previous = world.x(slate[i - 1]).dot(inverse * world.x(slate[i - 1]));
          EXPECT_GE(previous * (1 + 1e-5), world.x(slate[i]).dot(inverse * world.x(slate[i]))) << type << " round " << t;
        }
      }
      for (const Id id : slate) {
        const double r = world.reward(id);
        policy->update(id, r);
        world.observe(id, r);
      }
    }
    EXPECT_TRUE(elimination.heapsCoverEveryArm());
    EXPECT_GT(elimination.stats()["eliminated"].get<std::uint64_t>(), 0u) << type;
  }
}

Json slateConfig(const std::string& type, std::int64_t slate) {
  return Json{{"environment", {{"type", "linear"}, {"dim", 8}, {"arms", 2000}, {"noise", 1.0}, {"seed", 3}}},
              {"policy", {{"type", type}}},
              {"horizon", 600},
              {"seed", 5},
              {"recordEvery", 1},
              {"slate", slate}};
}

double regretBetween(const SimulationRun& run, std::size_t from, std::size_t to) {
  return run.cumulativeRegret[to - 1] - (from == 0 ? 0.0 : run.cumulativeRegret[from - 1]);
}

TEST(SimulateSlates, LearnAndReportTheSlatesRegret) {
  for (const std::string type : {"lin-ts", "sub-ts", "lin-ucb", "sub-elim"}) {
    const SimulationResult result = simulate(slateConfig(type, 10));
    const SimulationRun& run = result.runs.front();
    const double first = regretBetween(run, 0, 50) / 50, last = regretBetween(run, 550, 600) / 50;
    EXPECT_LT(last, 0.5 * first) << type << ": slate regret per round " << first << " at first, " << last << " at the end";
  }
  // A uniformly random slate's expected regret per round: the best 10 means minus 10 times the mean.
  const Json config = slateConfig("lin-ts", 10);
  const auto environment = makeLinearEnvironment(config["environment"], 600, 5);
  const EnvironmentArms& arms = environment->arms();
  double meanOfAll = 0.0;
  for (const Id id : arms.ids()) meanOfAll += arms.expectedReward(id) / static_cast<double>(arms.size());
  const double randomSlate = arms.bestExpectedSum(10) - 10 * meanOfAll;
  const SimulationRun learner = simulate(config).runs.front();
  EXPECT_LT(learner.cumulativeRegret.back() / 600, 0.3 * randomSlate);
  expectError(ErrorCode::InvalidArgument, "slate", [&] {
    Json ratings = slateConfig("lin-ts", 10);
    ratings["environment"]["users"] = 3;
    simulate(ratings);
  });
}

}  // namespace linear_slates_test
}  // namespace sublinear::testing
