#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/lin_ucb.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "linear_test_problem.hpp"

using namespace sublinear;
using sublinear::testing::GaussianProblem;

// The arm of largest index theta^T x + radius ||x||_{V^-1} (ties to the smaller id), recomputed here
// arm by arm from the policy's model after its select (which leaves the model as it was): an oracle
// for LinUCB's selection pass itself, which skips the square root of arms clearly below the best. A
// choice within 1e-9 of the best index is accepted (a tie to rounding, not a skipped arm).
void expectLargestIndex(LinearPolicy& policy, const std::map<Id, Vector>& arms, Id chosen, const std::string& where) {
  const auto& ucb = dynamic_cast<const LinUCB&>(policy);
  const Vector theta = policy.theta();
  const double radius = policy.stats()["radius"].get<double>();
  const auto index = [&](Id id) { return arms.at(id).dot(theta) + radius * std::sqrt(ucb.directWidth(id)); };
  double best = -INFINITY;
  for (const auto& entry : arms) best = std::max(best, index(entry.first));
  EXPECT_GE(index(chosen), best - 1e-9 * (1.0 + std::abs(best))) << where;
}

// `count` arms of the problem, `first` among them, take new features (appended to `features`).
std::vector<Id> changeArms(GaussianProblem& problem, Id first, std::size_t count, std::vector<double>& features) {
  std::vector<Id> changed{first};
  for (auto it = problem.arms.begin(); changed.size() < count; ++it) {
    if (it->first != first) changed.push_back(it->first);
  }
  for (const Id id : changed) {
    problem.arms[id] = problem.gaussian();
    features.insert(features.end(), problem.arms[id].data(), problem.arms[id].data() + problem.dim);
  }
  return changed;
}

// LinUCB keeps its widths by rank-one corrections (a slice of K / d recomputed exactly at each
// select), over its own arms and over a catalogue (the widths moved with the catalogue's rows when
// it changes, and computed afresh for arms whose features it changed); `widths: 'direct'` computes
// them at every select. Fed the same arms and rewards, the three choose the same arms, step for
// step, through adds, removals, changed features, slates and saves and reloads (the catalogue user's reload happens before the catalogue changes,
// so it catches up at its next call): the corrections are the direct computation, to rounding far
// below any gap between two arms' indices.
TEST(LinUCBWidths, RankOneCorrectionsChooseWhatTheDirectComputationChooses) {
  for (const int dim : {3, 8, 24, 96}) {
    GaussianProblem problem(dim, 40 + static_cast<std::uint64_t>(dim), 0.5);
    auto own = std::make_unique<PersistentLinearPolicy>(Json{{"type", "lin-ucb"}, {"dim", dim}, {"subspace", "none"}});
    auto catalogue = std::make_shared<Catalogue>(Json{{"dim", dim}, {"index", {{"type", "exact"}}}});
    // In all d dimensions, as the policy over its own arms (above 64 a user would learn in the
    // catalogue's subspace: catalogue_subspace_scan_test.cpp compares that with its oracle).
    auto kept = std::make_unique<PersistentLinearPolicy>(Json{{"type", "lin-ucb"}, {"subspace", "none"}}, catalogue);
    PersistentLinearPolicy direct(Json{{"type", "lin-ucb"}, {"widths", "direct"}, {"subspace", "none"}}, catalogue);
    const auto addArms = [&](std::size_t count) {
      std::vector<double> features;
      const std::vector<Id> ids = problem.newArms(count, features);
      (*own)->addArms(ids.data(), ids.size(), features.data(), features.size());
      catalogue->add(ids.data(), ids.size(), features.data(), features.size());
    };
    addArms(500);
    int compared = 0;
    Id lastChosen = 0;
    for (int step = 0; step < 600; ++step) {
      if (step == 300 || step == 449) {
        const auto bytes = own->toBytes();
        own = std::make_unique<PersistentLinearPolicy>(PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "lin-ucb"));
        const auto userBytes = kept->toBytes();
        kept = std::make_unique<PersistentLinearPolicy>(PersistentLinearPolicy::fromBytes(userBytes.data(), userBytes.size(), "lin-ucb", catalogue));
      }
      if (step % 50 == 49) {
        // Remove three arms (rows move) and add five.
        std::vector<Id> gone;
        for (auto it = problem.arms.begin(); gone.size() < 3; ++it) gone.push_back(it->first);
        (*own)->removeArms(gone.data(), gone.size());
        catalogue->remove(gone.data(), gone.size());
        for (const Id id : gone) problem.arms.erase(id);
        addArms(5);
      }
      if (step % 50 == 24) {
        // Four arms take other features, the last chosen among them (its width had shrunk): in the
        // catalogue in place (setFeatures), over the own arms as a removal and an addition.
        std::vector<double> features;
        const std::vector<Id> changed = changeArms(problem, lastChosen, 4, features);
        (*own)->removeArms(changed.data(), changed.size());
        (*own)->addArms(changed.data(), changed.size(), features.data(), features.size());
        catalogue->setFeatures(changed.data(), changed.size(), features.data(), features.size());
      }
      if (step % 7 == 3) {
        // A slate of 4, every position fed back.
        const std::vector<Id> slate = direct->selectSlate(4, ArmFilter{});
        ASSERT_EQ((*own)->selectSlate(4, ArmFilter{}), slate) << "dim " << dim << " step " << step;
        ASSERT_EQ((*kept)->selectSlate(4, ArmFilter{}), slate) << "dim " << dim << " step " << step;
        for (const Id arm : slate) {
          const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
          (*own)->update(arm, reward);
          (*kept)->update(arm, reward);
          direct->update(arm, reward);
        }
      } else {
        const Id arm = direct->select();
        lastChosen = arm;
        expectLargestIndex(*direct, problem.arms, arm, "dim " + std::to_string(dim) + " step " + std::to_string(step));
        ASSERT_EQ((*own)->select(), arm) << "dim " << dim << " step " << step;
        ASSERT_EQ((*kept)->select(), arm) << "dim " << dim << " step " << step;
        const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
        (*own)->update(arm, reward);
        (*kept)->update(arm, reward);
        direct->update(arm, reward);
      }
      ++compared;
    }
    EXPECT_EQ(compared, 600);
    EXPECT_EQ((*kept)->stats()["widths"], "kept");
    EXPECT_EQ(direct->stats()["widths"], "direct");
  }
}

