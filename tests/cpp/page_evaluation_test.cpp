#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/eval/off_policy_evaluation.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "linear_test_problem.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::GaussianProblem;

// The value of a whole page (docs/evaluation.md, "Whole pages"): page-ips and page-pi over the log's
// pages, against the target's page value in the simulator that wrote the log.
namespace page_evaluation_test {
constexpr int kDim = 5;

OffPolicyEvaluation::PolicyCopy copiesOf(const PersistentLinearPolicy& policy) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(policy.toBytes());
  return [bytes] { return PersistentLinearPolicy::fromBytes(bytes->data(), bytes->size(), ""); };
}

bool covers(const Json& estimate, double truth) {
  return !estimate["low"].is_null() && estimate["low"].get<double>() <= truth && truth <= estimate["high"].get<double>();
}

// A generated shop: `items` items with features, a click model P(click | item a at position j) =
// bias_j sigma(-1 + 3 x_a^T theta*) (position-based: the clicks of a page add up in expectation), and
// LinUCB policies over the items, warmed up on `warmup` uniformly random clicks and then frozen.
struct Shop {
  GaussianProblem problem;
  std::vector<Id> ids;
  std::vector<double> features;

  Shop(std::uint64_t seed, std::size_t items) : problem(kDim, seed, 0.0) { ids = problem.newArms(items, features); }

  double bias(std::size_t position) const { return 1.0 / (1.0 + 0.3 * static_cast<double>(position)); }
  double attraction(Id item) const { return 1.0 / (1.0 + std::exp(1.0 - 3.0 * problem.mean(item))); }
  double clickRate(Id item, std::size_t position) const { return bias(position) * attraction(item); }

  std::unique_ptr<PersistentLinearPolicy> policy(std::uint64_t seed, int warmup) {
    auto made = std::make_unique<PersistentLinearPolicy>(Json{{"type", "lin-ucb"}, {"dim", kDim}, {"seed", seed}});
    (*made)->addArms(ids.data(), ids.size(), features.data(), features.size());
    for (int t = 0; t < warmup; ++t) {
      const Id item = ids[problem.random.uniformInt(ids.size())];
      (*made)->update(item, problem.random.bernoulli(attraction(item)) ? 1.0 : 0.0);
    }
    return made;
  }

  // The expected clicks of a page showing `slate`: what the target earns a page when it runs online.
  double pageValue(const std::vector<Id>& slate) const {
    double value = 0.0;
    for (std::size_t j = 0; j < slate.size(); ++j) value += clickRate(slate[j], j);
    return value;
  }

  // `pages` pages of `size` positions: with probability `explore` (1: always, the uniform logger) an
  // ordered subset drawn uniformly without replacement, else `logger`'s slate; each position a record
  // with its marginal propensity (1 - explore) [a is the logger's item there] + explore / items and,
  // for the mix (explore < 1), the logger's own item there (policyArms, what decideSlate() logs).
  DecisionLog log(std::size_t pages, std::size_t size, double explore, const std::vector<Id>& logger) {
    DecisionLog log;
    const double items = static_cast<double>(ids.size());
    std::vector<Id> shuffled = ids;
    for (std::size_t page = 0; page < pages; ++page) {
      const bool uniform = explore >= 1.0 || problem.random.uniform() < explore;
      for (std::size_t j = 0; j < size; ++j) {
        Id item = 0;
        if (uniform) {
          std::swap(shuffled[j], shuffled[j + problem.random.uniformInt(shuffled.size() - j)]);
          item = shuffled[j];
        } else {
          item = logger[j];
        }
        log.arms.push_back(item);
        log.rewards.push_back(problem.random.bernoulli(clickRate(item, j)) ? 1.0 : 0.0);
        const double own = explore < 1.0 && item == logger[j] ? 1.0 - explore : 0.0;
        log.propensities.push_back(own + explore / items);
        if (explore < 1.0) log.policyArms.push_back(logger[j]);
        log.positions.push_back(static_cast<std::uint32_t>(j));
        log.pages.push_back(static_cast<std::uint32_t>(page));
      }
    }
    return log;
  }
};

// Every ordered page of `size` of m items (as item indices), in lexicographic order.
std::vector<std::vector<std::size_t>> everyPage(std::size_t m, std::size_t size) {
  std::vector<std::vector<std::size_t>> pages;
  std::vector<std::size_t> chosen;
  std::vector<bool> used(m, false);
  const std::function<void()> enumerate = [&] {
    if (chosen.size() == size) {
      pages.push_back(chosen);
      return;
    }
    for (std::size_t a = 0; a < m; ++a) {
      if (used[a]) continue;
      used[a] = true;
      chosen.push_back(a);
      enumerate();
      chosen.pop_back();
      used[a] = false;
    }
  };
  enumerate();
  return pages;
}

