#include "sublinear/env/env_option_tables.hpp"

#include "sublinear/core/option_specs.hpp"

// The options of the linear simulations' environments, as data: their constructors read them
// through these groups, the factories check keys against the tables, JavaScript sees the tables
// through optionTable(kind, type). Every default is written here and only here; comments elsewhere
// cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& linearEnvironment() {
  static const OptionGroup group{
      integer("dim", 16, 1, 4096, "dimension d of the arms and theta*"),
      integer("arms", 1000, 1, 50000000, "initial arms K"),
      number("noise", 1.0, 0, 1e12, "standard deviation of the Gaussian reward noise"),
      boolean("normalize", false, "unit-norm arms and theta*"),
      integer("users", 1, 1, 1000000, "users over one catalogue, each with their own theta, served in turn (round-robin)"),
      number("spread", 0.5, 0, 1e6, "(users > 1) a user's theta = theta* + spread |theta*| z / sqrt(d), z ~ N(0, I)"),
      nested(object("change", "{ every: 0 }", "{ every, add, remove }: arm additions and removals every `every` steps"), "nested", "",
             "linear.change"),
      nested(object("drift", "none: theta stays", "{ kind: 'switch' | 'rotate', every, period }: tastes that change, each user on its own schedule"),
             "nested", "", "linear.drift"),
  };
  return group;
}

const OptionGroup& linearDrift() {
  static const OptionGroup group{
      text("kind", "switch", "switch|rotate", "'switch': to an orthogonal taste and back, every `every` rounds; 'rotate': a full turn in that plane every `period` rounds"),
      integer("every", 1000, 1, 1e12, "rounds between switches"),
      integer("period", 10000, 2, 1e12, "rounds of a full turn (rotate)"),
  };
  return group;
}

const OptionGroup& ratingsEnvironment() {
  static const OptionGroup group{
      text("ratings", "required", "", "the contents of a MovieLens-format ratings file"),
      integer("dim", 16, 1, 256, "rank d of the factorisation"),
      integer("iterations", 10, 1, 1000, "alternating least squares iterations"),
      number("lambda", 0.1, 0, 1e6, "ridge regulariser of the factorisation", true, false),
      integer("testUsers", 300, 1, 100000000, "held-out users"),
      integer("minRatings", 100, 0, 100000000, "a held-out user rated more movies than this"),
      computedInteger("user", 0, kMaxUint32, "a held-out user drawn from the seed", "the held-out user whose likes are the rewards"),
      integer("users", 1, 1, 100000000, "held-out users served in turn (round-robin) over one catalogue, each rewarded by their own ratings"),
      computedInteger("arms", 1, 100000000, "the movies not scheduled to arrive later", "initial arms (movies)"),
      nested(object("change", "{ every: 20, add: 2, remove: 0 }", "{ every, add, remove }: movie arrivals and removals"), "nested", "",
             "ratings.change"),
      number("threshold", 4.0, -1e300, 1e300, "a rating at least this is a like (reward 1)"),
      text("regret", "paper", "paper|best", "regret against the paper's reference or the best movie present"),
  };
  return group;
}

const OptionGroup& linearChange() {
  static const OptionGroup group{
      integer("every", 0, 0, 1e12, "steps between changes (0: never)"),
      integer("add", 0, 0, 50000000, "arms added at each change"),
      integer("remove", 0, 0, 50000000, "arms removed at each change"),
  };
  return group;
}

const OptionGroup& ratingsChange() {
  static const OptionGroup group{
      integer("every", 20, 0, 1e12, "steps between changes (0: never)"),
      integer("add", 2, 0, 100000000, "movies arriving at each change"),
      integer("remove", 0, 0, 100000000, "movies removed at each change"),
  };
  return group;
}

}  // namespace option_groups

namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kEnvTablesAdded = addOptionTables({
    {"nested", "linear.change", {&linearChange()}},
    {"nested", "linear.drift", {&linearDrift()}},
    {"nested", "ratings.change", {&ratingsChange()}},
});
}  // namespace

}  // namespace sublinear
