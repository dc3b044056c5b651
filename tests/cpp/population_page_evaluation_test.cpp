#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/eval/population_evaluation.hpp"
#include "taste_shop.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::expectError;

// The value of a whole page for a population of per-user models (docs/evaluation.md, "Whole pages
// for a population"): page-ips, page-pi and page-cascade with users, against the candidate
// population's page value computed by running it online in the simulator that wrote the log.
namespace population_page_evaluation_test {
constexpr int kDim = 4;

// A generated shop: items with features in [-1, 1]^4, users with tastes of their own, and binary
// clicks of a position-based model P(click | item a at position j, user u) = sigma(-1 + 2 x_a^T
// theta_u) / (1 + 0.3 j): a page's expected clicks add over its positions.
struct PageShop : sublinear::testing::TasteShop {
  PageShop(std::size_t itemCount, std::size_t userCount, std::uint64_t seed) : TasteShop(kDim, itemCount, userCount, seed, -1.0, 1.0, -1.0, 1.0) {}
  double clickRate(std::size_t user, Id item, std::size_t position) const {
    return 1.0 / (1.0 + std::exp(1.0 - 2.0 * score(user, item))) / (1.0 + 0.3 * static_cast<double>(position));
  }
  double pageValue(std::size_t user, const std::vector<Id>& page) const {
    double value = 0.0;
    for (std::size_t j = 0; j < page.size(); ++j) value += clickRate(user, page[j], j);
    return value;
  }