// Every ordered page of `size` of `items` items once, rewards phi(j, a) with no noise: the uniform
// logger's expectation exactly, so both page estimators must return the target's page value to
// rounding (page-pi's weight is the pseudo-inverse's; the plain 1 - L + sum_j pi / mu of product
// logging would be off here, where the items of a page are drawn without replacement).
void expectExactOnEveryPage(std::size_t items, std::size_t size) {
  Shop shop(7, items);
  auto target = shop.policy(1, 30);
  const std::vector<Id> slate = copiesOf(*target)()->selectSlate(size, ArmFilter{});
  DecisionLog log;
  std::uint32_t page = 0;
  for (const std::vector<std::size_t>& chosen : everyPage(items, size)) {
    for (std::size_t j = 0; j < size; ++j) {
      log.arms.push_back(shop.ids[chosen[j]]);
      log.rewards.push_back(shop.clickRate(shop.ids[chosen[j]], j));
      log.propensities.push_back(1.0 / static_cast<double>(items));
      log.positions.push_back(static_cast<std::uint32_t>(j));
      log.pages.push_back(page);
    }
    ++page;
  }
  const Json report = OffPolicyEvaluation(Json{{"estimators", {"page-ips", "page-pi"}}}).run(copiesOf(*target), log);
  EXPECT_NEAR(report["page-pi"]["value"].get<double>(), shop.pageValue(slate), 1e-9) << items << " items, pages of " << size;
  EXPECT_NEAR(report["page-ips"]["value"].get<double>(), shop.pageValue(slate), 1e-9) << items << " items, pages of " << size;
  EXPECT_EQ(report["page-pi"]["n"].get<std::size_t>(), page);
}
}  // namespace page_evaluation_test

using namespace page_evaluation_test;

TEST(PageEvaluation, OnEveryPageOfTheUniformLoggerBothEstimatorsAreExact) {
  expectExactOnEveryPage(6, 3);
  expectExactOnEveryPage(5, 1);
  expectExactOnEveryPage(4, 4);  // every page a permutation: the pseudo-inverse's middle eigenvalue is 0
}

namespace page_evaluation_test {

// The mix's weight by its closed form (mixPseudoInverseWeight) for page s, own page s0 and target
// marginals q (size x m, rows summing to 1).
double closedFormWeight(const Eigen::MatrixXd& q, const std::vector<std::size_t>& s, const std::vector<std::size_t>& s0, double explore) {
  const auto size = static_cast<double>(s.size());
  const auto m = static_cast<double>(q.cols());
  double matched = 0.0, anywhere = 0.0, ownMatched = 0.0, ownAnywhere = 0.0, positions = 0.0, items = 0.0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    matched += q(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(s[j]));
    ownMatched += q(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(s0[j]));
    positions += s[j] == s0[j] ? 1.0 : 0.0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      anywhere += q(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(s[j]));
      ownAnywhere += q(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(s0[j]));
      items += s[j] == s0[k] ? 1.0 : 0.0;
    }
  }
  return mixPseudoInverseWeight(m, size, explore, matched, anywhere, ownMatched, ownAnywhere, positions, items);
}
}  // namespace page_evaluation_test

// The exploration mix's pseudo-inverse weight in closed form (Sherman and Morrison's update of the
// uniform logger's on Gamma's range) against a dense pseudo-inverse of Gamma = E[1_s 1_s^T] built
// from every page (m items, pages of L, explore epsilon, the logger's own page s0): q^T Gamma^+ 1_s
// agrees for every page, and sum_s mu(s) w(s) 1_s = q (the estimator is unbiased for any additive
// reward), for random target marginals q.
TEST(PageEvaluation, MixPseudoInverseWeightMatchesADensePseudoInverse) {
  Random random(17);
  // Plain copies, not structured bindings: clang 14 (the sanitized lane) cannot capture those in a lambda.
  for (const auto& shape : std::vector<std::pair<std::size_t, std::size_t>>{{4, 2}, {5, 3}, {4, 4}, {6, 1}, {6, 2}, {5, 5}}) {
    const std::size_t m = shape.first, size = shape.second;
    const std::vector<std::vector<std::size_t>> pages = everyPage(m, size);
    const auto dim = static_cast<Eigen::Index>(m * size);
    const auto indicator = [&](const std::vector<std::size_t>& page) {
      Eigen::VectorXd v = Eigen::VectorXd::Zero(dim);
      for (std::size_t j = 0; j < size; ++j) v(static_cast<Eigen::Index>(j * m + page[j])) = 1.0;
      return v;
    };
    for (const double explore : {0.1, 0.5, 0.9, 1.0}) {
      const std::vector<std::size_t>& own = pages[random.uniformInt(pages.size())];
      const double uniform = 1.0 / static_cast<double>(pages.size());
      const auto mu = [&](const std::vector<std::size_t>& page) { return explore * uniform + (page == own ? 1.0 - explore : 0.0); };
      Eigen::MatrixXd gamma = Eigen::MatrixXd::Zero(dim, dim);
      for (const auto& page : pages) gamma += mu(page) * indicator(page) * indicator(page).transpose();
      const Eigen::MatrixXd inverse = gamma.completeOrthogonalDecomposition().pseudoInverse();
      // Target marginals: of a random distribution over five pages (a Thompson target's kind: an item
      // is at most once on a page, so with m = L every item is somewhere), and of a deterministic page
      // (LinUCB's), s0 itself or another.
      std::vector<Eigen::MatrixXd> targets;
      Eigen::MatrixXd drawn = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(size), static_cast<Eigen::Index>(m));
      double mass = 0.0;
      for (int draw = 0; draw < 5; ++draw) {
        const std::vector<std::size_t>& page = pages[random.uniformInt(pages.size())];
        const double weight = random.uniform();
        mass += weight;
        for (std::size_t j = 0; j < size; ++j) drawn(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(page[j])) += weight;
      }
      targets.push_back(drawn / mass);
      for (const auto* page : {&own, &pages[random.uniformInt(pages.size())]}) {
        Eigen::MatrixXd deterministic = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(size), static_cast<Eigen::Index>(m));
        for (std::size_t j = 0; j < size; ++j) deterministic(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>((*page)[j])) = 1.0;
        targets.push_back(deterministic);
      }
      for (const Eigen::MatrixXd& q : targets) {
        Eigen::VectorXd flat(dim);
        for (std::size_t j = 0; j < size; ++j) {
          for (std::size_t a = 0; a < m; ++a) flat(static_cast<Eigen::Index>(j * m + a)) = q(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(a));
        }
        Eigen::VectorXd expectation = Eigen::VectorXd::Zero(dim);
        for (const auto& page : pages) {
          const double dense = flat.dot(inverse * indicator(page));
          const double closed = closedFormWeight(q, page, own, explore);
          ASSERT_NEAR(closed, dense, 1e-8 * (1.0 + std::abs(dense))) << m << " items, pages of " << size << ", explore " << explore;
          expectation += mu(page) * closed * indicator(page);
        }
        EXPECT_LT((expectation - flat).cwiseAbs().maxCoeff(), 1e-9) << m << " items, pages of " << size << ", explore " << explore;
      }
    }
  }
}

