#include "sublinear/cls/cls_option_tables.hpp"

#include "sublinear/core/option_specs.hpp"

// The options of combinatorial linear policies and their environments, as data: their constructors
// read them through these groups, the factories check keys against the tables, JavaScript sees the
// tables through optionTable(kind, type). Every default is written here and only here; comments
// elsewhere cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& cls() {
  static const OptionGroup group{
      required("dim", 1, 100000, "feature dimension"),
      integer("k", 0, 1, kMaxUint32, "default size of the super arm", "none: select() gives k"),
      internal(integer("blocks", 1, 1, 100000, "diagonal blocks of V (simulate()'s promotion problem)")),
      nested(object("index", "none: every arm is scored", "{ type, shortlist, certify, delta, ...index options } for fixed arms (setArms)"),
             "index", "type", "exact", &clsShortlist()),
      seed(0, "seed of the policy's random numbers"),
  };
  return group;
}

const OptionGroup& clsShortlist() {
  static const OptionGroup group{
      integer("shortlist", 0, 0, kMaxUint32, "candidates retrieved first (grown until certified)", "0: 4 k"),
      boolean("certify", true, "grow the shortlist until no arm outside it can be chosen"),
      number("delta", 1e-3, 0, 1, "failure probability of the bound on unbounded width multipliers (arm-wise TS)", true, true),
  };
  return group;
}

const OptionGroup& clsRidge() {
  static const OptionGroup group{number("lambda", 1.0, 0, kHuge, "ridge regulariser", true, false)};
  return group;
}

const OptionGroup& c2ucb() {
  static const OptionGroup group{number("alpha", 1.0, 0, kHuge, "confidence width multiplier")};
  return group;
}

const OptionGroup& pc2ucb() {
  static const OptionGroup group{number("c", 1.0, 0, kHuge, "weight of the penalty")};
  return group;
}

const OptionGroup& combTs() {
  static const OptionGroup group{
      number("v", 1.0, 0, kHuge, "posterior scale"),
      text("randomization", "arm", "round|arm", "one sample per round, or one per arm"),
  };
  return group;
}

const OptionGroup& combLinTs() {
  static const OptionGroup group{
      number("priorVariance", 1.0, 0, kHuge, "variance of the Gaussian prior on theta", true, false),
      number("noiseVariance", 1.0, 0, kHuge, "variance of the reward noise", true, false),
  };
  return group;
}

const OptionGroup& combLinUcb() {
  static const OptionGroup group{number("c", 1.0, 0, kHuge, "confidence width multiplier")};
  return group;
}

const OptionGroup& clusteredEnvironment() {
  static const OptionGroup group{
      integer("dim", 11, 2, 10000, "feature dimension"),
      integer("arms", 2000, 1, 100000000, "arms per round N"),
      integer("k", 100, 1, 100000000, "super-arm size (at most arms)"),
      number("angle", 0.7853981633974483, 0, 1.5707963267948966, "angle of the clusters (radians)", true, false),
      number("jitter", 0.0, 0, 1e6, "noise added to the arms' features"),
      nested(object("drift", "none: theta* stays", "{ kind: 'switch', every }: theta* turns to -theta* every `every` rounds"),
             "nested", "", "clustered.drift"),
  };
  return group;
}

const OptionGroup& clsDrift() {
  static const OptionGroup group{
      text("kind", "switch", "switch", "'switch': the environment's tastes turn every `every` rounds (see its drift option)"),
      integer("every", 1000, 1, 1e12, "rounds between switches"),
  };
  return group;
}

const OptionGroup& promotionEnvironment() {
  static const OptionGroup group{
      integer("promotions", 10, 1, 10000, "promotions M"),
      integer("rank", 10, 1, 1000, "feature rank"),
      integer("k", 50, 1, 100000000, "users per promotion k"),
      computedInteger("users", 1, 100000000, "100 k", "users drawn per round N, at least k"),
      text("ratings", "none: synthetic users", "", "the contents of a MovieLens-format ratings file"),
      integer("testMinRaters", 1400, 1, 100000000, "(ratings) movies rated by at least this many users"),
      integer("testMaxRaters", 2800, 1, 100000000, "(ratings) and at most this many"),
      integer("iterations", 10, 1, 1000, "(ratings) alternating least squares iterations"),
      number("lambda", 0.1, 0, 1e6, "(ratings) ridge regulariser of the factorisation", true, false),
      computedInteger("population", 1, 100000000, "max(users, 20000)", "(synthetic) users in the population, at least users"),
      number("spread", 0.3, 0, 1e6, "(synthetic) spread of the users around their cluster"),
      nested(object("drift", "none: the promotions' reward models stay",
                    "{ kind: 'switch', every }: every `every` rounds each promotion takes the next one's reward model"),
             "nested", "", "promotion.drift"),
  };
  return group;
}

}  // namespace option_groups

namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kClsTablesAdded = addOptionTables({
    {"cls-policy", "c2ucb", {&typed(), &cls(), &forgetting(), &clsRidge(), &c2ucb()}},
    {"cls-policy", "pc2ucb", {&typed(), &cls(), &forgetting(), &clsRidge(), &c2ucb(), &pc2ucb()}},
    {"cls-policy", "comb-ts", {&typed(), &cls(), &forgetting(), &clsRidge(), &combTs()}},
    {"cls-policy", "comb-lin-ucb", {&typed(), &cls(), &forgetting(), &combLinTs(), &combLinUcb()}},
    {"cls-policy", "comb-lin-ts", {&typed(), &cls(), &forgetting(), &combLinTs()}},
    {"cls-policy", "greedy-cls", {&typed(), &cls(), &forgetting(), &clsRidge()}},
    {"nested", "clustered.drift", {&clsDrift()}},
    {"nested", "promotion.drift", {&clsDrift()}},
});
}  // namespace

}  // namespace sublinear
