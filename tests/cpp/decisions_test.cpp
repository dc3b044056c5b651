// Decisions (API v2 decide / reward): decide() chooses what select() chooses; rewards by event id
// update the model exactly as update() does, in any order, also after the arm left the set or the
// catalogue; pending decisions are bounded, saved and reloaded; propensities are exact for the
// exploration mix of a deterministic policy and, for Thompson sampling, match the frequencies with
// which the policy shows each arm (empirical choice frequencies as the oracle).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace decisions_test {

struct Arms {
  int dim;
  std::vector<Id> ids;
  std::vector<double> features;
  std::vector<Label> labels;
  std::vector<double> thetaStar;

  Arms(std::size_t count, int d, std::uint64_t seed, Label labelCount = 4) : dim(d) {
    Random random(seed);
    for (int j = 0; j < d; ++j) thetaStar.push_back(random.normal() / std::sqrt(static_cast<double>(d)));
    for (std::size_t i = 0; i < count; ++i) {
      ids.push_back(static_cast<Id>(10 + 7 * i));
      labels.push_back(static_cast<Label>(random.uniformInt(labelCount)));
      for (int j = 0; j < d; ++j) features.push_back(random.normal() / std::sqrt(static_cast<double>(d)));
    }
  }
  std::size_t rowOf(Id id) const { return static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin()); }
  double mean(Id id) const {
    double sum = 0.0;
    for (int j = 0; j < dim; ++j) sum += features[rowOf(id) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)] * thetaStar[static_cast<std::size_t>(j)];
    return sum;
  }
  void addTo(LinearPolicy& policy) const {
    policy.addArms(ids.data(), ids.size(), features.data(), features.size(), labels.data(), labels.size());
  }
};

std::unique_ptr<LinearPolicy> makePolicy(const std::string& type, const Arms& arms, Json options = Json::object()) {
  options["type"] = type;
  options["seed"] = 3;
  auto policy = makeLinearPolicy(arms.dim, options);
  arms.addTo(*policy);
  return policy;
}

const std::vector<std::string>& allTypes() {
  static const std::vector<std::string> types = linearPolicyTypes();
  return types;
}

bool deterministic(const std::string& type) { return type != "lin-ts" && type != "sub-ts"; }

TEST(Decisions, DecideChoosesAsSelectAndRewardUpdatesAsUpdate) {
  const Arms arms(60, 5, 11);
  for (const std::string& type : allTypes()) {
    SCOPED_TRACE(type);
    auto decided = makePolicy(type, arms);
    auto selected = makePolicy(type, arms);
    Random noise(4);
    // Thompson sampling's propensity estimate draws from a stream of its own, derived from the
    // policy's engine without advancing it: every step's choice is the selection's, slates too.
    const int steps = 40;
    ArmFilter filter;
    filter.exclude = {arms.ids[0], arms.ids[7]};
    for (int t = 0; t < steps; ++t) {
      if (t % 5 == 4) {
        const Decision slate = decided->decide(3, filter, true);
        const std::vector<Id> shown = selected->selectSlate(3, filter);
        ASSERT_EQ(slate.arms, shown);
        const std::vector<double> rewards{0.5, 0.0, 1.0};
        decided->reward(slate.eventId, rewards.data(), rewards.size());
        for (std::size_t j = 0; j < shown.size(); ++j) selected->update(shown[j], rewards[j]);
        continue;
      }
      const Decision decision = decided->decide(1, ArmFilter{}, false);
      const Id arm = selected->select();
      ASSERT_EQ(decision.arms.size(), 1u);
      ASSERT_EQ(decision.arms[0], arm);
      ASSERT_EQ(decision.eventId, static_cast<std::uint64_t>(t + 1));
      if (deterministic(type)) {
        EXPECT_EQ(decision.propensities[0], 1.0);
        EXPECT_EQ(decision.propensityErrors[0], 0.0);
      } else {
        EXPECT_GT(decision.propensities[0], 0.0);
        EXPECT_LE(decision.propensities[0], 1.0);
      }
      const double r = arms.mean(arm) + 0.1 * noise.normal();
      decided->reward(decision.eventId, &r, 1);
      selected->update(arm, r);
      ASSERT_EQ(decided->theta(), selected->theta());
    }
    EXPECT_EQ(decided->stats()["decisions"]["rewarded"], steps);
    EXPECT_EQ(decided->stats()["decisions"]["pending"], 0);
  }
}