// Through the estimator: a log holding every page of the exploration mix in its exact proportions
// (explore 0.5 over m items: each page once and the logger's own page N + 1 times, N the ordered
// pages, so 2N pages in all), with the propensities and policyArms decideSlate() logs and noiseless
// rewards: page-pi returns the target's page value to rounding.
TEST(PageEvaluation, OnEveryPageOfTheExplorationMixPagePiIsExact) {
  for (const auto& shape : std::vector<std::pair<std::size_t, std::size_t>>{{5, 3}, {4, 4}, {6, 1}, {5, 2}}) {
    const std::size_t items = shape.first, size = shape.second;  // copies: see the test above
    Shop shop(9, items);
    auto target = shop.policy(2, 30);
    auto logger = shop.policy(3, 5);
    const std::vector<Id> slate = copiesOf(*target)()->selectSlate(size, ArmFilter{});
    const std::vector<Id> own = copiesOf(*logger)()->selectSlate(size, ArmFilter{});
    const std::vector<std::vector<std::size_t>> pages = everyPage(items, size);
    DecisionLog log;
    std::uint32_t pageId = 0;
    const auto add = [&](const std::vector<std::size_t>& page) {
      for (std::size_t j = 0; j < size; ++j) {
        const Id item = shop.ids[page[j]];
        log.arms.push_back(item);
        log.rewards.push_back(shop.clickRate(item, j));
        log.propensities.push_back((item == own[j] ? 0.5 : 0.0) + 0.5 / static_cast<double>(items));
        log.policyArms.push_back(own[j]);
        log.positions.push_back(static_cast<std::uint32_t>(j));
        log.pages.push_back(pageId);
      }
      ++pageId;
    };
    for (const auto& page : pages) {
      std::vector<Id> shown;
      for (const std::size_t a : page) shown.push_back(shop.ids[a]);
      for (std::size_t copies = shown == own ? pages.size() + 1 : 1; copies > 0; --copies) add(page);
    }
    ASSERT_EQ(pageId, 2 * pages.size());
    const Json report = OffPolicyEvaluation(Json{{"estimators", {"page-pi"}}}).run(copiesOf(*target), log);
    EXPECT_NEAR(report["page-pi"]["value"].get<double>(), shop.pageValue(slate), 1e-9) << items << " items, pages of " << size;
    // The logger's own page as the target: the same.
    const Json self = OffPolicyEvaluation(Json{{"estimators", {"page-pi"}}}).run(copiesOf(*logger), log);
    EXPECT_NEAR(self["page-pi"]["value"].get<double>(), shop.pageValue(own), 1e-9) << items << " items, pages of " << size;
  }
}