  // Each user's LinUCB after `clicks` uniformly random items of its own (position 0), saved.
  std::unordered_map<Id, std::vector<std::uint8_t>> trainedStates(int clicks) {
    std::unordered_map<Id, std::vector<std::uint8_t>> states;
    for (std::size_t u = 0; u < tastes.size(); ++u) {
      PersistentLinearPolicy user(Json{{"type", "lin-ucb"}}, catalogue);
      for (int t = 0; t < clicks; ++t) {
        const Id item = items[random.uniformInt(items.size())];
        user->update(item, random.bernoulli(clickRate(u, item, 0)) ? 1.0 : 0.0);
      }
      states[static_cast<Id>(u)] = user.toBytes();
    }
    return states;
  }
};

struct Logged {
  DecisionLog log;
  std::vector<Id> users;
};

// `pages` pages of `size` per user. With probability `explore` (1: the uniform logger) a page is an
// ordered subset drawn uniformly without replacement, else the user's own logger page (a random page
// per user, drawn again every `redraw` pages when redraw > 0, as a learning logger's page changes:
// the exploration mix over a deterministic logger). Each record carries its marginal propensity
// (1 - explore) [a is the logger's there] + explore / m, its prefix's, (1 - explore) [the prefix is
// the logger's] + explore / (m (m - 1) ... (m - j)), and, for the mix, the logger's own item there
// (policyArms, as decideSlate() gives them).
Logged logOf(PageShop& shop, std::size_t pages, std::size_t size, double explore, std::size_t redraw = 0) {
  Logged logged;
  const std::size_t m = shop.items.size();
  std::vector<Id> shuffled = shop.items;
  std::uint32_t pageId = 0;
  for (std::size_t u = 0; u < shop.tastes.size(); ++u) {
    std::vector<Id> own;
    const auto drawOwn = [&] {
      own = shop.items;
      for (std::size_t j = 0; j < size; ++j) std::swap(own[j], own[j + shop.random.uniformInt(m - j)]);
      own.resize(size);
    };
    drawOwn();
    for (std::size_t page = 0; page < pages; ++page, ++pageId) {
      if (redraw > 0 && page > 0 && page % redraw == 0) drawOwn();
      const bool uniform = explore >= 1.0 || shop.random.uniform() < explore;
      double orderedSubsets = 1.0;
      bool prefixIsOwn = explore < 1.0;
      for (std::size_t j = 0; j < size; ++j) {
        Id item = own[j];
        if (uniform) {
          std::swap(shuffled[j], shuffled[j + shop.random.uniformInt(m - j)]);
          item = shuffled[j];
        }
        orderedSubsets *= static_cast<double>(m - j);
        const bool isOwn = explore < 1.0 && item == own[j];
        prefixIsOwn = prefixIsOwn && isOwn;
        logged.log.arms.push_back(item);
        logged.log.rewards.push_back(shop.random.bernoulli(shop.clickRate(u, item, j)) ? 1.0 : 0.0);
        logged.log.propensities.push_back((isOwn ? 1.0 - explore : 0.0) + explore / static_cast<double>(m));
        logged.log.prefixPropensities.push_back((prefixIsOwn ? 1.0 - explore : 0.0) + explore / orderedSubsets);
        if (explore < 1.0) logged.log.policyArms.push_back(own[j]);
        logged.log.positions.push_back(static_cast<std::uint32_t>(j));
        logged.log.pages.push_back(pageId);
        logged.users.push_back(static_cast<Id>(u));
      }
    }
  }
  return logged;
}

// The frozen population's page value on these users: each user's own page, as selectSlate shows it.
double frozenTruth(const PageShop& shop, const UserModels& models, std::size_t size) {
  double total = 0.0;
  for (std::size_t u = 0; u < shop.tastes.size(); ++u) {
    PersistentLinearPolicy model = models.make(static_cast<Id>(u));
    total += shop.pageValue(u, model->selectSlate(size, ArmFilter{}));
  }
  return total / static_cast<double>(shop.tastes.size());
}

// The learning population's page value, run online: each user's model shows `pages` pages of its
// own, one after another, and learns each position's click with probability `acceptance` (what the
// replay's rejection lets through: learningTerms), averaged over the pages, the users and `runs` runs.
double learningTruth(PageShop& shop, const UserModels& models, std::size_t pages, std::size_t size, double acceptance, int runs) {
  double total = 0.0;
  for (int run = 0; run < runs; ++run) {
    for (std::size_t u = 0; u < shop.tastes.size(); ++u) {
      PersistentLinearPolicy model = models.make(static_cast<Id>(u));
      for (std::size_t page = 0; page < pages; ++page) {
        const std::vector<Id> shown = model->selectSlate(size, ArmFilter{});
        total += shop.pageValue(u, shown);
        for (std::size_t j = 0; j < size; ++j) {
          const double click = shop.random.bernoulli(shop.clickRate(u, shown[j], j)) ? 1.0 : 0.0;
          if (shop.random.bernoulli(acceptance)) model->update(shown[j], click);
        }
      }
    }
  }
  return total / static_cast<double>(runs * shop.tastes.size() * pages);
}

bool covers(const Json& estimate, double truth) {
  return !estimate["low"].is_null() && estimate["low"].get<double>() <= truth && truth <= estimate["high"].get<double>();
}

struct Case {
  std::size_t size;
  double explore;
  bool learning;
  // The logger's own page drawn again every `redraw` pages (0: never).
  std::size_t redraw = 0;
};

// Over `seeds` generated shops of 20 items and 40 users, `pages` pages each (1,600 pages): how often each page
// estimator's 95% interval covers the candidate population's page value (and, frozen, how often the
// paired difference against a weaker baseline covers the true difference).
std::map<std::string, int> coverage(const Case& c, int seeds, std::size_t pages, std::map<std::string, double>& width,
                                    std::map<std::string, double>* error = nullptr) {
  std::map<std::string, int> covered;
  const auto erred = [&](const std::string& name, const Json& estimate, double truth) {
    if (error) (*error)[name] += (estimate["value"].get<double>() - truth) / seeds;
  };
  for (int seed = 0; seed < seeds; ++seed) {
    PageShop shop(20, 40, 1000 + static_cast<std::uint64_t>(seed));
    const Logged logged = logOf(shop, pages, c.size, c.explore, c.redraw);
    // page-cascade is left out: on pages of 5 and 10 over 20 items its prefix weights reach millions,
    // and its interval covered 17 to 27 of 30 here (docs/evaluation.md); it is for short prefixes.
    // page-pi reads the mix's pages through the log's policyArms.
    const std::vector<std::string> estimators{"page-ips", "page-pi"};
    const PopulationEvaluation evaluation(Json{{"estimators", estimators}});
    if (c.learning) {
      const UserModels candidate = UserModels::learning(shop.catalogue, Json{{"type", "lin-ucb"}, {"seed", 3}});
      const Json report = evaluation.run(candidate, nullptr, logged.log, logged.users);
      const double acceptance = report["diagnostics"]["acceptance"].get<double>();
      const double truth = learningTruth(shop, candidate, pages, c.size, acceptance, 5);
      for (const std::string& name : estimators) {
        covered[name] += covers(report[name], truth);
        width[name] += (report[name]["high"].get<double>() - report[name]["low"].get<double>()) / seeds;
        erred(name, report[name], truth);
      }
      continue;
    }
    const UserModels candidate = UserModels::frozen(shop.catalogue, shop.trainedStates(60));
    const UserModels baseline = UserModels::frozen(shop.catalogue, shop.trainedStates(5));
    const Json report = evaluation.run(candidate, &baseline, logged.log, logged.users);
    const double truth = frozenTruth(shop, candidate, c.size);
    const double difference = truth - frozenTruth(shop, baseline, c.size);
    for (const std::string& name : estimators) {
      covered[name] += covers(report[name], truth);
      covered["difference." + name] += covers(report["difference"][name], difference);
      erred(name, report[name], truth);
      erred("difference." + name, report["difference"][name], difference);
      width[name] += (report[name]["high"].get<double>() - report[name]["low"].get<double>()) / seeds;
      width["difference." + name] += (report["difference"][name]["high"].get<double>() - report["difference"][name]["low"].get<double>()) / seeds;
    }
  }
  return covered;
}

void expectCoverage(const Case& c, int seeds, std::size_t pages) {
  std::map<std::string, double> width;
  const std::map<std::string, int> covered = coverage(c, seeds, pages, width);
  for (const auto& [name, count] : covered) {
    std::cout << (c.learning ? "learning" : "frozen") << ", pages of " << c.size << ", explore " << c.explore
              << (c.redraw > 0 ? ", logger page redrawn every " + std::to_string(c.redraw) + " pages" : std::string()) << ": " << name << " covered "
              << count << " of " << seeds << ", mean width " << width[name] << "\n";
    // page-pi and its paired difference have the normal interval over few pages (1,600 here; one
    // policy's page-pi needed thousands): over 200 seeds (DISABLED_CoverageOverManySeeds) they covered
    // 183 to 194 of 200 (about 93%), so they are held to 80% of 30 seeds; page-ips to 90%.
    const bool normalOverFewPages = name == "page-pi" || name == "difference.page-pi";
    const int floor = normalOverFewPages ? (seeds * 8 + 9) / 10 : (seeds * 9 + 9) / 10;
    EXPECT_GE(count, floor) << name << (c.learning ? " learning" : " frozen") << ", pages of " << c.size << ", explore "
                                           << c.explore;
  }
}
}  // namespace population_page_evaluation_test