// The kept widths themselves, not only the choices: after a run with catalogue changes (arms added,
// removed, and given other features), every kept
// width equals ||x||^2_{V^-1} computed from the user's V^-1 and the double features, to the float
// copy's rounding: the corrections read the rows as floats (2^-24 relative an entry), and their
// errors add up between two exact recomputations of a width (relative 2e-6; about 1e-8 here, 5e-15
// when the corrections read the doubles, tests/cpp/elimination_widths_test.cpp).
TEST(LinUCBWidths, KeptWidthsOverACatalogueEqualTheDirectOnes) {
  constexpr int kDim = 40;
  GaussianProblem problem(kDim, 7, 0.5);
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"index", {{"type", "exact"}}}});
  const auto addArms = [&](std::size_t count) {
    std::vector<double> features;
    const std::vector<Id> ids = problem.newArms(count, features);
    catalogue->add(ids.data(), ids.size(), features.data(), features.size());
  };
  // Three of the arm set's blocks of 4,096 rows, which the corrections' scan walks one at a time.
  addArms(9000);
  auto user = std::make_shared<LinUCB>(catalogue, Json{{"seed", 1}});
  Id lastChosen = 0;
  for (int step = 0; step < 400; ++step) {
    if (step % 97 == 96) {
      std::vector<Id> gone;
      for (auto it = problem.arms.begin(); gone.size() < 20; ++it) gone.push_back(it->first);
      catalogue->remove(gone.data(), gone.size());
      for (const Id id : gone) problem.arms.erase(id);
      addArms(30);
    }
    if (step % 97 == 40) {
      // 25 arms take other features in place, among them the last one chosen.
      std::vector<double> features;
      const std::vector<Id> changed = changeArms(problem, lastChosen, 25, features);
      catalogue->setFeatures(changed.data(), changed.size(), features.data(), features.size());
    }
    const Id arm = user->select(ArmFilter{});
    lastChosen = arm;
    user->update(arm, problem.mean(arm) + problem.noise * problem.random.normal());
    // Every fifth step a second observation: two corrections pending at the next select.
    if (step % 5 == 0) user->update(arm, problem.mean(arm) + problem.noise * problem.random.normal());
  }
  user->select(ArmFilter{});  // brings the widths up to date with the last update
  const Json stats = user->stats();
  EXPECT_EQ(stats["perArmBytes"].get<std::size_t>(), 12u * catalogue->size());
  const Vector theta = user->theta();
  EXPECT_GT(theta.norm(), 0.0);
  std::size_t checked = 0;
  for (const auto& [id, x] : problem.arms) {
    ASSERT_TRUE(catalogue->has(id));
    const double direct = user->width(id);
    const double expected = user->directWidth(id);
    EXPECT_NEAR(direct, expected, 2e-6 * expected) << "arm " << id;
    ++checked;
  }
  EXPECT_EQ(checked, catalogue->size());
}
