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
};

Outcome play(const std::string& type, const Problem& problem, int horizon, std::uint64_t seed) {
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
  return {late / (uniformRegret * static_cast<double>(horizon - lastQuarter)), total};
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

INSTANTIATE_TEST_SUITE_P(Policies, DefaultOptionsBattery,
                         ::testing::Values("lin-ucb", "lin-ts", "sub-ts", "linear-elim", "sub-elim"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

}  // namespace
}  // namespace sublinear
