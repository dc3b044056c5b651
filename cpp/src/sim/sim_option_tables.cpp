#include "sublinear/sim/sim_option_tables.hpp"

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/option_specs.hpp"
#include "sublinear/env/env_option_tables.hpp"
#include "sublinear/matroid/matroid_option_tables.hpp"

// The options of simulate() and its environments, as data: their constructors read them through
// these groups, the factories check keys against the tables, JavaScript sees the tables through
// optionTable(kind, type). Every default is written here and only here; comments elsewhere cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& simulation() {
  static const OptionGroup group{
      object("environment", "required", "{ type, ...options } of the environment"),
      object("policy", "required", "{ type, ...options } of the policy"),
      required("horizon", 1, 1e9, "rounds per run"),
      seed(0, "seed of the run (not with seeds)"),
      array("seeds", "none: one run with seed", "one run per seed, averaged (not with seed)"),
      computedInteger("recordEvery", 1, 1e9, "max(1, horizon / 1000)", "rounds between recorded points"),
      integer("slate", 0, 0, 10000,
              "linear policies on a 'linear' environment of one user: arms shown per round (selectSlate), each rewarded and "
              "updated; regret is the slate's (0: one arm a round, select())"),
      object("onProgress", "none", "a function called with the fraction done (JavaScript only)"),
  };
  return group;
}

const OptionGroup& environmentCommon() {
  static const OptionGroup group{
      internal(integer("horizon", 0, 0, 1e12, "set by simulate() from its own horizon")),
      internal(integer("slate", 0, 0, 10000, "set by simulate() from its own slate")),
      seed(0, "fixes the instance (default: derived from the run's seed); accepted by every environment"),
  };
  return group;
}

const OptionGroup& mabBpEnvironment() {
  static const OptionGroup group{
      integer("arms", 1000, 2, 10000000, "arms K"),
      integer("listLength", 1000, 1, 1000000000, "rewards per arm N"),
  };
  return group;
}

const OptionGroup& mipsEnvironment() {
  static const OptionGroup group{
      integer("items", 2000, 1, 100000000, "items in the dataset"),
      integer("dim", 1000, 1, 1000000, "dimension"),
      text("dataset", "gaussian", "gaussian|uniform", "distribution of the entries"),
  };
  return group;
}

const OptionGroup& mipsPolicy() {
  static const OptionGroup group{
      integer("k", 5, 1, 1000000, "items each query returns (at most items)"),
  };
  return group;
}

}  // namespace option_groups

// An environment's table is made here, where simulate() registers the environment types: its own
// options are the group beside its class (env, cls, matroid, or the trials here), every environment
// adds environmentCommon's.
namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kSimTablesAdded = addOptionTables({
    {"simulation", "simulate", {&simulation()}},
    {"environment", "linear", {&typed(), &environmentCommon(), &linearEnvironment()}},
    {"environment", "ratings", {&typed(), &environmentCommon(), &ratingsEnvironment()}},
    {"environment", "clustered", {&typed(), &environmentCommon(), &clusteredEnvironment()}},
    {"environment", "promotion", {&typed(), &environmentCommon(), &promotionEnvironment()}},
    {"environment", "matroid", {&typed(), &environmentCommon(), &matroidEnvironment()}},
    {"environment", "mab-bp", {&typed(), &environmentCommon(), &mabBpEnvironment()}},
    {"environment", "mips", {&typed(), &environmentCommon(), &mipsEnvironment()}},
});
}  // namespace

}  // namespace sublinear
