#include "sublinear/eval/eval_option_tables.hpp"

#include "sublinear/core/option_specs.hpp"

// The options of evaluate(), as data: their constructors read them through these groups, the
// factories check keys against the tables, JavaScript sees the tables through optionTable(kind,
// type). Every default is written here and only here; comments elsewhere cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

const OptionGroup& evaluation() {
  static const OptionGroup group{
      object("policy", "required without users", "the policy to evaluate: a policy object, or { type, ...options } with catalogue or arms (or users)"),
      object("log", "required", "{ arms, rewards, propensities }: one entry per logged decision (with users: users, one id per decision)"),
      object("catalogue", "none", "the catalogue a population's users are over (with users; JavaScript only)"),
      object("users", "none",
             "a population: { states: Map of user id to saved state } (frozen) or { policy: { type, ...options } } (learning) (JavaScript only)"),
      object("baseline", "none", "a second population of the same shape: the report adds difference, paired on the same users (JavaScript only)"),
      array("estimators", "every one but the page estimators", "which of 'replay', 'ips', 'snips', 'dm', 'dr', 'page-ips', 'page-pi', 'page-cascade' to compute"),
      computedNumber("clip", 0, kHuge, true, false, "none",
                     "importance weights pi(a) / p above this are cut to it (IPS, SNIPS, DR)"),
      integer("draws", 1000, 1, 1000000, "selections of a copy of the policy that estimate its choice probabilities"),
      number("lambda", 1.0, 0, kHuge, "ridge regulariser of the direct method's reward model", true),
      text("rewardModel", "auto", "auto|linear|logistic",
           "the reward model of dm and dr: ridge (linear), logistic regression (clicks), or auto: logistic when every reward is 0 or 1"),
      text("rewardModelScope", "auto", "auto|per-user|pooled",
           "a population's reward models: per-user (one per user shrunk towards the pooled one, its weight chosen by cross-validation) or pooled (one over every user), for dm and dr; auto: per-user for dm, pooled for dr"),
      text("interval", "normal", "normal|bootstrap", "a population's intervals: the delta method over users, or users resampled"),
      integer("resamples", 1000, 10, 100000, "resamples of users of a bootstrap interval"),
      seed(0, "seed of replay's acceptance draws and of the bootstrap's resamples"),
      computedNumber("acceptance", 0, 1, true, false, "the log's smallest propensity",
                     "replay of a learning population: a matched record is accepted with probability acceptance / p"),
      object("arms", "none", "{ ids, features } of a policy given as options without a catalogue (JavaScript only)"),
  };
  return group;
}

}  // namespace option_groups

namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kEvalTablesAdded = addOptionTables({
    {"evaluation", "evaluate", {&evaluation()}},
});
}  // namespace

}  // namespace sublinear