// A uniform log that names policyArms is read as the mix with explore 1 (each propensity 1 / m, m the
// target's eligible arms): the same weights as without them, whatever the policy arms say.
TEST(PageEvaluation, AUniformLogWithPolicyArmsIsTheMixWithExploreOne) {
  Shop shop(21, 12);
  auto target = shop.policy(1, 40);
  DecisionLog log = shop.log(300, 4, 1.0, {});
  const Json plain = OffPolicyEvaluation(Json{{"estimators", {"page-pi"}}}).run(copiesOf(*target), log);
  for (std::size_t i = 0; i < log.size(); ++i) log.policyArms.push_back(shop.ids[(i % 4) * 2]);
  const Json named = OffPolicyEvaluation(Json{{"estimators", {"page-pi"}}}).run(copiesOf(*target), log);
  EXPECT_NEAR(named["page-pi"]["value"].get<double>(), plain["page-pi"]["value"].get<double>(), 1e-12);
  EXPECT_NEAR(named["page-pi"]["high"].get<double>(), plain["page-pi"]["high"].get<double>(), 1e-12);
}

// Generated shops (20 to 30 items, pages of 5 to 10, clicks of a position-based model), a frozen
// LinUCB target: the 95% intervals over pages cover the target's page value in at least 45 of 50
// seeds, for page-ips and page-pi from 4,000 pages of a uniform logger and from 2,000 of an
// exploration mix (0.5) over another LinUCB (page-pi reading the log's policyArms; without them it
// refuses the mix's pages). (page-pi's weights are heavy, about -10 to +20 at 20 items and pages of
// 8 from the uniform logger: its normal interval needs the larger log.)
TEST(PageEvaluation, IntervalsOverPagesCoverThePageValue) {
  std::map<std::string, int> covered;
  std::map<std::string, double> width;
  constexpr int kSeeds = 50;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const std::size_t size = 5 + seed % 6;
    Shop shop(1000 + seed, 20 + 5 * (seed % 3));
    auto target = shop.policy(seed, 60);
    auto logger = shop.policy(seed + 100, 20);
    const double truth = shop.pageValue(copiesOf(*target)()->selectSlate(size, ArmFilter{}));
    const std::vector<Id> loggerSlate = copiesOf(*logger)()->selectSlate(size, ArmFilter{});
    const auto record = [&](const std::string& name, const Json& estimate) {
      covered[name] += covers(estimate, truth) ? 1 : 0;
      width[name] += (estimate["high"].get<double>() - estimate["low"].get<double>()) / kSeeds;
    };
    const Json uniform = OffPolicyEvaluation(Json{{"estimators", {"page-ips", "page-pi"}}}).run(copiesOf(*target), shop.log(4000, size, 1.0, loggerSlate));
    record("uniform page-ips", uniform["page-ips"]);
    record("uniform page-pi", uniform["page-pi"]);
    DecisionLog mixed = shop.log(2000, size, 0.5, loggerSlate);
    const Json mix = OffPolicyEvaluation(Json{{"estimators", {"page-ips", "page-pi"}}}).run(copiesOf(*target), mixed);
    record("exploration mix page-ips", mix["page-ips"]);
    record("exploration mix page-pi", mix["page-pi"]);
    mixed.policyArms.clear();
    sublinear::testing::expectError(ErrorCode::InvalidArgument, "the exploration mix's pages: log decideSlate()'s policyArms", [&] {
      OffPolicyEvaluation(Json{{"estimators", {"page-pi"}}}).run(copiesOf(*target), mixed);
    });
  }
  for (const auto& [name, count] : covered) {
    std::cout << name << ": covered " << count << " of " << kSeeds << ", mean width " << width[name] << "\n";
    EXPECT_GE(count, 45) << name;
  }
}

