#include "sublinear/matroid/matroid_option_tables.hpp"

#include "sublinear/core/option_specs.hpp"

// The options of matroid semi-bandit policies and the matroid environment, as data: their
// constructors read them through these groups, the factories check keys against the tables,
// JavaScript sees the tables through optionTable(kind, type). Every default is written here and
// only here; comments elsewhere cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& semiBandit() {
  static const OptionGroup group{
      number("a", 0.0, -1e150, 1e150, "lower end of the rewards' range [a, b]"),
      number("b", 1.0, -1e150, 1e150, "upper end of the rewards' range [a, b]"),
      integer("horizon", 10000, 1, kMaxSeed, "T, the number of rounds"),
      seed(0, "seed of the policy's random numbers"),
  };
  return group;
}

const OptionGroup& fasterCucb() {
  static const OptionGroup group{
      // At least 1e-5: the rounding levels, log(value) / log(1 + epsilon / 3), must stay within an
      // int for every double value (|log| <= 745); at 1e-300 the step itself was 0.
      computedNumber("epsilon", 1e-5, 1, false, true, "min(0.5, max(0.01, 1 / ln(max(horizon, 3))))", "feature rounding accuracy"),
  };
  return group;
}

const OptionGroup& matroidEnvironment() {
  static const OptionGroup group{
      integer("K", 1000, 1, 100000000, "arms K"),
      text("rewards", "bernoulli", "bernoulli|bounded", "Bernoulli rewards, or bounded ones in [a, b]"),
      number("a", 0.0, -1e150, 1e150, "(bounded) lower end of the rewards"),
      number("b", 1.0, -1e150, 1e150, "(bounded) upper end of the rewards"),
      nested(object("matroid", "{ kind: 'uniform' }", "{ kind, rank | groups | groupOfArm | vertices, edges | right, degree, edges }"),
             "nested", "", "matroid.matroid"),
      array("means", "drawn from the seed", "the K arms' mean rewards, in [a, b]"),
      nested(object("drift", "none: the means stay", "{ kind: 'switch', every }: the arms' means turn over (m -> a + b - m) every `every` rounds"),
             "nested", "", "matroid.drift"),
  };
  return group;
}

const OptionGroup& matroidDrift() {
  static const OptionGroup group{
      text("kind", "switch", "switch", "'switch': the best arms become the worst every `every` rounds, and back at the next switch"),
      integer("every", 1000, 1, 1e12, "rounds between switches"),
  };
  return group;
}

// One table for every kind: the demo's form sends the keys of every kind, each kind reads its own.
const OptionGroup& matroidSpec() {
  static const OptionGroup group{
      text("kind", "uniform", "uniform|partition|graphic|transversal", "the matroid class"),
      computedInteger("rank", 1, 100000000, "min(10, K)", "(uniform) rank D, at most K"),
      computedInteger("groups", 1, 100000000, "min(10, K)", "(partition) groups, arm i in group i mod groups, at most K"),
      array("groupOfArm", "none: groups", "(partition) the group of each of the K arms"),
      integer("vertices", 11, 2, kMaxUint32, "(graphic) vertices of the graph"),
      integer("right", 10, 1, kMaxUint32, "(transversal) right vertices"),
      integer("degree", 2, 1, 1000, "(transversal) right neighbours drawn per arm when edges are not given"),
      array("edges", "drawn from the seed",
            "(graphic) 2K endpoints, arm i joining edges[2i] and edges[2i+1]; (transversal) pairs (arm, right vertex)"),
  };
  return group;
}

}  // namespace option_groups

namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kMatroidTablesAdded = addOptionTables({
    {"semi-bandit-policy", "cucb", {&typed(), &semiBandit(), &forgetting()}},
    {"semi-bandit-policy", "faster-cucb", {&typed(), &semiBandit(), &forgetting(), &fasterCucb()}},
    {"semi-bandit-policy", "cts", {&typed(), &semiBandit(), &forgetting()}},
    {"nested", "matroid.matroid", {&matroidSpec()}},
    {"nested", "matroid.drift", {&matroidDrift()}},
});
}  // namespace

}  // namespace sublinear