TEST(Decisions, LateRewardsInAnyOrderAlsoForRemovedArms) {
  const Arms arms(30, 4, 12);
  for (const std::string& type : allTypes()) {
    SCOPED_TRACE(type);
    auto policy = makePolicy(type, arms);
    auto reference = makePolicy(type, arms);
    std::vector<Decision> decisions;
    for (int t = 0; t < 6; ++t) decisions.push_back(policy->decide(2, ArmFilter{}, true));
    // The second decision's first arm leaves the set before its reward comes back (an elimination
    // policy may refuse to remove the arm that sets its threshold: then another shown arm leaves).
    const Id leaving = decisions[1].arms[0];
    try {
      policy->removeArms(&leaving, 1);
    } catch (const Error&) {
      policy->removeArms(&decisions[1].arms[1], 1);
    }
    // Rewards in reverse order; the reference sees the same observations by update().
    for (auto it = decisions.rbegin(); it != decisions.rend(); ++it) {
      const double rewards[2] = {arms.mean(it->arms[0]), arms.mean(it->arms[1]) - 0.5};
      policy->reward(it->eventId, rewards, 2);
      reference->update(it->arms[0], rewards[0]);
      reference->update(it->arms[1], rewards[1]);
    }
    EXPECT_TRUE(policy->theta().isApprox(reference->theta(), 1e-12));
    const double again[2] = {1.0, 1.0};
    expectError(ErrorCode::InvalidArgument, "already rewarded", [&] { policy->reward(decisions[3].eventId, again, 2); });
    expectError(ErrorCode::UnknownId, "was not decided", [&] { policy->reward(99, again, 2); });
    expectError(ErrorCode::UnknownId, "was not decided", [&] { policy->reward(0, again, 2); });
  }
}

TEST(Decisions, BadRewardsLeaveTheDecisionPending) {
  const Arms arms(20, 3, 13);
  auto policy = makePolicy("lin-ucb", arms);
  const Decision decision = policy->decide(3, ArmFilter{}, true);
  const Vector before = policy->theta();
  const double two[2] = {1.0, 2.0};
  expectError(ErrorCode::InvalidArgument, "showed 3 arms", [&] { policy->reward(decision.eventId, two, 2); });
  const double bad[3] = {1.0, NAN, 0.0};
  expectError(ErrorCode::NonFinite, "finite", [&] { policy->reward(decision.eventId, bad, 3); });
  const double huge[3] = {1.0, 0.0, 1e16};
  expectError(ErrorCode::InvalidArgument, "1e15", [&] { policy->reward(decision.eventId, huge, 3); });
  EXPECT_EQ(policy->theta(), before);
  EXPECT_EQ(policy->stats()["updates"], 0);
  const double good[3] = {1.0, 0.0, 0.5};
  policy->reward(decision.eventId, good, 3);
  EXPECT_EQ(policy->stats()["updates"], 3);
}