// Bad page logs are refused with INVALID_ARGUMENT naming the record, before pi is asked for anything;
// the page estimators are asked for by name only, and without them a log's pages are still checked.
TEST(PageEvaluation, RefusesInconsistentPages) {
  Shop shop(3, 20);
  auto target = shop.policy(1, 10);
  const OffPolicyEvaluation pages(Json{{"estimators", {"page-ips"}}});
  const auto refused = [&](const DecisionLog& log, const std::string& fragment) {
    sublinear::testing::expectError(ErrorCode::InvalidArgument, fragment, [&] { pages.run(copiesOf(*target), log); });
  };
  const DecisionLog good = shop.log(4, 5, 1.0, {});
  EXPECT_EQ(pages.run(copiesOf(*target), good)["page-ips"]["n"].get<std::size_t>(), 4u);
  // Without page ids, a record at position 0 starts a page: the same four pages.
  DecisionLog inferred = good;
  inferred.pages.clear();
  EXPECT_EQ(pages.run(copiesOf(*target), inferred)["page-ips"], pages.run(copiesOf(*target), good)["page-ips"]);
  // The default estimators are the per-record ones.
  EXPECT_FALSE(OffPolicyEvaluation(Json::object()).run(copiesOf(*target), good).contains("page-ips"));

  DecisionLog repeated = good;
  repeated.positions[7] = 1;  // page 1 (records 5 to 9) shows position 1 twice
  refused(repeated, "log record 6: position 1 appears twice");
  // Refused whatever the estimators when the log names its pages, not when it does not and none is asked.
  sublinear::testing::expectError(ErrorCode::InvalidArgument, "appears twice",
                                  [&] { OffPolicyEvaluation(Json{{"estimators", {"ips"}}}).run(copiesOf(*target), repeated); });
  repeated.pages.clear();
  refused(repeated, "appears twice");
  EXPECT_TRUE(OffPolicyEvaluation(Json{{"estimators", {"ips"}}}).run(copiesOf(*target), repeated).contains("ips"));

  DecisionLog back = good;
  for (std::size_t i = 15; i < 20; ++i) back.pages[i] = 0;  // page 0 again after pages 1 and 2
  refused(back, "log record 15: page 0 comes back");
  DecisionLog noPositions = good;
  noPositions.positions.clear();
  refused(noPositions, "pages need positions");
  DecisionLog shortPages = good;
  shortPages.pages.pop_back();
  refused(shortPages, "pages must have one entry per decision");
  DecisionLog late = good;
  late.pages.clear();
  late.positions[0] = 2;
  late.positions[2] = 0;
  refused(late, "log record 0: position 2 begins the log");

  // page-pi: whole pages of a uniform logger only.
  const OffPolicyEvaluation pseudoInverse(Json{{"estimators", {"page-pi"}}});
  DecisionLog partial = good;
  partial.positions[9] = 7;  // page 1 shows positions 0 to 3 and 7
  sublinear::testing::expectError(ErrorCode::InvalidArgument, "page of records 5 to 9 shows 5 positions, not 0 to 4",
                                  [&] { pseudoInverse.run(copiesOf(*target), partial); });
  EXPECT_TRUE(pages.run(copiesOf(*target), partial).contains("page-ips"));
  DecisionLog uneven = good;
  uneven.propensities[12] = 0.5;
  sublinear::testing::expectError(ErrorCode::InvalidArgument, "page-pi: log record 12 has propensity",
                                  [&] { pseudoInverse.run(copiesOf(*target), uneven); });
  DecisionLog tooFew = good;
  for (double& p : tooFew.propensities) p = 1.0 / 4.0;  // 4 items cannot fill a page of 5 without replacement
  sublinear::testing::expectError(ErrorCode::InvalidArgument, "1 / m for one whole m >= 5", [&] { pseudoInverse.run(copiesOf(*target), tooFew); });

  // page-pi of the exploration mix (a log with policyArms): the propensities must be the mix's of
  // one explore over the target's 20 eligible arms, the policy arms a page of distinct arms it holds.
  const std::vector<Id> own{shop.ids[0], shop.ids[1], shop.ids[2], shop.ids[3], shop.ids[4]};
  const DecisionLog mix = shop.log(40, 5, 0.5, own);
  EXPECT_EQ(pseudoInverse.run(copiesOf(*target), mix)["page-pi"]["n"].get<std::size_t>(), 40u);
  const auto refusedMix = [&](const DecisionLog& log, const std::string& fragment) {
    sublinear::testing::expectError(ErrorCode::InvalidArgument, fragment, [&] { pseudoInverse.run(copiesOf(*target), log); });
  };
  DecisionLog shortArms = mix;
  shortArms.policyArms.pop_back();
  refusedMix(shortArms, "policyArms must have one entry per decision");
  DecisionLog otherExplore = mix;
  // Another explore at one position (not a page's first, whose propensity sets the page's explore):
  // 0.3 / 20 beside the logger's arm where the page's first says 0.5.
  const std::size_t beside = [&] {
    for (std::size_t i = 0; i < mix.size(); ++i) {
      if (mix.positions[i] > 0 && mix.arms[i] != mix.policyArms[i]) return i;
    }
    return std::size_t{0};
  }();
  ASSERT_GT(mix.positions[beside], 0u);
  otherExplore.propensities[beside] = 0.3 / 20.0;
  refusedMix(otherExplore, "page-pi: log record " + std::to_string(beside) + " has propensity 0.015000 beside the logger's own arm");
  DecisionLog beyond = mix;
  beyond.propensities[beside] = 0.1;  // above 1 / m beside the logger's arm: explore 2
  refusedMix(beyond, "has propensity 0.100000 beside the logger's own arm " + std::to_string(mix.policyArms[beside]) +
                         ", where the page of records " + std::to_string(beside - mix.positions[beside]) + " to " +
                         std::to_string(beside - mix.positions[beside] + 4) +
                         " of an exploration mix over 20 eligible arms has explore 0.500000, so 0.025000 beside it and 0.525000 on it");
  DecisionLog twice = mix;
  twice.policyArms[1] = twice.policyArms[0];
  refusedMix(twice, "page-pi: log record 1: policy arm " + std::to_string(own[0]) + " is the policy arm of record 0 too");
  DecisionLog greedy = shop.log(3, 5, 0.0, own);  // explore 0: every page the logger's own, propensity 1
  refusedMix(greedy, "the logger did not explore");
  DecisionLog unknown = mix;
  unknown.policyArms[2] = 99999;
  sublinear::testing::expectError(ErrorCode::UnknownId, "log record 2: policy arm 99999 is not among the policy's arms",
                                  [&] { pseudoInverse.run(copiesOf(*target), unknown); });
}