using namespace population_page_evaluation_test;

TEST(PopulationPageEvaluation, FrozenPopulationIntervalsCoverTheOnlinePageValue) {
  for (const std::size_t size : {5, 10}) {
    expectCoverage(Case{size, 1.0, false}, 30, 40);
    expectCoverage(Case{size, 0.5, false}, 30, 40);
  }
  // A logger whose own page changes (each user's, every 5 pages): page-pi reads each page's own.
  expectCoverage(Case{5, 0.5, false, 5}, 60, 40);
}

TEST(PopulationPageEvaluation, LearningPopulationIntervalsCoverTheOnlinePageValue) {
  for (const std::size_t size : {5, 10}) {
    expectCoverage(Case{size, 1.0, true}, 30, 40);
    expectCoverage(Case{size, 0.5, true}, 30, 40);
  }
  expectCoverage(Case{5, 0.5, true, 5}, 60, 40);
}

TEST(PopulationPageEvaluation, RefusesWhatItCannotEstimate) {
  PageShop shop(8, 3, 1);
  Logged logged = logOf(shop, 4, 3, 0.5);
  const UserModels frozen = UserModels::frozen(shop.catalogue, shop.trainedStates(10));
  const auto refused = [&](const Json& options, const Logged& log, const std::string& fragment) {
    expectError(ErrorCode::InvalidArgument, fragment, [&] { PopulationEvaluation(options).run(frozen, nullptr, log.log, log.users); });
  };
  // page-pi reads the mix's pages through their policyArms: without them it refuses, as for one policy.
  EXPECT_EQ(PopulationEvaluation(Json{{"estimators", {"page-pi"}}}).run(frozen, nullptr, logged.log, logged.users)["page-pi"]["n"].get<std::size_t>(),
            12u);
  Logged unnamed = logged;
  unnamed.log.policyArms.clear();
  refused(Json{{"estimators", {"page-pi"}}}, unnamed, "the exploration mix's pages: log decideSlate()'s policyArms");
  // A page is one user's.
  Logged mixed = logged;
  mixed.users[1] = 2;
  refused(Json{{"estimators", {"page-ips"}}}, mixed, "log record 1: user 2 on the page of user 0 (records 0 to 2): a page is one user's");
  // page-cascade needs the prefixes' propensities and deterministic users.
  Logged noPrefix = logged;
  noPrefix.log.prefixPropensities.clear();
  refused(Json{{"estimators", {"page-cascade"}}}, noPrefix, "no prefix propensities");
  const UserModels thompson = UserModels::learning(shop.catalogue, Json{{"type", "lin-ts"}});
  expectError(ErrorCode::InvalidArgument, "page-cascade: the target (lin-ts) draws its slates at random", [&] {
    PopulationEvaluation(Json{{"estimators", {"page-cascade"}}}).run(thompson, nullptr, logged.log, logged.users);
  });
  // Without a page estimator a page that mixes users is not read as a page (per-record estimators).
  EXPECT_TRUE(PopulationEvaluation(Json::object()).run(frozen, nullptr, mixed.log, mixed.users).contains("ips"));
  // The page estimators with the others: the per-position reports keep the others only.
  const Json both = PopulationEvaluation(Json{{"estimators", {"ips", "page-ips"}}}).run(frozen, &frozen, logged.log, logged.users);
  EXPECT_EQ(both["page-ips"]["n"].get<std::size_t>(), 12u);
  EXPECT_EQ(both["diagnostics"]["page-ips"]["pages"].get<std::size_t>(), 12u);
  EXPECT_EQ(both["difference"]["page-ips"]["value"].get<double>(), 0.0);
  EXPECT_FALSE(both["positions"][0].contains("page-ips"));
  EXPECT_TRUE(both["positions"][0].contains("ips"));
}

