#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/elimination_stages.hpp"
#include "sublinear/linear/kept_widths.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/scan_elim.hpp"
#include "linear_test_problem.hpp"

using namespace sublinear;
using sublinear::testing::GaussianProblem;

namespace elimination_widths_test {
const ScanElim& scanElimOf(const PersistentLinearPolicy& holder) { return dynamic_cast<const ScanElim&>(*holder); }

std::vector<double> featuresOf(const GaussianProblem& problem, const std::vector<Id>& ids) {
  std::vector<double> features;
  for (const Id id : ids) features.insert(features.end(), problem.arms.at(id).data(), problem.arms.at(id).data() + problem.dim);
  return features;
}

// The kept widths are the direct computation x^T V^-1 x, to rounding (the float copy's, when the
// corrections read it), with either form of the regression, through observations and arms
// appended, removed and moved: told ahead (LinUCB's whole form) or without notice over a subset of
// rows (the elimination policies' form, every third row left out and stale).
TEST(KeptWidths, StayTheDirectComputationThroughObservationsAndChanges) {
  for (const bool subset : {false, true}) {
    for (const auto form : {RidgeRegression::Form::Factored, RidgeRegression::Form::InverseOnly}) {
      for (const bool floats : {false, true}) {
        const int dim = 12;
        GaussianProblem problem(dim, 5);
        ArmSet arms(dim);
        // With the float copy the corrections and means read float rows (the exact slice the doubles).
        if (floats) arms.keepFloatRows();
        RidgeRegression ridge(dim, 1.0, form);
        KeptWidths widths(dim);
        const auto subsetRows = [&] {
          std::vector<std::uint32_t> rows;
          for (std::size_t row = 0; row < arms.size(); ++row) {
            if (arms.idAt(row) % 3 != 0) rows.push_back(static_cast<std::uint32_t>(row));
          }
          return rows;
        };
        const auto add = [&](std::size_t count) {
          std::vector<Id> ids;
          for (std::size_t i = 0; i < count; ++i) ids.push_back(problem.nextId), problem.arms.emplace(problem.nextId++, problem.gaussian());
          const std::vector<double> features = featuresOf(problem, ids);
          arms.add(ids.data(), ids.size(), features.data());
          if (!subset) widths.appendRows(arms, ridge, count);
        };
        add(300);
        double largestError = 0.0;
        for (int step = 0; step < 200; ++step) {
          if (step % 20 == 7) {
            const std::vector<Id> before = arms.ids();
            std::vector<Id> gone{before[3], before[100], before.back()};
            if (!subset) widths.followRemoval(arms, gone.data(), gone.size());
            arms.remove(gone.data(), gone.size());
            for (const Id id : gone) problem.arms.erase(id);
            add(4);
            if (subset) {
              std::vector<std::size_t> source(arms.size(), KeptWidths::kNew);
              for (std::size_t old = 0; old < before.size(); ++old) {
                if (arms.contains(before[old])) source[arms.rowOf(before[old])] = old;
              }
              widths.remap(arms, ridge, source, subsetRows());
            }
          }
          const std::vector<std::uint32_t> rows = subsetRows();
          if (subset) {
            std::vector<double> means(rows.size());
            widths.bringUpToDate(arms, ridge, rows, ridge.theta(), means.data());
            for (std::size_t i = 0; i < rows.size(); ++i) {
              ASSERT_NEAR(means[i], Eigen::Map<const Vector>(arms.rowData(rows[i]), dim).dot(ridge.theta()), floats ? 1e-6 : 1e-12);
            }
          } else {
            std::vector<double> means(arms.size());
            widths.bringUpToDateEvery(arms, ridge, ridge.theta(), means.data());
            for (std::size_t row = 0; row < arms.size(); ++row) {
              ASSERT_NEAR(means[row], Eigen::Map<const Vector>(arms.rowData(row), dim).dot(ridge.theta()), floats ? 1e-6 : 1e-12);
            }
          }
          ASSERT_EQ(widths.size(), arms.size());
          for (std::size_t row = 0; row < arms.size(); ++row) {
            if (subset && arms.idAt(row) % 3 == 0) continue;
            const Eigen::Map<const Vector> x(arms.rowData(row), dim);
            const double direct = x.dot(ridge.inverseGram() * x);
            largestError = std::max(largestError, std::fabs(widths[row] - direct) / direct);
          }
          // Two observations between reads, as a slate's feedback brings.
          for (int i = 0; i < 2; ++i) {
            const Vector x = problem.arms.at(arms.idAt(static_cast<std::size_t>(step * 7 + i) % arms.size()));
            ridge.update(x, 0.5);
            widths.observe(ridge);
          }
        }
        std::printf("  %s, %s form, %s rows: largest relative error %.3g\n", subset ? "subset" : "whole",
                    form == RidgeRegression::Form::Factored ? "factored" : "inverse-only", floats ? "float" : "double", largestError);
        // Float rows: 2^-24 relative an entry, added up over the corrections between two exact
        // recomputations of a width (6.4e-7 here at most).
        EXPECT_LT(largestError, floats ? 2e-6 : 1e-9) << (subset ? "subset" : "whole");
      }
    }
  }
}

// The oracle: Algorithm 3 with every width computed directly (x^T V^-1 x from the regression at
// each step), written here from the description in scan_elim.hpp (the window of stages included), with a fixed radius. The
// policy's kept widths must make the same choices, step for step.
TEST(ScanElim, KeptWidthChoicesEqualTheDirectComputation) {
  for (const int dim : {4, 24}) {
    GaussianProblem problem(dim, 70 + static_cast<std::uint64_t>(dim), 0.3);
    const double beta = 0.6;
    PersistentLinearPolicy policy(Json{{"type", "sub-elim"}, {"dim", dim}, {"search", "widths"}, {"beta", beta}, {"seed", 3}});
    std::vector<Id> ids;
    for (int i = 0; i < 400; ++i) ids.push_back(problem.nextId), problem.arms.emplace(problem.nextId++, problem.gaussian());
    const std::vector<double> features = featuresOf(problem, ids);
    policy->addArms(ids.data(), ids.size(), features.data(), features.size());

    RidgeRegression ridge(dim, 1.0);
    const int maxStage = elimination_stages::maxStage(1.0 / 10001.0);
    std::vector<int> stage(ids.size(), 0);
    double threshold = -INFINITY;
    Id witness = 0;
    bool hasWitness = false;
    int eliminated = 0;
    // Steps where the window made a difference: an arm of a later stage than the first, an arm
    // other than the first stage's most uncertain.
    int laterStagePlays = 0, notMostUncertain = 0;
    for (int step = 0; step < 500; ++step) {
      std::vector<double> mean(ids.size()), u(ids.size());
      double bestLower = -INFINITY;
      std::size_t bestRow = ids.size();
      for (std::size_t row = 0; row < ids.size(); ++row) {
        const Vector& x = problem.arms.at(ids[row]);
        mean[row] = x.dot(ridge.theta());
        u[row] = beta * std::sqrt(std::max(0.0, x.dot(ridge.inverseGram() * x)));
        if (stage[row] < 0) continue;
        stage[row] = std::max(stage[row], elimination_stages::stageFor(u[row], maxStage));
        if (mean[row] - u[row] > bestLower) bestLower = mean[row] - u[row], bestRow = row;
      }
      if (bestRow < ids.size() && bestLower > threshold) threshold = bestLower, witness = ids[bestRow], hasWitness = true;
      for (std::size_t row = 0; row < ids.size(); ++row) {
        if (stage[row] >= 0 && !(hasWitness && ids[row] == witness) && mean[row] + u[row] < threshold) stage[row] = -1, ++eliminated;
      }
      int first = maxStage + 1;
      for (const int s : stage) first = s >= 0 ? std::min(first, s) : first;
      ASSERT_LT(first, maxStage) << "the test's problem should not reach the last (random) stage";
      std::size_t best = ids.size();
      for (std::size_t row = 0; row < ids.size(); ++row) {
        const double upper = mean[row] + u[row];
        if (stage[row] < 0 || stage[row] >= first + ScanElim::kStageWindow) continue;
        if (best == ids.size() || upper > mean[best] + u[best] || (upper == mean[best] + u[best] && ids[row] < ids[best])) best = row;
      }
      std::size_t mostUncertain = ids.size();
      for (std::size_t row = 0; row < ids.size(); ++row) {
        if (stage[row] == first && (mostUncertain == ids.size() || u[row] > u[mostUncertain])) mostUncertain = row;
      }
      laterStagePlays += stage[best] > first ? 1 : 0;
      notMostUncertain += best != mostUncertain ? 1 : 0;
      const Id expected = ids[best];
      const Id chosen = policy->select();
      ASSERT_EQ(chosen, expected) << "dim " << dim << " step " << step;
      const double reward = problem.mean(chosen) + problem.noise * problem.random.normal();
      policy->update(chosen, reward);
      ridge.update(problem.arms.at(chosen), reward);
    }
    EXPECT_GT(eliminated, 0) << "dim " << dim << ": the run should eliminate arms";
    EXPECT_GT(laterStagePlays, 0) << "dim " << dim;
    EXPECT_GT(notMostUncertain, 0) << "dim " << dim;
    EXPECT_EQ(policy->stats()["eliminated"].get<int>(), eliminated);
  }
}

// A user over a catalogue chooses what the same policy over its own copy of the arms chooses (same
// options, seed and arms, rows in the same order): through the catalogue's adds and removes (seen
// at the next call), the witness's removal, filters, slates, and saves reloaded over a catalogue
// changed in between.
TEST(ScanElim, OverACatalogueChoosesWhatTheOwnArmsPolicyChooses) {
  for (const std::string type : {"linear-elim", "sub-elim"}) {
    for (const int dim : {3, 8, 24}) {
      GaussianProblem problem(dim, 40 + static_cast<std::uint64_t>(dim), 0.5);
      const Json options{{"type", type}, {"seed", 9}, {"horizon", 2000}};
      Json own = options;
      own["dim"] = dim;
      own["search"] = "widths";
      auto mine = std::make_unique<PersistentLinearPolicy>(own);
      auto catalogue = std::make_shared<Catalogue>(Json{{"dim", dim}, {"index", {{"type", "exact"}}}});
      auto user = std::make_unique<PersistentLinearPolicy>(options, catalogue);
      const auto addArms = [&](std::size_t count) {
        std::vector<Id> ids;
        std::vector<Label> labels;
        for (std::size_t i = 0; i < count; ++i) {
          ids.push_back(problem.nextId);
          labels.push_back(problem.nextId % 3);
          problem.arms.emplace(problem.nextId++, problem.gaussian());
        }
        const std::vector<double> features = featuresOf(problem, ids);
        (*mine)->addArms(ids.data(), ids.size(), features.data(), features.size(), labels.data(), labels.size());
        catalogue->add(ids.data(), ids.size(), features.data(), features.size(), labels.data(), labels.size());
      };
      const auto removeArms = [&](const std::vector<Id>& gone) {
        (*mine)->removeArms(gone.data(), gone.size());
        catalogue->remove(gone.data(), gone.size());
        for (const Id id : gone) problem.arms.erase(id);
      };
      addArms(300);
      int witnessRemovals = 0;
      for (int step = 0; step < 700; ++step) {
        if (step % 60 == 59) {
          // Remove the witness every other time (its eliminated arms come back), and two others.
          std::vector<Id> gone;
          const ScanElim& policy = scanElimOf(*mine);
          if (step % 120 == 59 && policy.hasWitness()) gone.push_back(policy.witness()), ++witnessRemovals;
          for (auto it = problem.arms.begin(); gone.size() < 3; ++it) {
            if (std::find(gone.begin(), gone.end(), it->first) == gone.end()) gone.push_back(it->first);
          }
          removeArms(gone);
          addArms(5);
        }
        if (step == 300 || step == 500) {
          const auto mineBytes = mine->toBytes();
          mine = std::make_unique<PersistentLinearPolicy>(PersistentLinearPolicy::fromBytes(mineBytes.data(), mineBytes.size(), type));
          const auto userBytes = user->toBytes();
          // The user's state holds no features: a few bytes an arm beyond its d x d model.
          EXPECT_LT(userBytes.size(), catalogue->size() * 20 + 40 * static_cast<std::size_t>(dim * dim) + 4096);
          if (step == 500) addArms(2), removeArms({problem.arms.begin()->first});  // the catalogue changes in between
          user = std::make_unique<PersistentLinearPolicy>(PersistentLinearPolicy::fromBytes(userBytes.data(), userBytes.size(), type, catalogue));
        }
        if (step % 9 == 4) {
          ArmFilter filter;
          filter.labels = {1, 2};
          filter.exclude = {problem.arms.begin()->first};
          const std::vector<Id> slate = (*mine)->selectSlate(4, filter);
          ASSERT_EQ(slate, (*user)->selectSlate(4, filter)) << type << " dim " << dim << " step " << step;
          for (const Id arm : slate) {
            const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
            (*mine)->update(arm, reward);
            (*user)->update(arm, reward);
          }
          continue;
        }
        const Id arm = (*mine)->select();
        ASSERT_EQ(arm, (*user)->select()) << type << " dim " << dim << " step " << step;
        const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
        (*mine)->update(arm, reward);
        (*user)->update(arm, reward);
      }
      const Json stats = (*user)->stats();
      EXPECT_EQ(stats["search"], "widths");
      EXPECT_GT(stats["eliminated"].get<int>(), 0) << type << " dim " << dim;
      EXPECT_GE(stats["readmissions"].get<int>(), 1) << type << " dim " << dim << " (" << witnessRemovals << " witnesses removed)";
      EXPECT_EQ(stats["perArmBytes"].get<std::size_t>() >= catalogue->size() * 13, true);
    }
  }
}

// A slate takes the arms in play in the order one select takes them: its first arm is what select()
// plays, and the rest follow the window of stages from the first (by upper bound), then each later
// stage. Two policies alike, one asked for slates and one for single arms, played alike.
TEST(ScanElim, ASlateBeginsWithTheArmSelectPlaysAndFollowsTheWindow) {
  const int dim = 24;
  GaussianProblem problem(dim, 91, 0.3);
  std::vector<Id> ids;
  for (int i = 0; i < 400; ++i) ids.push_back(problem.nextId), problem.arms.emplace(problem.nextId++, problem.gaussian());
  const std::vector<double> features = featuresOf(problem, ids);
  const Json spec{{"type", "linear-elim"}, {"dim", dim}, {"search", "widths"}, {"beta", 0.6}, {"seed", 3}};
  PersistentLinearPolicy slates(spec), singles(spec);
  slates->addArms(ids.data(), ids.size(), features.data(), features.size());
  singles->addArms(ids.data(), ids.size(), features.data(), features.size());
  int windowed = 0;
  for (int step = 0; step < 300; ++step) {
    const std::vector<Id> slate = slates->selectSlate(6, ArmFilter{});
    const Id chosen = singles->select();
    ASSERT_EQ(slate.front(), chosen) << "step " << step;
    const ScanElim& policy = scanElimOf(slates);
    int first = 1000;
    for (const Id id : ids) first = policy.stageOf(id) >= 0 ? std::min(first, policy.stageOf(id)) : first;
    const auto bucket = [&](Id id) { return std::max(policy.stageOf(id), first + ScanElim::kStageWindow - 1); };
    for (std::size_t i = 1; i < slate.size(); ++i) {
      if (policy.stageOf(slate[i]) < 0) break;
      ASSERT_LE(bucket(slate[i - 1]), bucket(slate[i])) << "step " << step;
      windowed += policy.stageOf(slate[i]) != policy.stageOf(slate[i - 1]) && bucket(slate[i]) == bucket(slate[i - 1]) ? 1 : 0;
    }
    const double reward = problem.mean(chosen) + problem.noise * problem.random.normal();
    slates->update(chosen, reward);
    singles->update(chosen, reward);
  }
  EXPECT_GT(windowed, 0) << "the slates should mix stages of one window";
}

// search "auto" (the default): the lifted stage indexes at d <= 16 over own arms, kept widths above
// (where the lift's d(d+1)/2 floats an arm outgrow the arms) and over a catalogue.
TEST(ScanElim, AutoSearchLiftsOnlyInLowDimension) {
  for (const std::string type : {"linear-elim", "sub-elim"}) {
    PersistentLinearPolicy low(Json{{"type", type}, {"dim", 16}});
    EXPECT_FALSE(low->stats().contains("search")) << type;
    PersistentLinearPolicy high(Json{{"type", type}, {"dim", 17}});
    EXPECT_EQ(high->stats()["search"], "widths") << type;
    PersistentLinearPolicy forced(Json{{"type", type}, {"dim", 4}, {"search", "widths"}});
    EXPECT_EQ(forced->stats()["search"], "widths") << type;
  }
}

// At high d the widths hold 13 bytes an arm beside the arms: 2,000 arms at d = 512 would lift to
// 131,328 floats an arm (1 GB); here the policy's whole state (its arms included) stays within twice
// the arms' doubles, and it learns on arms of a rank-8 embedding (the shape of real embeddings).
TEST(ScanElim, HighDimensionStaysWithinTwiceTheArmsAndLearns) {
  const int dim = 512, rank = 8;
  GaussianProblem problem(dim, 11, 0.1);
  Random random(12);
  Matrix basis(dim, rank);
  random.fillNormal(basis.data(), static_cast<std::size_t>(basis.size()));
  const auto embed = [&] {
    Vector z(rank);
    random.fillNormal(z.data(), rank);
    const Vector x = basis * z;
    return Vector(x / x.norm());
  };
  problem.thetaStar = embed();
  PersistentLinearPolicy policy(Json{{"type", "sub-elim"}, {"dim", dim}, {"horizon", 1500}, {"seed", 2}});
  std::vector<Id> ids;
  for (int i = 0; i < 2000; ++i) ids.push_back(problem.nextId), problem.arms.emplace(problem.nextId++, embed());
  const std::vector<double> features = featuresOf(problem, ids);
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  EXPECT_EQ(policy->stats()["search"], "widths");
  const double best = problem.bestMean();
  double regret = 0.0, lastQuarter = 0.0, uniform = 0.0;
  for (const auto& [id, x] : problem.arms) uniform += best - problem.mean(id);
  uniform /= static_cast<double>(problem.arms.size());
  for (int step = 0; step < 1500; ++step) {
    const Id arm = policy->select();
    const double gap = best - problem.mean(arm);
    regret += gap;
    if (step >= 1125) lastQuarter += gap;
    policy->update(arm, problem.mean(arm) + problem.noise * problem.random.normal());
  }
  const std::size_t stateBytes = policy.toBytes().size();
  const std::size_t armBytes = 2000 * static_cast<std::size_t>(dim) * sizeof(double);
  std::printf("  d %d, 2000 arms: state %zu bytes (arms %zu), regret %.1f, last quarter %.1f, uniform's quarter %.1f\n", dim,
              stateBytes, armBytes, regret, lastQuarter, uniform * 375);
  EXPECT_LT(stateBytes, 2 * armBytes);
  EXPECT_LT(lastQuarter, 0.2 * uniform * 375);
}
}  // namespace elimination_widths_test