// page-cascade (reward-interaction IPS) on cascade clicks: the user scans a page from the top and
// clicks the first item that attracts them (P(attract) = sigma(-1 + 3 x_a^T theta*)); nothing after
// the click counts. A page's value then depends on the order of its items, and page-ips, which
// weighs each position by its marginal propensity alone, is biased.
namespace page_evaluation_test {
// The expected clicks of a page showing `slate` to cascade users: sum_j A(s_j) prod_{i<j} (1 - A(s_i)).
double cascadeValue(const Shop& shop, const std::vector<Id>& slate) {
  double value = 0.0;
  double scanned = 1.0;
  for (const Id item : slate) {
    value += scanned * shop.attraction(item);
    scanned *= 1.0 - shop.attraction(item);
  }
  return value;
}

// `pages` pages decided by `logger` (decideSlate: its exploration mix), clicked by cascade users,
// each position a record with the decision's propensity and prefix propensity.
DecisionLog cascadeLog(Shop& shop, LinearPolicy& logger, std::size_t pages, std::size_t size) {
  DecisionLog log;
  for (std::size_t page = 0; page < pages; ++page) {
    const Decision decision = logger.decide(size, ArmFilter{}, true);
    bool clicked = false;
    for (std::size_t j = 0; j < decision.arms.size(); ++j) {
      const bool click = !clicked && shop.problem.random.bernoulli(shop.attraction(decision.arms[j]));
      clicked = clicked || click;
      log.arms.push_back(decision.arms[j]);
      log.rewards.push_back(click ? 1.0 : 0.0);
      log.propensities.push_back(decision.propensities[j]);
      log.prefixPropensities.push_back(decision.prefixPropensities[j]);
      log.positions.push_back(static_cast<std::uint32_t>(j));
      log.pages.push_back(static_cast<std::uint32_t>(page));
    }
  }
  return log;
}

PersistentLinearPolicy explorer(Shop& shop, std::uint64_t seed, int warmup, const Json& extra) {
  Json options{{"type", "lin-ucb"}, {"dim", kDim}, {"seed", seed}, {"explore", 0.5}};
  options.update(extra);
  PersistentLinearPolicy made(options);
  made->addArms(shop.ids.data(), shop.ids.size(), shop.features.data(), shop.features.size());
  for (int t = 0; t < warmup; ++t) {
    const Id item = shop.ids[shop.problem.random.uniformInt(shop.ids.size())];
    made->update(item, shop.problem.random.bernoulli(shop.attraction(item)) ? 1.0 : 0.0);
  }
  return made;
}
}  // namespace page_evaluation_test

// decideSlate()'s prefix propensities, exactly: (1 - explore) [the prefix is the policy's own] +
// explore / (m (m - 1) ... (m - j)); the first is the position's propensity. Thompson sampling's are
// estimated from the same draws: in (0, 1], not increasing, the first its propensity.
TEST(PageEvaluation, DecideSlateLogsTheProbabilityOfEachPrefix) {
  Shop shop(11, 9);
  PersistentLinearPolicy logger = explorer(shop, 4, 20, Json::object());
  const std::vector<Id> own = copiesOf(logger)()->selectSlate(4, ArmFilter{});
  int explored = 0;
  for (int t = 0; t < 200; ++t) {
    const Decision decision = logger->decide(4, ArmFilter{}, true);
    ASSERT_EQ(decision.prefixPropensities.size(), 4u);
    bool same = true;
    double uniform = 1.0;
    for (std::size_t j = 0; j < 4; ++j) {
      same = same && decision.arms[j] == own[j];
      uniform /= 9.0 - static_cast<double>(j);
      EXPECT_NEAR(decision.prefixPropensities[j], (same ? 0.5 : 0.0) + 0.5 * uniform, 1e-15) << t << " " << j;
    }
    EXPECT_EQ(decision.prefixPropensities[0], decision.propensities[0]);
    explored += same ? 0 : 1;
  }
  EXPECT_GT(explored, 50);
  // A single decision: its prefix is its arm.
  const Decision single = logger->decide(1, ArmFilter{}, false);
  EXPECT_EQ(single.prefixPropensities, single.propensities);

  PersistentLinearPolicy thompson(Json{{"type", "lin-ts"}, {"dim", kDim}, {"seed", 5}, {"explore", 0.2}});
  thompson->addArms(shop.ids.data(), shop.ids.size(), shop.features.data(), shop.features.size());
  for (int t = 0; t < 30; ++t) {
    const Decision decision = thompson->decide(3, ArmFilter{}, true);
    EXPECT_EQ(decision.prefixPropensities[0], decision.propensities[0]);
    for (std::size_t j = 0; j < 3; ++j) {
      EXPECT_GT(decision.prefixPropensities[j], 0.0);
      EXPECT_LE(decision.prefixPropensities[j], decision.propensities[j] + 1e-15);
      if (j > 0) {
        EXPECT_LE(decision.prefixPropensities[j], decision.prefixPropensities[j - 1]);
      }
    }
  }
}