TEST(Decisions, PendingDecisionsAreBounded) {
  const Arms arms(20, 3, 14);
  auto policy = makePolicy("sub-ts", arms, Json{{"maxPending", 3}});
  std::vector<std::uint64_t> events;
  for (int t = 0; t < 5; ++t) events.push_back(policy->decide(1, ArmFilter{}, false).eventId);
  const Json stats = policy->stats()["decisions"];
  EXPECT_EQ(stats["decisions"], 5);
  EXPECT_EQ(stats["pending"], 3);
  EXPECT_EQ(stats["expired"], 2);
  EXPECT_EQ(stats["pendingBytes"], 3 * (4 + 3 * 8 + 8));
  const double r = 1.0;
  expectError(ErrorCode::UnknownId, "has expired", [&] { policy->reward(events[0], &r, 1); });
  expectError(ErrorCode::UnknownId, "has expired", [&] { policy->reward(events[1], &r, 1); });
  policy->reward(events[3], &r, 1);
  expectError(ErrorCode::InvalidArgument, "already rewarded", [&] { policy->reward(events[3], &r, 1); });
  // Many more decisions than maxPending: the memory stays at three decisions.
  for (int t = 0; t < 200; ++t) policy->decide(2, ArmFilter{}, true);
  EXPECT_EQ(policy->stats()["decisions"]["pending"], 3);
  EXPECT_EQ(policy->stats()["decisions"]["expired"], 201);
  // Long after, with every later decision expired: an event that expired is still told from one that
  // was rewarded (the expired ids are two runs, 1-3 and 5 on).
  expectError(ErrorCode::UnknownId, "has expired", [&] { policy->reward(events[2], &r, 1); });
  expectError(ErrorCode::InvalidArgument, "already rewarded", [&] { policy->reward(events[3], &r, 1); });
  // Rewards that alternate with expiries make a run of each expired id: beyond maxPending runs the
  // oldest are dropped, and their ids are UNKNOWN_ID, saying that either may have happened.
  std::vector<std::uint64_t> rewardedLater;
  for (int t = 0; t < 20; ++t) {
    const std::uint64_t id = policy->decide(1, ArmFilter{}, false).eventId;
    if (t % 2 == 0) {
      policy->reward(id, &r, 1);
      rewardedLater.push_back(id);
    }
    policy->decide(1, ArmFilter{}, false);
    policy->decide(1, ArmFilter{}, false);
  }
  expectError(ErrorCode::UnknownId, "too long ago", [&] { policy->reward(events[3], &r, 1); });
  expectError(ErrorCode::UnknownId, "too long ago", [&] { policy->reward(rewardedLater.front(), &r, 1); });
  expectError(ErrorCode::InvalidArgument, "already rewarded", [&] { policy->reward(rewardedLater.back(), &r, 1); });
}

TEST(Decisions, PendingDecisionsAreSavedAndContinueExactly) {
  const Arms arms(40, 4, 15);
  for (const std::string& type : allTypes()) {
    SCOPED_TRACE(type);
    PersistentLinearPolicy original(Json{{"type", type}, {"dim", arms.dim}, {"seed", 2}, {"explore", 0.2}});
    original->addArms(arms.ids.data(), arms.ids.size(), arms.features.data(), arms.features.size(), arms.labels.data(), arms.labels.size());
    std::vector<Decision> decisions;
    for (int t = 0; t < 4; ++t) decisions.push_back(original->decide(2, ArmFilter{}, t % 2 == 1));
    const double r = 0.5;
    original->reward(decisions[0].eventId, &r, 1);
    const std::vector<std::uint8_t> bytes = original.toBytes();
    auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), type);
    EXPECT_EQ(restored.toBytes(), bytes);
    for (PersistentLinearPolicy* policy : {&original, &restored}) {
      const double two[2] = {0.25, -0.5};
      (*policy)->reward(decisions[3].eventId, two, 2);
      (*policy)->reward(decisions[2].eventId, &r, 1);
      expectError(ErrorCode::InvalidArgument, "already rewarded", [&] { (*policy)->reward(decisions[0].eventId, &r, 1); });
    }
    const Decision next = original->decide(1, ArmFilter{}, false);
    const Decision again = restored->decide(1, ArmFilter{}, false);
    EXPECT_EQ(next.arms, again.arms);
    EXPECT_EQ(next.eventId, again.eventId);
    EXPECT_EQ(next.propensities, again.propensities);
    EXPECT_EQ(original.toBytes(), restored.toBytes());
  }
}

