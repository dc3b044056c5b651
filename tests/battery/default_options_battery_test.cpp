// The default-options battery: every linear policy, built with nothing but its type, `horizon` and
// `seed`, must learn on ordinary problems that these tests generate -- unit-norm and Gaussian arms,
// ||theta*|| from 0.5 to 5, noise from 0.1 to 1, d from 4 to 64, K from 10^2 to 10^4 -- measured
// as the regret of the last quarter of the horizon against uniform play's over the same steps.
// Kept out of the sanitizer build (a separate executable): it is about what the policies learn,
// and its runs are long.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {
namespace {

struct Problem {
  const char* arms;  // "unit": uniform on the sphere; "gaussian": N(0, I_d)
  int dim;
  int count;
  double thetaNorm;
  double noise;
};

std::string describe(const Problem& p) {
  char text[160];
  std::snprintf(text, sizeof text, "%s d=%d K=%d |theta|=%.1f noise=%.1f", p.arms, p.dim, p.count, p.thetaNorm, p.noise);
  return text;
}

struct Outcome {
  double lastQuarterRatio;  // regret of the last quarter / uniform play's regret over it
  double totalRegret;
  int changesFound;  // by the default forgetting ('auto'): where nothing changes, false alarms
};

// `forgetting`: null for the default ('auto'), else the option's value.
Outcome play(const std::string& type, const Problem& problem, int horizon, std::uint64_t seed, const Json& forgetting = nullptr) {
  Random random(seed * 7919 + static_cast<std::uint64_t>(problem.dim * 131 + problem.count));
  const int d = problem.dim;
  Vector theta(d);
  random.fillNormal(theta.data(), static_cast<std::size_t>(d));
  theta *= problem.thetaNorm / theta.norm();
  const bool unit = std::string(problem.arms) == "unit";
  std::vector<double> features(static_cast<std::size_t>(problem.count) * static_cast<std::size_t>(d));
  std::vector<Id> ids(static_cast<std::size_t>(problem.count));
  std::vector<double> means(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = static_cast<Id>(i);
    Eigen::Map<Vector> x(features.data() + i * static_cast<std::size_t>(d), d);
    random.fillNormal(x.data(), static_cast<std::size_t>(d));
    if (unit) x /= x.norm();
    means[i] = x.dot(theta);
  }
  const double best = *std::max_element(means.begin(), means.end());
  double average = 0.0;
  for (const double m : means) average += m;
  average /= static_cast<double>(means.size());
  const double uniformRegret = best - average;

  Json options{{"type", type}, {"horizon", horizon}, {"seed", seed}};
  if (!forgetting.is_null()) options["forgetting"] = forgetting;
  auto policy = makeLinearPolicy(d, options);
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  const int lastQuarter = horizon - horizon / 4;
  double total = 0.0, late = 0.0;
  for (int t = 0; t < horizon; ++t) {
    const Id arm = policy->select();
    const double regret = best - means[arm];
    total += regret;
    if (t >= lastQuarter) late += regret;
    policy->update(arm, means[arm] + problem.noise * random.normal());
  }
  return {late / (uniformRegret * static_cast<double>(horizon - lastQuarter)), total,
          policy->stats()["forgetting"]["changes"].get<int>()};
}

// Spread over the ranges the issue names; K * d^2 is kept moderate so that LinUCB's O(K d^2) steps
// fit a CI run.
const std::vector<Problem> kProblems = {
    {"unit", 8, 1500, 1.0, 0.3},   {"gaussian", 16, 1500, 1.0, 1.0}, {"unit", 4, 100, 0.5, 0.1},
    {"gaussian", 4, 10000, 5.0, 1.0}, {"unit", 16, 10000, 5.0, 0.1},  {"gaussian", 8, 1000, 0.5, 1.0},
    {"unit", 32, 500, 2.0, 0.3},   {"gaussian", 32, 1000, 2.0, 0.1}, {"unit", 64, 300, 2.0, 0.3},
    {"gaussian", 64, 200, 5.0, 0.3}, {"unit", 8, 3000, 5.0, 1.0},    {"gaussian", 16, 5000, 0.5, 0.3},
};

class DefaultOptionsBattery : public ::testing::TestWithParam<std::string> {};

// Uniform play scores 1. Every problem must end below kWorstRatio and half of them below
// kMedianRatio. The worst cases measured: 0.021 (LinUCB), 0.131 (LinTS and Sub-TS, unit-norm arms at
// d = 64), 0.060 (Linear Elim and Sub-Elim). The elimination policies' hardest case, unit-norm arms
// at d = 64, sat near 0.4 when they played the most uncertain plausible arm (over 40 seeds 0.40 and
// 0.42 with the lifted stage search, 0.21 with kept widths); since they play the arm of largest
// upper bound in a window of stages (ScanElim::kStageWindow, search 'auto' above d = 16) it measures
// 0.052. The limit was 0.55 until then.
constexpr double kWorstRatio = 0.2;
constexpr double kMedianRatio = 0.05;
constexpr int kHorizon = 3000;
const std::vector<std::uint64_t> kSeeds = {1, 2};

TEST_P(DefaultOptionsBattery, LearnsOnEveryProblem) {
  const std::string type = GetParam();
  const bool verbose = std::getenv("BATTERY_VERBOSE") != nullptr;
  std::vector<double> ratios;
  for (const Problem& problem : kProblems) {
    double ratio = 0.0, regret = 0.0;
    for (const std::uint64_t seed : kSeeds) {
      const Outcome outcome = play(type, problem, kHorizon, seed);
      ratio += outcome.lastQuarterRatio / static_cast<double>(kSeeds.size());
      regret += outcome.totalRegret / static_cast<double>(kSeeds.size());
    }
    ratios.push_back(ratio);
    if (verbose) std::printf("| %s | %s | %.3f | %.1f |\n", type.c_str(), describe(problem).c_str(), ratio, regret);
    EXPECT_LT(ratio, kWorstRatio) << type << " on " << describe(problem) << ": the last quarter's regret is " << ratio
                                  << " of uniform play's";
  }
  std::sort(ratios.begin(), ratios.end());
  EXPECT_LT(ratios[ratios.size() / 2], kMedianRatio) << type << ": median last-quarter ratio";
}

// Issue 51's target: where nothing changes, the default forgetting ('auto') costs at most 10% of
// the regret of 'none' over the battery's problems (both runs see the same arms, theta and noise,
// and choose alike until a change is found). Measured: 1.000x (LinUCB), 1.014x (the Thompson
// policies), 1.060x (the elimination policies), each with one false alarm in its 24 runs, all on
// unit-norm arms, d = 16, K = 10,000, |theta| = 5, noise 0.1, seed 2, where the elimination
// policies' restart cost 2.2x 'none''s regret of that run (README, "Tastes that change").
TEST_P(DefaultOptionsBattery, ForgettingCostsNothingWhereNothingChanges) {
  const std::string type = GetParam();
  double automatic = 0.0, none = 0.0;
  int alarms = 0;
  for (const Problem& problem : kProblems) {
    for (const std::uint64_t seed : kSeeds) {
      const Outcome byDefault = play(type, problem, kHorizon, seed);
      const Outcome never = play(type, problem, kHorizon, seed, "none");
      automatic += byDefault.totalRegret;
      none += never.totalRegret;
      alarms += byDefault.changesFound;
      if (byDefault.changesFound > 0) {
        std::printf("%s: a change found on %s seed %llu (regret %.1f against %.1f)\n", type.c_str(), describe(problem).c_str(),
                    static_cast<unsigned long long>(seed), byDefault.totalRegret, never.totalRegret);
      }
    }
  }
  std::printf("%s: the battery's regret with 'auto' %.1f, with 'none' %.1f (%.3fx); %d changes found in %zu runs\n", type.c_str(),
              automatic, none, automatic / none, alarms, kProblems.size() * kSeeds.size());
  EXPECT_LE(automatic, 1.1 * none) << type;
  EXPECT_LE(alarms, 1) << type;
}

INSTANTIATE_TEST_SUITE_P(Policies, DefaultOptionsBattery,
                         ::testing::Values("lin-ucb", "lin-ts", "sub-ts", "linear-elim", "sub-elim"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

}  // namespace
}  // namespace sublinear
