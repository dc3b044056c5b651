#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <string>

#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "sublinear/mips/pca_tree_index.hpp"
#include "sublinear/sim/simulate.hpp"
#include "test_support.hpp"

using namespace sublinear;
using sublinear::testing::codeOf;
using sublinear::testing::expectError;

namespace option_table_test {
// A valid value of every documented option of `table` (defaults where they are plain numbers).
Json everyOption(const OptionTable& table) {
  Json options = Json::object();
  for (const OptionGroup* group : table.groups) {
    for (const OptionSpec& spec : *group) {
      if (spec.internal) continue;
      const std::string name = spec.name;
      switch (spec.type) {
        case OptionType::Integer:
        case OptionType::Number:
        case OptionType::Seed: {
          double value = spec.fallback;
          if (spec.computed && spec.type == OptionType::Integer) {
            value = spec.high;  // maxShortlist must be at least shortlist
          } else if (spec.computed || value < spec.low || (spec.lowOpen && value == spec.low)) {
            value = spec.type == OptionType::Number ? (spec.low + std::min(spec.high, spec.low + 1.0)) / 2.0 : std::min(spec.high, spec.low + 2.0);
          }
          if (name == "dim") value = 3;
          options[name] = value;
          break;
        }
        case OptionType::Boolean: options[name] = spec.fallback != 0.0; break;
        case OptionType::String: options[name] = spec.fallbackText; break;
        case OptionType::Object:
        case OptionType::Array: break;  // nested specs, seeds: covered by their own tests
      }
    }
  }
  return options;
}

TEST(OptionTable, MisspeltKeyNamesTheNearestOption) {
  expectError(ErrorCode::InvalidArgument, "unknown option 'efSerch' for hnsw (did you mean 'efSearch'?)",
              [] { makeMipsIndex(4, Json{{"type", "hnsw"}, {"efSerch", 10}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'shortlst' for sub-ts (did you mean 'shortlist'?)",
              [] { makeLinearPolicy(3, Json{{"type", "sub-ts"}, {"shortlst", 10}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'auditbudget' for lin-ts (did you mean 'auditBudget'?)",
              [] { makeLinearPolicy(3, Json{{"type", "lin-ts"}, {"auditbudget", 0.2}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'radious' for lin-ucb (did you mean 'radius'?)",
              [] { makeLinearPolicy(3, Json{{"type", "lin-ucb"}, {"radious", "practical"}}); });
  const UniformMatroid matroid(6, 2);
  expectError(ErrorCode::InvalidArgument, "unknown option 'epsilom' for faster-cucb (did you mean 'epsilon'?)",
              [&] { makeSemiBanditPolicy("faster-cucb", matroid, Json{{"epsilom", 0.1}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'alpah' for c2ucb (did you mean 'alpha'?)",
              [] { makeClsPolicy(Json{{"type", "c2ucb"}, {"dim", 3}, {"alpah", 1}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'horizn' for simulate (did you mean 'horizon'?)", [] {
    simulate(Json{{"environment", {{"type", "linear"}}}, {"policy", {{"type", "lin-ucb"}}}, {"horizon", 5}, {"horizn", 5}});
  });
  expectError(ErrorCode::InvalidArgument, "unknown option 'arm' for linear (did you mean 'arms'?)", [] {
    simulate(Json{{"environment", {{"type", "linear"}, {"arm", 3}}}, {"policy", {{"type", "lin-ucb"}}}, {"horizon", 5}});
  });
  // The matroid environment reads K and matroid: { rank }, not arms and rank.
  expectError(ErrorCode::InvalidArgument, "unknown option 'rank' for matroid", [] {
    simulate(Json{{"environment", {{"type", "matroid"}, {"rank", 3}}}, {"policy", {{"type", "cucb"}}}, {"horizon", 5}});
  });
  // Every environment accepts the seed (the demo gives one to each), mab-bp included.
  EXPECT_NO_THROW(simulate(Json{{"environment", {{"type", "mab-bp"}, {"arms", 4}, {"listLength", 10}, {"seed", 3}}},
                                {"policy", {{"type", "bounded-me"}}}, {"horizon", 2}}));
  // simulate() gives its horizon only to policies that read one: a combinatorial policy has none.
  EXPECT_NO_THROW(simulate(Json{{"environment", {{"type", "clustered"}, {"dim", 3}, {"arms", 20}, {"k", 2}}},
                                {"policy", {{"type", "c2ucb"}}}, {"horizon", 3}}));
  expectError(ErrorCode::InvalidArgument, "unknown option 'horizon' for c2ucb", [] {
    simulate(Json{{"environment", {{"type", "clustered"}, {"dim", 3}, {"arms", 20}, {"k", 2}}},
                  {"policy", {{"type", "c2ucb"}, {"horizon", 3}}}, {"horizon", 3}});
  });
  // Nothing near: the known names instead.
  expectError(ErrorCode::InvalidArgument, "unknown option 'zzzzzzzz' for lsh (known: dim, bits, tables, seed)",
              [] { makeMipsIndex(4, Json{{"type", "lsh"}, {"zzzzzzzz", 1}}); });
}

TEST(OptionTable, OptionsOfAnotherClassAreRefused) {
  // LinUCB has no shortlist, C2UCB no efSearch of its own, an exact index no M.
  expectError(ErrorCode::InvalidArgument, "unknown option 'shortlist' for lin-ucb",
              [] { makeLinearPolicy(3, Json{{"type", "lin-ucb"}, {"shortlist", 10}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'efSearch' for c2ucb",
              [] { makeClsPolicy(Json{{"type", "c2ucb"}, {"dim", 3}, {"efSearch", 8}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'M' for exact", [] { makeMipsIndex(4, Json{{"type", "exact"}, {"M", 4}}); });
  // A policy's index spec is checked by the index's table.
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.efSerch' for sub-ts",
              [] { makeLinearPolicy(3, Json{{"type", "sub-ts"}, {"index", {{"type", "hnsw"}, {"efSerch", 4}}}}); });
}

// Nested option objects go through their own tables: an unknown key is named with its path, with
// the nearest valid one, before anything is built.
TEST(OptionTable, NestedKeysAreCheckedWithTheirPath) {
  const auto linear = [](const Json& change) {
    return Json{{"environment", {{"type", "linear"}, {"dim", 2}, {"arms", 5}, {"change", change}}}, {"policy", {{"type", "lin-ucb"}}}, {"horizon", 3}};
  };
  expectError(ErrorCode::InvalidArgument, "unknown option 'change.evrey' for linear (did you mean 'change.every'?)",
              [&] { simulate(linear(Json{{"evrey", 2}})); });
  EXPECT_NO_THROW(simulate(linear(Json{{"every", 2}, {"add", 1}, {"remove", 1}})));
  // The ratings environment needs a file to run, not to have its keys checked.
  expectError(ErrorCode::InvalidArgument, "unknown option 'change.ad' for ratings (did you mean 'change.add'?)",
              [] { optionTable("environment", "ratings").check(Json{{"change", {{"every", 3}, {"ad", 1}}}}); });

  const auto matroid = [](const Json& spec) {
    return Json{{"environment", {{"type", "matroid"}, {"K", 12}, {"matroid", spec}}}, {"policy", {{"type", "cucb"}}}, {"horizon", 3}};
  };
  expectError(ErrorCode::InvalidArgument, "unknown option 'matroid.rnak' for matroid (did you mean 'matroid.rank'?)",
              [&] { simulate(matroid(Json{{"kind", "uniform"}, {"rnak", 3}})); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'matroid.vertexes' for matroid (did you mean 'matroid.vertices'?)",
              [&] { simulate(matroid(Json{{"kind", "graphic"}, {"vertexes", 5}})); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'matroid.zzzzzzzz' for matroid (known: kind, rank, groups, groupOfArm",
              [&] { simulate(matroid(Json{{"zzzzzzzz", 1}})); });
  for (const Json& spec : {Json{{"kind", "uniform"}, {"rank", 3}}, Json{{"kind", "partition"}, {"groups", 3}},
                           Json{{"kind", "graphic"}, {"vertices", 5}}, Json{{"kind", "transversal"}, {"right", 4}, {"degree", 2}}}) {
    EXPECT_NO_THROW(simulate(matroid(spec))) << spec.dump();
  }

  // Index specs are checked against the table of their type, defaulting as the owner defaults it.
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.efSerch' for sub-ts (did you mean 'index.efSearch'?)",
              [] { makeLinearPolicy(3, Json{{"type", "sub-ts"}, {"index", {{"efSerch", 4}}}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.M' for lin-ts", [] { makeLinearPolicy(3, Json{{"type", "lin-ts"}, {"index", {{"M", 4}}}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.M' for linear-elim",
              [] { makeLinearPolicy(3, Json{{"type", "linear-elim"}, {"index", {{"M", 4}}}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.efSerch' for sub-elim",
              [] { makeLinearPolicy(3, Json{{"type", "sub-elim"}, {"index", {{"efSerch", 4}}}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'base.efSerch' for adaptive (did you mean 'base.efSearch'?)",
              [] { makeMipsIndex(4, Json{{"type", "adaptive"}, {"base", {{"efSerch", 4}}}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.base.bitz' for sub-ts (did you mean 'index.base.bits'?)", [] {
    makeLinearPolicy(3, Json{{"type", "sub-ts"}, {"index", {{"type", "adaptive"}, {"base", {{"type", "lsh"}, {"bitz", 4}}}}}});
  });
  // A cls policy's index: the keys the policy reads (shortlist, certify, delta) and the index's.
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.shortlsit' for c2ucb (did you mean 'index.shortlist'?)",
              [] { makeClsPolicy(Json{{"type", "c2ucb"}, {"dim", 3}, {"index", {{"type", "hnsw"}, {"shortlsit", 8}}}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'index.M' for comb-ts",
              [] { makeClsPolicy(Json{{"type", "comb-ts"}, {"dim", 3}, {"index", {{"M", 8}}}}); });
  EXPECT_NO_THROW(makeClsPolicy(Json{{"type", "c2ucb"}, {"dim", 3},
                                     {"index", {{"type", "hnsw"}, {"shortlist", 8}, {"certify", false}, {"delta", 0.01}, {"efSearch", 16}}}}));
  // An unknown type is left to the reader, which names the types it knows.
  expectError(ErrorCode::InvalidArgument, "unknown index type 'hnws'",
              [] { makeLinearPolicy(3, Json{{"type", "sub-ts"}, {"index", {{"type", "hnws"}, {"efSerch", 4}}}}); });
}

TEST(OptionTable, ExactIndexValidatesTheSeedEveryIndexAccepts) {
  EXPECT_EQ(codeOf([] { makeMipsIndex(4, Json{{"type", "exact"}, {"seed", -1}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(codeOf([] { PersistentIndex(Json{{"type", "exact"}, {"dim", 4}, {"seed", 1.5}}); }), ErrorCode::InvalidArgument);
  EXPECT_NO_THROW(makeMipsIndex(4, Json{{"type", "exact"}, {"seed", 7}}));
}

TEST(OptionTable, EveryConstructorAcceptsEveryOptionOfItsTable) {
  const UniformMatroid matroid(6, 2);
  for (const OptionTable& table : optionTables()) {
    Json options = everyOption(table);
    options["type"] = table.type;
    SCOPED_TRACE(table.kind + " " + table.type + " " + options.dump());
    if (table.kind == "index") {
      if (table.type == "greedy") options.erase("budget");  // not with budgetFraction
      EXPECT_NO_THROW(PersistentIndex{options});
    } else if (table.kind == "linear-policy") {
      EXPECT_NO_THROW(makeLinearPolicy(3, options));
    } else if (table.kind == "semi-bandit-policy") {
      options.erase("type");
      EXPECT_NO_THROW(makeSemiBanditPolicy(table.type, matroid, options));
    } else if (table.kind == "cls-policy") {
      EXPECT_NO_THROW(makeClsPolicy(options));
    }
  }
}

// A string option with choices in its table takes every choice and nothing else: readStringOption
// enforces the table's `choices`, so no constructor checks them by hand.
TEST(OptionTable, StringOptionsTakeTheirChoicesAndNothingElse) {
  const UniformMatroid matroid(6, 2);
  const auto construct = [&](const OptionTable& table, const Json& options) {
    if (table.kind == "index") {
      PersistentIndex{options};
    } else if (table.kind == "linear-policy") {
      makeLinearPolicy(3, options);
    } else if (table.kind == "semi-bandit-policy") {
      Json untyped = options;
      untyped.erase("type");
      makeSemiBanditPolicy(table.type, matroid, untyped);
    } else if (table.kind == "cls-policy") {
      makeClsPolicy(options);
    }
  };
  int checked = 0;
  for (const OptionTable& table : optionTables()) {
    if (table.kind != "index" && table.kind != "linear-policy" && table.kind != "semi-bandit-policy" && table.kind != "cls-policy") continue;
    for (const Json& choice : table.describe()) {
      if (!choice.contains("choices")) continue;
      const std::string name = choice["name"];
      Json options = everyOption(table);
      options["type"] = table.type;
      if (table.type == "greedy") options.erase("budget");
      if (table.type == "linear-elim" || table.type == "sub-elim") {
        // The lifted search is of the arms as they are: a subspace (which modelDim asks for) with it
        // is refused, so each of the two is tried with the other out of its way.
        options.erase("modelDim");
        options.erase("subspaceEnergy");
        if (name == "search") options["subspace"] = "none";
        if (name == "subspace") options["search"] = "widths";
      }
      SCOPED_TRACE(table.kind + " " + table.type + "." + name);
      for (const Json& value : choice["choices"]) {
        options[name] = value;
        EXPECT_NO_THROW(construct(table, options)) << value;
      }
      options[name] = "none-of-these";
      expectError(ErrorCode::InvalidArgument, "option '" + name + "' must be ", [&] { construct(table, options); });
      expectError(ErrorCode::InvalidArgument, ", got 'none-of-these'", [&] { construct(table, options); });
      ++checked;
    }
  }
  EXPECT_GE(checked, 4);  // hnsw space and build, every ridge policy's radius, comb-ts randomization
  expectError(ErrorCode::InvalidArgument, "option 'space' must be 'auto', 'inner-product' or 'euclidean', got 'cosine'",
              [] { PersistentIndex{Json{{"type", "hnsw"}, {"dim", 3}, {"space", "cosine"}}}; });

  // Environments, through simulate(): the nested matroid's kind is named with its path.
  const auto run = [](const Json& environment, const char* policy) {
    simulate(Json{{"environment", environment}, {"policy", {{"type", policy}}}, {"horizon", 2}});
  };
  expectError(ErrorCode::InvalidArgument, "option 'matroid.kind' must be 'uniform', 'partition', 'graphic' or 'transversal', got 'cycle'",
              [&] { run(Json{{"type", "matroid"}, {"K", 12}, {"matroid", {{"kind", "cycle"}}}}, "cucb"); });
  expectError(ErrorCode::InvalidArgument, "option 'rewards' must be 'bernoulli' or 'bounded', got 'gaussian'",
              [&] { run(Json{{"type", "matroid"}, {"K", 12}, {"rewards", "gaussian"}}, "cucb"); });
  expectError(ErrorCode::InvalidArgument, "option 'dataset' must be 'gaussian' or 'uniform', got 'normal'",
              [&] { run(Json{{"type", "mips"}, {"dataset", "normal"}}, "exact"); });
  EXPECT_NO_THROW(run(Json{{"type", "mips"}, {"dataset", "uniform"}}, "exact"));
  EXPECT_NO_THROW(run(Json{{"type", "matroid"}, {"K", 12}, {"matroid", {{"kind", "graphic"}}}}, "cucb"));
}

// Every environment (but ratings, which needs a file) runs with each of its plain options given at
// the table's default: the tables and the environments' readers agree on names and ranges.
TEST(OptionTable, EveryEnvironmentAcceptsItsTablesDefaults) {
  const std::pair<const char*, const char*> policies[] = {{"linear", "lin-ucb"}, {"clustered", "c2ucb"}, {"promotion", "c2ucb"},
                                                          {"matroid", "cucb"}, {"mab-bp", "bounded-me"}, {"mips", "exact"}};
  for (const auto& [type, policy] : policies) {
    Json environment{{"type", type}};
    for (const OptionGroup* group : optionTable("environment", type).groups) {
      for (const OptionSpec& spec : *group) {
        if (spec.internal || spec.computed) continue;
        if (spec.type == OptionType::Integer || spec.type == OptionType::Number || spec.type == OptionType::Seed) {
          environment[spec.name] = spec.fallback;
        } else if (spec.type == OptionType::Boolean) {
          environment[spec.name] = spec.fallback != 0.0;
        } else if (spec.type == OptionType::String && *spec.choices != '\0') {
          environment[spec.name] = spec.fallbackText;
        }
      }
    }
    SCOPED_TRACE(environment.dump());
    EXPECT_NO_THROW(simulate(Json{{"environment", environment}, {"policy", {{"type", policy}}}, {"horizon", 2}}));
  }
}

TEST(OptionTable, DefaultsLieInTheirRangesAndNamesAreUnique) {
  for (const OptionTable& table : optionTables()) {
    std::vector<std::string> names;
    for (const OptionGroup* group : table.groups) {
      for (const OptionSpec& spec : *group) {
        SCOPED_TRACE(table.type + "." + spec.name);
        EXPECT_EQ(std::count(names.begin(), names.end(), spec.name), 0) << "listed twice";
        names.push_back(spec.name);
        EXPECT_NE(std::string(spec.doc), "");
        const bool numeric = spec.type == OptionType::Integer || spec.type == OptionType::Number || spec.type == OptionType::Seed;
        if (numeric && !spec.computed && std::string(spec.fallbackText).empty()) {
          EXPECT_TRUE(spec.lowOpen ? spec.fallback > spec.low : spec.fallback >= spec.low);
          EXPECT_TRUE(spec.highOpen ? spec.fallback < spec.high : spec.fallback <= spec.high);
        }
      }
    }
    EXPECT_EQ(table.describe().size(), names.size());
  }
  EXPECT_EQ(codeOf([] { optionTable("index", "hnws"); }), ErrorCode::InvalidArgument);
}

// HnswIndex reads its options through the table; its stats report what it uses.
TEST(OptionTable, HnswDefaultsMatchWhatTheIndexUses) {
  const auto index = makeMipsIndex(4, Json{{"type", "hnsw"}});
  const Json stats = index->stats();
  const OptionTable& table = optionTable("index", "hnsw");
  for (const char* name : {"M", "efConstruction"}) {
    EXPECT_EQ(stats[name].get<double>(), table.find(name)->fallback) << name;
  }
  // efSearch's default depends on the dimension, as the table's text says.
  EXPECT_EQ(std::string(table.find("efSearch")->fallbackText), "64 below 256 dimensions, 144 from 256");
  EXPECT_EQ(stats["efSearch"].get<std::size_t>(), 64u);
  EXPECT_EQ(makeMipsIndex(255, Json{{"type", "hnsw"}})->stats()["efSearch"].get<std::size_t>(), 64u);
  EXPECT_EQ(makeMipsIndex(256, Json{{"type", "hnsw"}})->stats()["efSearch"].get<std::size_t>(), 144u);
  EXPECT_EQ(std::string(table.find("space")->fallbackText), "auto");
  EXPECT_FALSE(stats["spaceDecided"].get<bool>());
  // And on the ranges: both ends accepted, one beyond refused, by HnswIndex's own reader.
  for (const char* name : {"M", "efConstruction", "efSearch", "seed"}) {
    const OptionSpec& spec = *table.find(name);
    for (const double value : {spec.low, spec.high}) {
      EXPECT_NO_THROW(makeMipsIndex(4, Json{{"type", "hnsw"}, {name, value}})) << name << " " << value;
    }
    for (const double value : {spec.low - 1, spec.high + 1}) {
      EXPECT_EQ(codeOf([&] { makeMipsIndex(4, Json{{"type", "hnsw"}, {name, value}}); }), ErrorCode::InvalidArgument) << name << " " << value;
    }
  }
}

TEST(OptionTable, NearestNameNeedsToBeNear) {
  EXPECT_EQ(nearestOptionName("efsearch", {"efSearch", "M"}), "efSearch");
  EXPECT_EQ(nearestOptionName("x", {"M", "k"}), "");
  EXPECT_EQ(nearestOptionName("totallyDifferent", {"shortlist", "lambda"}), "");
}

TEST(SizeLimits, MatroidsRefuseMoreThanTwoToThe28Vertices) {
  expectError(ErrorCode::InvalidArgument, "at most 2^28 arms",
              [] { TransversalMatroid(4294967295u, 2, std::vector<std::uint32_t>{0, 0}); });
  expectError(ErrorCode::InvalidArgument, "at most 2^28 right vertices",
              [] { TransversalMatroid(2, (std::size_t{1} << 28) + 1, std::vector<std::uint32_t>{0, 0}); });
  expectError(ErrorCode::InvalidArgument, "at most 2^28 vertices",
              [] { GraphicMatroid(4294967295u, std::vector<std::uint32_t>{0, 1}); });
  EXPECT_NO_THROW(GraphicMatroid(3, std::vector<std::uint32_t>{0, 1, 1, 2}));
}

TEST(SizeLimits, IndexVectorsAndQueriesAreAtMost1e15) {
  PersistentIndex index(Json{{"type", "exact"}, {"dim", 2}});
  const Id ids[] = {1};
  const float large[] = {2e15f, 0.0f};
  const float fine[] = {1e15f, 0.0f};
  expectError(ErrorCode::InvalidArgument, "exceeds 1e15", [&] { addUserItems(*index, ids, 1, large, 2); });
  EXPECT_EQ(index->size(), 0u);
  const float infinite[] = {INFINITY, 0.0f};
  EXPECT_EQ(codeOf([&] { addUserItems(*index, ids, 1, infinite, 2); }), ErrorCode::NonFinite);
  addUserItems(*index, ids, 1, fine, 2);
  expectError(ErrorCode::InvalidArgument, "query[0]", [&] { searchForUser(*index, large, 2, 1); });
  EXPECT_EQ(searchForUser(*index, fine, 2, 1).ids.size(), 1u);
}

// Recall@10 of the PCA tree against the exact scan on 6,000 Gaussian items in d = 16. With the old
// fixed depth of 8 (leaves of about 23 items) it was about 0.07.
TEST(PcaTreeDefaults, DepthAdaptsToTheSizeAndKeepsRecall) {
  constexpr std::size_t n = 6000, dim = 16, k = 10, queries = 100;
  Random random(5);
  std::vector<float> data(n * dim);
  for (auto& value : data) value = static_cast<float>(random.normal());
  std::vector<Id> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<Id>(i);
  const auto tree = makeMipsIndex(dim, Json{{"type", "pca-tree"}, {"seed", 1}});
  const auto fixed = makeMipsIndex(dim, Json{{"type", "pca-tree"}, {"seed", 1}, {"depth", 8}});
  ExactIndex exact(dim);
  tree->add(ids.data(), n, data.data(), data.size());
  fixed->add(ids.data(), n, data.data(), data.size());
  exact.add(ids.data(), n, data.data(), data.size());
  double found = 0, foundFixed = 0;
  std::vector<float> query(dim);
  for (std::size_t q = 0; q < queries; ++q) {
    for (auto& value : query) value = static_cast<float>(random.normal());
    const auto truth = exact.search(query.data(), dim, k).ids;
    const auto approximate = tree->search(query.data(), dim, k).ids;
    const auto approximateFixed = fixed->search(query.data(), dim, k).ids;
    for (const Id id : truth) {
      found += std::count(approximate.begin(), approximate.end(), id);
      foundFixed += std::count(approximateFixed.begin(), approximateFixed.end(), id);
    }
  }
  const double recall = found / (queries * k);
  EXPECT_GE(recall, 0.45) << "default depth " << tree->stats()["depth"];
  EXPECT_GT(recall, 4 * foundFixed / (queries * k));
  EXPECT_EQ(tree->stats()["depth"].get<std::size_t>(), 2u);  // 6000 / 2^2 = 1500 items per leaf
  EXPECT_EQ(fixed->stats()["depth"].get<std::size_t>(), 8u);  // a given depth is kept
}
}  // namespace option_table_test