// Generated shops of 8 items, pages of 3, cascade clicks; the logger an exploration mix (0.5) over a
// LinUCB warmed on 20 clicks, the target a frozen LinUCB warmed on 60 (a fixed radius for odd seeds);
// the truth its page's expected clicks. page-cascade's interval over 20,000 pages covers the truth in
// at least 36 of 40 seeds; page-ips's, whose marginal weights ignore the items above, covers it less
// often (it is biased: reported). The heavy weights of a deterministic target whose prefix the
// logger's own rarely shows (m (m - 1) ... / explore) are why the shop is small: docs/evaluation.md.
TEST(PageEvaluation, CascadeIntervalsCoverTheCascadePageValue) {
  constexpr int kSeeds = 40;
  constexpr std::size_t kSize = 3;
  std::map<std::string, int> covered;
  std::map<std::string, double> bias;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Shop shop(2000 + seed, 8);
    PersistentLinearPolicy logger = explorer(shop, seed + 100, 20, Json::object());
    Json other{{"explore", 0.0}};
    if (seed % 2 == 1) other["beta"] = 0.5;  // another confidence radius
    PersistentLinearPolicy target = explorer(shop, seed, 60, other);
    const double truth = cascadeValue(shop, copiesOf(target)()->selectSlate(kSize, ArmFilter{}));
    const DecisionLog log = cascadeLog(shop, *logger, 20000, kSize);
    const Json report = OffPolicyEvaluation(Json{{"estimators", {"page-cascade", "page-ips"}}}).run(copiesOf(target), log);
    for (const char* name : {"page-cascade", "page-ips"}) {
      covered[name] += covers(report[name], truth) ? 1 : 0;
      bias[name] += (report[name]["value"].get<double>() - truth) / kSeeds;
    }
    EXPECT_EQ(report["page-cascade"]["n"].get<std::size_t>(), 20000u);
  }
  for (const auto& [name, count] : covered) std::cout << name << ": covered " << count << " of " << kSeeds << ", mean error " << bias[name] << "\n";
  EXPECT_GE(covered["page-cascade"], 36);
  EXPECT_LT(covered["page-ips"], covered["page-cascade"]);
}

// What page-cascade cannot read is refused with INVALID_ARGUMENT naming the reason, before anything
// is estimated: no prefix propensities, inconsistent ones, pages not read from position 0 in order,
// a target that draws its slates.
TEST(PageEvaluation, CascadeRefusesLogsItCannotRead) {
  Shop shop(5, 8);
  PersistentLinearPolicy logger = explorer(shop, 2, 10, Json::object());
  PersistentLinearPolicy target = explorer(shop, 3, 30, Json{{"explore", 0.0}});
  const DecisionLog good = cascadeLog(shop, *logger, 6, 3);
  const OffPolicyEvaluation cascade(Json{{"estimators", {"page-cascade"}}});
  EXPECT_EQ(cascade.run(copiesOf(target), good)["page-cascade"]["n"].get<std::size_t>(), 6u);
  const auto refused = [&](const DecisionLog& log, const std::string& fragment) {
    sublinear::testing::expectError(ErrorCode::InvalidArgument, fragment, [&] { cascade.run(copiesOf(target), log); });
  };
  DecisionLog none = good;
  none.prefixPropensities.clear();
  refused(none, "no prefix propensities");
  // Without them the other estimators still run.
  EXPECT_TRUE(OffPolicyEvaluation(Json{{"estimators", {"page-ips"}}}).run(copiesOf(target), none).contains("page-ips"));
  DecisionLog shortList = good;
  shortList.prefixPropensities.pop_back();
  refused(shortList, "prefixPropensities must have one entry per decision");
  DecisionLog zero = good;
  zero.prefixPropensities[4] = 0.0;
  refused(zero, "log record 4: prefix propensity 0.000000 is not in (0, 1]");
  DecisionLog above = good;
  above.prefixPropensities[5] = 1.5;
  refused(above, "log record 5: prefix propensity 1.500000 is not in (0, 1]");
  DecisionLog growing = good;
  // Below both propensities (at least explore / 8), the longer prefix above the shorter.
  growing.prefixPropensities[1] = growing.prefixPropensities[0] * 1e-3;
  growing.prefixPropensities[2] = growing.prefixPropensities[0] * 2e-3;
  refused(growing, "log record 2: prefix propensity");
  refused(growing, "exceeds the previous position's");
  DecisionLog first = good;
  first.prefixPropensities[3] = first.propensities[3] / 2.0;
  refused(first, "log record 3: prefix propensity");
  refused(first, "at a page's first position differs from its propensity");
  DecisionLog nan = good;
  nan.prefixPropensities[1] = std::nan("");
  refused(nan, "log record 1: prefix propensity");
  DecisionLog order = good;
  std::swap(order.positions[3], order.positions[4]);
  refused(order, "log record 3 is at position 1, not 0");
  DecisionLog thompsonTarget = good;
  PersistentLinearPolicy thompson(Json{{"type", "lin-ts"}, {"dim", kDim}, {"seed", 5}});
  thompson->addArms(shop.ids.data(), shop.ids.size(), shop.features.data(), shop.features.size());
  sublinear::testing::expectError(ErrorCode::InvalidArgument, "page-cascade: the target (lin-ts) draws its slates at random",
                                  [&] { cascade.run(copiesOf(thompson), thompsonTarget); });
}