TEST(PopulationPageEvaluation, BootstrapResamplesUsersAndALearningReportCarriesReplayBeside) {
  PageShop shop(10, 30, 2);
  const Logged logged = logOf(shop, 20, 4, 1.0);
  const UserModels frozen = UserModels::frozen(shop.catalogue, shop.trainedStates(20));
  const Json estimators = Json{"page-ips", "page-pi"};
  const Json normal = PopulationEvaluation(Json{{"estimators", estimators}}).run(frozen, nullptr, logged.log, logged.users);
  const Json bootstrap = PopulationEvaluation(Json{{"estimators", estimators}, {"interval", "bootstrap"}, {"seed", 3}})
                             .run(frozen, nullptr, logged.log, logged.users);
  for (const char* name : {"page-ips", "page-pi"}) {
    SCOPED_TRACE(name);
    // The same estimate; an interval of resampled users around it, of a width like the other's.
    EXPECT_EQ(bootstrap[name]["value"].get<double>(), normal[name]["value"].get<double>());
    const double value = normal[name]["value"].get<double>();
    EXPECT_LT(bootstrap[name]["low"].get<double>(), value);
    EXPECT_GT(bootstrap[name]["high"].get<double>(), value);
    const double widths = (bootstrap[name]["high"].get<double>() - bootstrap[name]["low"].get<double>()) /
                          (normal[name]["high"].get<double>() - normal[name]["low"].get<double>());
    EXPECT_GT(widths, 0.5);
    EXPECT_LT(widths, 2.0);
  }
  // A learning population: replay and the page estimates walk one path (the same accepted records).
  const UserModels learning = UserModels::learning(shop.catalogue, Json{{"type", "lin-ucb"}});
  const Json both = PopulationEvaluation(Json{{"estimators", {"replay", "page-ips"}}}).run(learning, nullptr, logged.log, logged.users);
  const Json pagesOnly = PopulationEvaluation(Json{{"estimators", {"page-ips"}}}).run(learning, nullptr, logged.log, logged.users);
  EXPECT_EQ(both["page-ips"]["value"].get<double>(), pagesOnly["page-ips"]["value"].get<double>());
  EXPECT_EQ(both["horizon"].get<double>(), pagesOnly["horizon"].get<double>());
  EXPECT_EQ(both["replay"]["n"].get<std::size_t>(), both["diagnostics"]["accepted"].get<std::size_t>());
  EXPECT_FALSE(pagesOnly.contains("replay"));
  EXPECT_EQ(both["page-ips"]["n"].get<std::size_t>(), 600u);
}

// Not run by default: the coverage of every case over more seeds (SEEDS, 200 unless set), with the
// mean error of each estimate, for docs/evaluation.md.
TEST(PopulationPageEvaluation, DISABLED_CoverageOverManySeeds) {
  const char* given = std::getenv("SEEDS");
  const int seeds = given ? std::atoi(given) : 200;
  for (const bool learning : {false, true}) {
    for (const Case& c : {Case{5, 1.0, learning}, Case{5, 0.5, learning}, Case{10, 1.0, learning}, Case{10, 0.5, learning},
                          Case{5, 0.5, learning, 5}, Case{10, 0.5, learning, 5}}) {
      std::map<std::string, double> width;
      std::map<std::string, double> error;
      for (const auto& [name, count] : coverage(c, seeds, 40, width, &error)) {
        std::cout << (learning ? "learning" : "frozen") << ", pages of " << c.size << ", explore " << c.explore
                  << (c.redraw > 0 ? ", logger page redrawn every " + std::to_string(c.redraw) + " pages" : std::string()) << ": " << name
                  << " covered " << count << " of " << seeds << ", mean width " << width[name] << ", mean error " << error[name] << "\n";
      }
    }
  }
}