// The exploration mix of a deterministic policy: exact propensities, which the frequencies match.
TEST(Decisions, ExplorationPropensitiesAreExactAndMatchFrequencies) {
  const Arms arms(25, 3, 16);
  auto policy = makePolicy("lin-ucb", arms, Json{{"explore", 0.3}, {"maxPending", 10}});
  ArmFilter filter;
  filter.labels = {1, 2};
  filter.exclude = {arms.ids[0], arms.ids[1], arms.ids[2]};
  std::size_t eligible = 0;
  for (std::size_t i = 0; i < arms.ids.size(); ++i) {
    const bool admitted = (arms.labels[i] == 1 || arms.labels[i] == 2) && i > 2;
    eligible += admitted ? 1 : 0;
  }
  ASSERT_GT(eligible, 4u);
  const Id best = policy->select(filter);
  const double uniform = 0.3 / static_cast<double>(eligible);
  std::map<Id, int> counts;
  const int n = 20000;
  for (int t = 0; t < n; ++t) {
    const Decision decision = policy->decide(1, filter, false);
    const Id arm = decision.arms[0];
    ++counts[arm];
    EXPECT_EQ(decision.propensities[0], arm == best ? 0.7 + uniform : uniform);
    EXPECT_EQ(decision.propensityErrors[0], 0.0);
    ASSERT_TRUE(arms.labels[arms.rowOf(arm)] == 1 || arms.labels[arms.rowOf(arm)] == 2);
    ASSERT_GT(arms.rowOf(arm), 2u);
  }
  EXPECT_EQ(counts.size(), eligible);
  for (const auto& [arm, count] : counts) {
    const double p = arm == best ? 0.7 + uniform : uniform;
    EXPECT_NEAR(count / static_cast<double>(n), p, 4.0 * std::sqrt(p * (1 - p) / n)) << "arm " << arm;
  }
  // A slate of 4: per position, the explored arms are uniform over the eligible ones.
  std::map<std::pair<std::size_t, Id>, int> positions;
  const std::vector<Id> ranked = policy->selectSlate(4, filter);
  for (int t = 0; t < n; ++t) {
    const Decision decision = policy->decide(4, filter, true);
    ASSERT_EQ(decision.arms.size(), 4u);
    for (std::size_t j = 0; j < 4; ++j) {
      ++positions[{j, decision.arms[j]}];
      EXPECT_EQ(decision.propensities[j], decision.arms[j] == ranked[j] ? 0.7 + uniform : uniform);
    }
  }
  for (std::size_t j = 0; j < 4; ++j) {
    const double p = 0.7 + uniform;
    const double frequency = positions[{j, ranked[j]}] / static_cast<double>(n);
    EXPECT_NEAR(frequency, p, 4.0 * std::sqrt(p * (1 - p) / n));
  }
}

// Thompson sampling: the propensity estimates, averaged over the decisions that showed an arm,
// against the frequency with which decisions show it (the posterior does not move without rewards).
void expectPropensitiesMatchFrequencies(const std::string& type, std::size_t armCount, std::size_t k, double tolerance,
                                        const ArmFilter& filter = {}) {
  const Arms arms(armCount, 4, 17);
  auto policy = makePolicy(type, arms, Json{{"maxPending", 4}});
  Random noise(5);
  // A posterior with some spread: a few hundred rewards on random arms.
  Random pick(6);
  for (int t = 0; t < 150; ++t) {
    const Id arm = arms.ids[static_cast<std::size_t>(pick.uniformInt(arms.ids.size()))];
    policy->update(arm, arms.mean(arm) + 0.3 * noise.normal());
  }
  std::map<std::pair<std::size_t, Id>, int> counts;
  std::map<std::pair<std::size_t, Id>, double> propensitySums;
  const int n = 3000;
  for (int t = 0; t < n; ++t) {
    const Decision decision = policy->decide(k, filter, k > 1);
    for (std::size_t j = 0; j < decision.arms.size(); ++j) {
      if (!filter.labels.empty()) {
        EXPECT_EQ(arms.labels[arms.rowOf(decision.arms[j])], filter.labels.front());
      }
      ++counts[{j, decision.arms[j]}];
      propensitySums[{j, decision.arms[j]}] += decision.propensities[j];
      EXPECT_GT(decision.propensityErrors[j], 0.0);
    }
  }
  int compared = 0;
  for (const auto& [key, count] : counts) {
    const double frequency = count / static_cast<double>(n);
    if (frequency < 0.03) continue;
    ++compared;
    EXPECT_NEAR(propensitySums[key] / count, frequency, tolerance) << "position " << key.first << " arm " << key.second;
  }
  EXPECT_GE(compared, 2);
}