// Why page-cascade's interval is a weighted count's (Fay and Feuer's gamma interval) and not the
// normal one: from the uniform logger a deterministic target's whole page is logged once in
// m (m - 1) (m - 2) pages, so a page's term is 0 on most pages and a prefix weight of up to hundreds
// on a few, and a log that happened to show few of them gives a low estimate with a small error. Over
// generated shops (8 items, pages of 3, cascade clicks, a uniform logger without replacement, 1,000
// pages: few, so that the rare heavy pages matter) the normal interval (recomputed here from the same
// page terms, whose mean must be the report's value: the estimate is unchanged) covers the truth
// markedly less often than the report's, which holds its 95%.
TEST(PageEvaluation, CascadeIntervalHoldsUnderSkewedWeights) {
  constexpr int kSeeds = 200;
  constexpr std::size_t kItems = 8;
  constexpr std::size_t kSize = 3;
  constexpr std::size_t kPages = 1000;
  int normalCovered = 0;
  int reportCovered = 0;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Shop shop(5000 + seed, kItems);
    auto target = shop.policy(seed, 60);
    const std::vector<Id> slate = copiesOf(*target)()->selectSlate(kSize, ArmFilter{});
    const double truth = cascadeValue(shop, slate);
    DecisionLog log;
    std::vector<Id> shuffled = shop.ids;
    std::vector<double> terms(kPages, 0.0);
    for (std::size_t page = 0; page < kPages; ++page) {
      bool clicked = false;
      bool matched = true;
      double prefix = 1.0;
      for (std::size_t j = 0; j < kSize; ++j) {
        std::swap(shuffled[j], shuffled[j + shop.problem.random.uniformInt(kItems - j)]);
        const Id item = shuffled[j];
        const bool click = !clicked && shop.problem.random.bernoulli(shop.attraction(item));
        clicked = clicked || click;
        prefix /= static_cast<double>(kItems - j);
        matched = matched && item == slate[j];
        if (matched && click) terms[page] += 1.0 / prefix;
        log.arms.push_back(item);
        log.rewards.push_back(click ? 1.0 : 0.0);
        log.propensities.push_back(1.0 / static_cast<double>(kItems));
        log.prefixPropensities.push_back(prefix);
        log.positions.push_back(static_cast<std::uint32_t>(j));
        log.pages.push_back(static_cast<std::uint32_t>(page));
      }
    }
    double mean = 0.0;
    for (const double t : terms) mean += t / static_cast<double>(kPages);
    double squares = 0.0;
    for (const double t : terms) squares += (t - mean) * (t - mean);
    const double error = std::sqrt(squares / static_cast<double>(kPages - 1) / static_cast<double>(kPages));
    normalCovered += std::abs(mean - truth) <= kZ95 * error ? 1 : 0;
    const Json report = OffPolicyEvaluation(Json{{"estimators", {"page-cascade"}}}).run(copiesOf(*target), log)["page-cascade"];
    ASSERT_NEAR(report["value"].get<double>(), mean, 1e-12 * (1.0 + mean)) << seed;
    reportCovered += covers(report, truth) ? 1 : 0;
  }
  std::cout << "page-cascade, 1,000 uniform pages: the report's interval covered " << reportCovered << " of " << kSeeds << ", the normal one "
            << normalCovered << "\n";
  EXPECT_GE(reportCovered, 190);
  EXPECT_LE(normalCovered, reportCovered - 10);
}

// The gamma interval reads rewards as counts: on clicks it is skewed upwards (its upper end allows one
// more click at the largest weight); a log with a reward below 0 keeps the normal interval,
// symmetric about the same estimate.
TEST(PageEvaluation, NegativeRewardsKeepTheNormalInterval) {
  Shop shop(77, 8);
  auto target = shop.policy(3, 60);
  DecisionLog log = shop.log(1000, 3, 1.0, {});
  const OffPolicyEvaluation evaluation(Json{{"estimators", {"page-ips"}}});
  const Json clicks = evaluation.run(copiesOf(*target), log)["page-ips"];
  const double value = clicks["value"].get<double>();
  EXPECT_GT(clicks["high"].get<double>() - value, value - clicks["low"].get<double>());
  // A record the target would not show (weight 0) takes a reward below 0: the estimate is the same.
  const std::vector<Id> slate = copiesOf(*target)()->selectSlate(3, ArmFilter{});
  std::size_t other = 0;
  while (log.arms[other] == slate[log.positions[other]]) ++other;
  log.rewards[other] = -1.0;
  const Json signedRewards = evaluation.run(copiesOf(*target), log)["page-ips"];
  EXPECT_DOUBLE_EQ(signedRewards["value"].get<double>(), value);
  EXPECT_NEAR(signedRewards["high"].get<double>() - value, value - signedRewards["low"].get<double>(), 1e-12);
}