TEST(Decisions, ThompsonPropensitiesMatchChoiceFrequencies) {
  expectPropensitiesMatchFrequencies("lin-ts", 12, 1, 0.03);
  expectPropensitiesMatchFrequencies("sub-ts", 12, 1, 0.03);
  // More arms than the estimate enumerates: it ranks the candidates the searches find.
  expectPropensitiesMatchFrequencies("lin-ts", 2000, 1, 0.04);
  expectPropensitiesMatchFrequencies("lin-ts", 12, 3, 0.03);
  // A filter leaving about 500 of 2,000 arms: the candidates come from one exact pass over them for
  // both of the estimate's queries.
  ArmFilter oneLabel;
  oneLabel.labels = {2};
  expectPropensitiesMatchFrequencies("sub-ts", 2000, 1, 0.04, oneLabel);
  expectPropensitiesMatchFrequencies("lin-ts", 2000, 2, 0.04, oneLabel);
}

// Above 64 dimensions Linear TS and Sub-TS learn in the arms' subspace: the propensity's candidate
// searches query the index in the arms' coordinates (more arms than the estimate enumerates).
TEST(Decisions, ThompsonPropensitiesInTheArmsSubspace) {
  const Arms arms(600, 80, 21);
  for (const std::string type : {"lin-ts", "sub-ts"}) {
    SCOPED_TRACE(type);
    auto policy = makePolicy(type, arms);
    ASSERT_TRUE(policy->stats().contains("subspace"));
    for (int t = 0; t < 40; ++t) {
      const Decision decision = policy->decide(2, ArmFilter{}, true);
      for (const double p : decision.propensities) {
        EXPECT_GT(p, 0.0);
        EXPECT_LE(p, 1.0);
      }
      const double rewards[2] = {arms.mean(decision.arms[0]), arms.mean(decision.arms[1])};
      policy->reward(decision.eventId, rewards, 2);
    }
  }
}

TEST(Decisions, OverACatalogueARewardOutlivesTheArm) {
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", 4}, {"index", Json{{"type", "exact"}}}, {"seed", 5}});
  const Arms arms(50, 4, 18);
  catalogue->add(arms.ids.data(), arms.ids.size(), arms.features.data(), arms.features.size(), arms.labels.data(), arms.labels.size());
  for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts"}) {
    SCOPED_TRACE(type);
    auto user = makeLinearPolicy(catalogue, Json{{"type", type}, {"seed", 1}});
    const Decision decision = user->decide(1, ArmFilter{}, false);
    const Id arm = decision.arms[0];
    const std::size_t row = arms.rowOf(arm);
    catalogue->remove(&arm, 1);
    const double r = 2.0;
    user->reward(decision.eventId, &r, 1);
    // V = I + x x^T, b = r x: theta^ = r x / (1 + |x|^2).
    Eigen::Map<const Vector> x(arms.features.data() + row * 4, 4);
    EXPECT_TRUE(user->theta().isApprox(r * x / (1.0 + x.squaredNorm()), 1e-12));
    const std::vector<double> back(arms.features.begin() + static_cast<std::ptrdiff_t>(row * 4),
                                   arms.features.begin() + static_cast<std::ptrdiff_t>(row * 4 + 4));
    catalogue->add(&arm, 1, back.data(), back.size());
  }
}

TEST(Decisions, OptionsAreChecked) {
  const Arms arms(5, 2, 19);
  expectError(ErrorCode::InvalidArgument, "explore", [&] { makePolicy("lin-ucb", arms, Json{{"explore", 1.0}}); });
  expectError(ErrorCode::InvalidArgument, "maxPending", [&] { makePolicy("lin-ts", arms, Json{{"maxPending", 0}}); });
  expectError(ErrorCode::InvalidArgument, "propensityDraws", [&] { makePolicy("sub-ts", arms, Json{{"propensityDraws", 0}}); });
}

}  // namespace decisions_test
}  // namespace sublinear::testing
