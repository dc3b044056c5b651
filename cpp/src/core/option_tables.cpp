#include <deque>
#include <limits>
#include <stdexcept>

#include "sublinear/core/limits.hpp"
#include "sublinear/core/option_table.hpp"

// Every class's options, as data. A constructor reads its options through these groups
// (readOption and friends), a factory checks the keys against the class's table, and JavaScript
// sees the same tables through optionTable(kind, type). Ranges and defaults are the ones the
// constructors used before the tables existed; change them here and only here.
namespace sublinear {

namespace {
constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1: exact as a JavaScript number
constexpr double kHuge = std::numeric_limits<double>::max();

OptionSpec integer(const char* name, double fallback, double low, double high, const char* doc, const char* note = "") {
  OptionSpec spec{name, OptionType::Integer};
  spec.fallback = fallback;
  spec.low = low;
  spec.high = high;
  spec.fallbackText = note;
  spec.doc = doc;
  return spec;
}

OptionSpec computedInteger(const char* name, double low, double high, const char* note, const char* doc) {
  OptionSpec spec = integer(name, 0, low, high, doc, note);
  spec.computed = true;
  return spec;
}

OptionSpec number(const char* name, double fallback, double low, double high, const char* doc, bool lowOpen = false,
                  bool highOpen = false, const char* note = "") {
  OptionSpec spec{name, OptionType::Number};
  spec.fallback = fallback;
  spec.low = low;
  spec.high = high;
  spec.lowOpen = lowOpen;
  spec.highOpen = highOpen;
  spec.fallbackText = note;
  spec.doc = doc;
  return spec;
}

OptionSpec computedNumber(const char* name, double low, double high, bool lowOpen, bool highOpen, const char* note,
                          const char* doc) {
  OptionSpec spec = number(name, 0, low, high, doc, lowOpen, highOpen, note);
  spec.computed = true;
  return spec;
}

OptionSpec required(const char* name, double low, double high, const char* doc) {
  OptionSpec spec = integer(name, 0, low, high, doc, "required");
  spec.computed = true;
  return spec;
}

OptionSpec boolean(const char* name, bool fallback, const char* doc) {
  OptionSpec spec{name, OptionType::Boolean};
  spec.fallback = fallback ? 1.0 : 0.0;
  spec.doc = doc;
  return spec;
}

OptionSpec text(const char* name, const char* fallback, const char* choices, const char* doc) {
  OptionSpec spec{name, OptionType::String};
  spec.fallbackText = fallback;
  spec.choices = choices;
  spec.doc = doc;
  return spec;
}

// An object or an array: its default is described (`note`), not a value.
OptionSpec described(const char* name, OptionType type, const char* note, const char* doc) {
  OptionSpec spec{name, type};
  spec.fallbackText = note;
  spec.doc = doc;
  return spec;
}

OptionSpec object(const char* name, const char* note, const char* doc) { return described(name, OptionType::Object, note, doc); }

OptionSpec array(const char* name, const char* note, const char* doc) { return described(name, OptionType::Array, note, doc); }

// An object whose keys are checked against optionTable(kind, its `selector` key, else `type`).
OptionSpec nested(OptionSpec spec, const char* kind, const char* selector, const char* type, const OptionGroup* extra = nullptr) {
  spec.nestedKind = kind;
  spec.nestedSelector = selector;
  spec.nestedType = type;
  spec.nestedExtra = extra;
  return spec;
}

OptionSpec seed(double fallback, const char* doc) {
  OptionSpec spec{"seed", OptionType::Seed};
  spec.fallback = fallback;
  spec.low = 0;
  spec.high = kMaxSeed;
  spec.doc = doc;
  return spec;
}

OptionSpec internal(OptionSpec spec) {
  spec.internal = true;
  return spec;
}
}  // namespace

namespace option_groups {

const OptionGroup& typed() {
  static const OptionGroup group{
      internal(text("type", "", "", "the kebab-case class name; set by the class (JavaScript) or given in a spec")),
  };
  return group;
}

// ---- MIPS indexes (cpp/src/mips) ----

const OptionGroup& indexDim() {
  static const OptionGroup group{required("dim", 1, 1000000, "vector dimension")};
  return group;
}

const OptionGroup& exact() {
  static const OptionGroup group{
      seed(0, "accepted like every index's seed (a policy gives one to any index type); the exact scan draws no random numbers"),
      text("storage", "f32", "f32|int8",
           "item vectors as floats, or as 8-bit codes with a scale per row (a quarter of the memory; scores are those of the decoded rows)"),
  };
  return group;
}

const OptionGroup& hnsw() {
  static const OptionGroup group{
      integer("M", 16, 2, 1000, "links per node"),
      integer("efConstruction", 200, 1, 1000000, "candidate list size while building"),
      computedInteger("efSearch", 1, 1000000, "64 below 256 dimensions, 144 from 256",
                      "candidates kept while searching beyond those asked for"),
      text("space", "auto", "auto|inner-product|euclidean",
           "the graph's distance: measured on a sample (auto), inner product, or the Euclidean reduction"),
      text("build", "incremental", "incremental|immediate",
           "incremental: searches scan the items not yet in the graph and insert some; immediate: add() builds"),
      number("buildCredit", 1.0, 0, 1000000, "graph building per search, in full scans of the items (incremental build)", true, false),
      number("filterCrossover", 450.0, 0, 1e9,
             "a filtered graph search's cost in scan rows per beam entry at fraction 1: it scans the eligible items (fraction f) exactly when that costs at most filterCrossover x beam / f rows",
             false, false),
      seed(100, "seed of the level generator"),
      text("storage", "f32", "f32|int8",
           "item vectors as floats, or as 8-bit codes with a scale per row (a quarter of the memory; scores are those of the decoded rows)"),
      // Internal: tests build both layouts of the same graph with it (hnsw_index.hpp, "Vectors in the graph").
      internal(text("inlineRows", "auto", "auto|always|never",
                    "whether the graph's node records keep a copy of their rows, where searches read them with the node: auto for rows of at most 64 bytes in a graph beyond the caches")),
      // Internal: tests compare a graph renumbered for locality with the same graph as built.
      internal(text("orderNodes", "auto", "auto|never",
                    "whether a bulk build renumbers the graph's nodes (and orders the built rows) so that neighbours lie near each other in memory")),
  };
  return group;
}

const OptionGroup& lsh() {
  static const OptionGroup group{
      integer("bits", 8, 1, 64, "a: sign bits ANDed into one key"),
      integer("tables", 16, 1, 1000, "b: hash tables ORed together"),
      seed(0, "seed of the hyperplanes"),
  };
  return group;
}

const OptionGroup& adaptive() {
  static const OptionGroup group{
      nested(object("base", "{ type: 'hnsw' }", "{ type, ...options } of the index of each copy; its seed is set per copy"), "index",
             "type", "hnsw"),
      integer("copies", 3, 1, 64, "kappa: independent copies"),
      number("epsilon", 0.01, 0, 1, "queries are normalised and rounded to multiples of epsilon / dim", true, true),
      seed(0, "seed of the copies"),
  };
  return group;
}

const OptionGroup& boundedMe() {
  static const OptionGroup group{
      number("epsilon", 0.1, 0, 1, "accuracy of the (epsilon, delta) guarantee", true, true),
      number("delta", 0.1, 0, 1, "failure probability of the (epsilon, delta) guarantee", true, true),
      seed(0, "seed of the coordinate permutations"),
  };
  return group;
}

const OptionGroup& boundedMeSolver() {
  static const OptionGroup group{
      integer("k", 1, 1, kMaxUint32, "arms to return (at most K)"),
      number("low", 0.0, -1e300, 1e300, "lower bound of every reward"),
      number("high", 1.0, -1e300, 1e300, "upper bound of every reward"),
  };
  return group;
}

const OptionGroup& greedy() {
  static const OptionGroup group{
      computedInteger("budget", 1, kMaxUint32, "budgetFraction x size", "candidates screened per query (not with budgetFraction)"),
      number("budgetFraction", 0.1, 0, 1, "candidates screened per query as a fraction of the size (not with budget)", true, false),
      seed(0, "accepted like every index's seed; Greedy-MIPS draws no random numbers"),
  };
  return group;
}

const OptionGroup& pcaTree() {
  static const OptionGroup group{
      computedInteger("depth", 0, 20, "floor(log2(size / 1024)) at each build, so that leaves hold 1024 to 2047 items",
                      "levels of the tree; a given depth is kept whatever the size"),
      seed(0, "seed of the randomized subspace iteration"),
  };
  return group;
}

// ---- Linear policies (cpp/src/linear) ----

const OptionGroup& linearDim() {
  static const OptionGroup group{required("dim", 1, 4096, "feature dimension d")};
  return group;
}

const OptionGroup& ridge() {
  static const OptionGroup group{
      number("lambda", 1.0, 0, 1e12, "ridge regulariser, V_1 = lambda I", true, false),
      text("radius", "practical", "practical|theoretical", "how the confidence radius is set"),
      number("delta", 0.05, 0, 1, "failure probability of the confidence radius", true, true),
      number("noise", 1.0, 0, 1e12, "R, scale of the reward noise", false, false,
             "estimated from the ridge residuals (practical radius), 1 (theoretical radius)"),
      number("bound", 1.0, 0, 1e12, "S, bound on the norm of theta* (theoretical radius only)"),
      integer("horizon", 10000, 1, 1e12, "T, the horizon (enters the radii of TS and Elim)"),
      number("beta", 0.0, 0, 1e12, "a fixed confidence radius replacing either rule", false, false, "none: the radius rule"),
      seed(0, "seed of the policy's random numbers"),
  };
  return group;
}

const OptionGroup& decisions() {
  static const OptionGroup group{
      number("explore", 0.0, 0, 1, "decide(): probability of showing uniformly drawn eligible arms instead of the policy's", false, true),
      integer("maxPending", 1000, 1, 1e6, "decisions kept for their rewards; the oldest expires beyond it"),
      integer("propensityDraws", 256, 1, 1e5, "posterior draws of a Thompson policy's propensity estimate"),
  };
  return group;
}

// Forgetting (Forgetting, cpp/src/linear/forgetting.cpp): every linear policy's model, over its own
// arms or a catalogue, and the semi-bandit policies' counts (SemiBanditPolicy) and ridge models
// (ClsPolicy), whose windows and discounts count rounds. 'auto' detects a change of the rewards from the model's own prediction errors
// and starts the model again from its prior when it finds one; it costs O(d) an observation and
// nothing where nothing changes (README, "Tastes that change", for the measurements).
const OptionGroup& forgetting() {
  static const OptionGroup group{
      nested(object("forgetting", "'auto'",
                    "'auto' (restart the model when its prediction errors show a change), 'none', { discount } (weigh an observation by discount^age) or { window } (only the last window observations)"),
             "nested", "", "policy.forgetting"),
  };
  return group;
}

const OptionGroup& forgettingSpec() {
  static const OptionGroup group{
      number("discount", 0.99, 0, 1, "each observation's weight is discount^age (exponential forgetting, D-LinUCB)", true, true, "required (or window)"),
      integer("window", 1000, 1, 1e6, "only the last window observations count (sliding window)", "required (or discount)"),
      // 'auto' with other detector settings: for the drift benchmark's calibration, not documented.
      internal(number("threshold", 18, 0, 1e6, "'auto': the CUSUM's alarm level", true, false)),
      internal(number("drift", 0.25, 0, 10, "'auto': the CUSUM's half-slope")),
      internal(number("margin", 1.0, 0, 10, "'auto': the selection margin, in widths")),
      internal(number("warmUp", 2.0, 0, 1e3, "'auto': the observations a model holds, per dimension, before the detector listens")),
  };
  return group;
}

// A new user started from the population (issue 31): the ridge and Thompson policies only, whose
// whole model is the ridge estimate; the elimination policies' stages are not a prior's to set.
const OptionGroup& ridgePrior() {
  static const OptionGroup group{
      nested(object("prior", "none: theta^ starts at 0",
                    "{ theta, weight }: start from a population estimate, V_1 = (lambda + weight) I, b_1 = weight theta"),
             "nested", "", "policy.prior"),
  };
  return group;
}

const OptionGroup& ridgePriorSpec() {
  static const OptionGroup group{
      array("theta", "required", "the population's estimate of theta, d numbers (e.g. another policy's theta())"),
      number("weight", 0.0, 0, 1e12, "the prior's precision: how many unit-norm observations it is worth, per direction",
             true, false, "required"),
  };
  return group;
}

const OptionGroup& thompson() {
  static const OptionGroup group{
      number("inflation", 1.0, 0, 1e12, "multiplies the sampling scale"),
      integer("shortlist", 30, 1, 1000000, "candidates retrieved from the index and ranked exactly"),
      boolean("negativeRewardTransform", false, "the paper's transform for a negative best reward"),
  };
  return group;
}

// LinUCB's own: how it keeps its arms' widths ||x||^2_{V^-1}.
const OptionGroup& linUcb() {
  static const OptionGroup group{
      text("widths", "auto", "auto|kept|direct",
           "'kept': every arm's ||x||^2_{V^-1} corrected by rank-one updates, O(K d) a step (over a catalogue 12 bytes an arm per user); 'direct': computed at every select, O(K d^2) a step, nothing per arm; 'auto': kept"),
  };
  return group;
}

// Linear TS's and Sub-TS's model in the arms' principal subspace (ArmSubspace), with their own arms.
// subspaceEnergy 0.6: on the high-dimensional battery's low-rank embeddings (T = 4,000, last quarter
// against uniform play's, d 128 / 384 / 768 / 1,536, rank 20 / 50 / 100 / 200) 0.7 gave 0.001 /
// 0.006 / 0.073 / 0.229, 0.65 0.000 / 0.060 / 0.051 / 0.194, 0.6 0.056 / 0.057 / 0.051 / 0.028 and
// 0.8 0.002 / 0.012 / 0.052 / 0.293: more directions than the horizon can learn cost more than the
// part of theta* they leave out. Fashion-MNIST keeps the minimum of 8 directions at any of these.
const OptionGroup& armSubspace() {
  static const OptionGroup group{
      text("subspace", "auto", "auto|arms|none",
           "learn theta in the arms' principal subspace ('arms') or in all d dimensions ('none'); 'auto': 'arms' above 64 dimensions or with modelDim or subspaceEnergy, 'none' with prior or negativeRewardTransform"),
      computedInteger("modelDim", 1, 4096, "min(d, 256)", "with a subspace: the model's dimension (above d: d)"),
      number("subspaceEnergy", 0.6, 0, 1, "with a subspace: the fewest principal directions (at least 8, at most modelDim) that hold this fraction of the arms' squared norms", true, false),
  };
  return group;
}

// LinUCB's and the elimination policies' subspace: armSubspace's, with 0.8 of the arms' energy by
// default. They choose optimistically (the elimination policies within a window of stages,
// ScanElim::kStageWindow), and optimism explores the directions the model keeps and nothing else, so
// keeping more of them costs little, where Linear TS's perturbation adds noise in each. With 0.6
// LinUCB's last quarter at T = 4,000 on the battery's low-rank embedding at d = 128 (rank 20) was
// 0.21 of uniform play's, with 0.8 at most 0.015 on every case of the battery and 0.005 on
// Fashion-MNIST; Linear Elim's, with 0.6, reached 0.30 at d = 1,536, where the subspace (54
// directions) leaves out too much of theta*, with 0.8 at most 0.12 (README, issue 37).
const OptionGroup& optimisticSubspace() {
  static const OptionGroup group = [] {
    OptionGroup copy = armSubspace();
    for (OptionSpec& spec : copy) {
      if (std::string(spec.name) == "subspaceEnergy") spec.fallback = 0.8;
    }
    return copy;
  }();
  return group;
}

// Sub-TS's and Sub-Elim's audits of their index (ApproximationAudit).
const OptionGroup& approximationAudit() {
  static const OptionGroup group{
      number("auditBudget", 0.1, 0, 1, "exact audits of the index may cost up to this fraction of the approximate search work (not the exact scan of arms waiting for a graph)"),
      number("targetMissRate", 0.05, 0, 1, "the shortlist doubles while the audited miss rate exceeds this", true, false),
      computedInteger("maxShortlist", 1, 1000000, "min(64 x shortlist, 100000)", "the shortlist never grows beyond this"),
  };
  return group;
}

const OptionGroup& elimination() {
  static const OptionGroup group{
      computedNumber("eta", 0, 1, true, true, "1 / (horizon + 1) (practical radius), 1 / sqrt(horizon + 1) (theoretical)",
                     "MIPS accuracy; the last stage is ceil(log2(1 / (8 eta)))"),
      number("featureBound", 1.0, 0, 1e12, "L, bound on the arms' norm in the theoretical radius", true, false),
      integer("shortlist", 30, 1, 1000000, "candidates retrieved from a stage's index and ranked exactly"),
      text("search", "auto", "auto|lifted|widths",
           "how stages are searched: 'lifted' (a MIPS index per stage over vec(x x^T / d)), 'widths' (every arm's ||x||_{V^-1} kept at O(K d) a step); 'auto': lifted at d <= 16 over own arms, widths otherwise and over a catalogue"),
  };
  return group;
}

// The `index` of each linear policy: its keys are the index type's, the type defaulting per policy.
const OptionGroup& linTsIndex() {
  static const OptionGroup group{nested(object("index", "{ type: 'exact' }", "{ type, ...options } of the MIPS index"), "index", "type", "exact")};
  return group;
}

const OptionGroup& subTsIndex() {
  static const OptionGroup group{
      nested(object("index", "{ type: 'hnsw', M: 8 (16 above 32 dimensions), efConstruction: 16 }", "{ type, ...options } of the MIPS index"), "index", "type", "hnsw")};
  return group;
}

const OptionGroup& linearElimIndex() {
  static const OptionGroup group{nested(object("index", "{ type: 'exact' }", "{ type, ...options } of the MIPS index"), "index", "type", "exact")};
  return group;
}

const OptionGroup& subElimSearch() {
  static const OptionGroup group{
      boolean("boundsFirst", true, "search each stage through upper bounds on ||x||_{V^-1} before its index (exact when certified)"),
  };
  return group;
}

const OptionGroup& subElimIndex() {
  static const OptionGroup group{nested(object("index", "{ type: 'hnsw' }", "{ type, ...options } of the MIPS index"), "index", "type", "hnsw")};
  return group;
}

// One arm set and its index shared by many linear policies (linear/catalogue.hpp).
const OptionGroup& catalogue() {
  static const OptionGroup group{
      required("dim", 1, 4096, "feature dimension d of the arms"),
      nested(object("index", "{ type: 'hnsw', M: 8 (16 above 32 dimensions), efConstruction: 16 }",
                    "{ type, ...options } of the one MIPS index every user searches"),
             "index", "type", "hnsw"),
      seed(0, "seed of the index (unless index.seed) and of the subspace's range finder"),
      computedInteger("modelDim", 1, 4096, "min(d, 32)",
                      "the dimension of the arms' subspace that users learn in (above d: d); one basis for every user, a model of 3 modelDim^2 doubles per LinTS or SubTS user, modelDim^2 per LinUCB or elimination user (and, once for them all, the arms' projected rows: modelDim x 12 bytes an arm)"),
      number("subspaceEnergy", 0.6, 0, 1,
             "the fewest principal directions of the catalogue's arms (at least 8, at most modelDim) that hold this fraction of their squared norms",
             true, false),
  };
  return group;
}

// ---- Matroid semi-bandit policies (cpp/src/matroid) ----

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

// ---- Combinatorial linear policies (cpp/src/cls) ----

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

// ---- simulate() (cpp/src/sim) ----

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

// ---- evaluate() (cpp/src/eval) ----

const OptionGroup& evaluation() {
  static const OptionGroup group{
      object("policy", "required", "the policy to evaluate: a policy object, or { type, ...options } with catalogue or arms"),
      object("log", "required", "{ arms, rewards, propensities }: one entry per logged decision"),
      array("estimators", "every one", "which of 'replay', 'ips', 'snips', 'dm', 'dr' to compute"),
      computedNumber("clip", 0, kHuge, true, false, "none",
                     "importance weights pi(a) / p above this are cut to it (IPS, SNIPS, DR)"),
      integer("draws", 1000, 1, 1000000, "selections of a copy of the policy that estimate its choice probabilities"),
      number("lambda", 1.0, 0, kHuge, "ridge regulariser of the direct method's reward model", true),
      object("arms", "none", "{ ids, features } of a policy given as options without a catalogue (JavaScript only)"),
  };
  return group;
}

// ---- simulate()'s environments (cpp/src/env, cpp/src/cls, cpp/src/matroid, cpp/src/sim) ----
// Their constructors still read these options themselves (same defaults and ranges); the tables
// list and check the keys, and document them.

const OptionGroup& environmentCommon() {
  static const OptionGroup group{
      internal(integer("horizon", 0, 0, 1e12, "set by simulate() from its own horizon")),
      internal(integer("slate", 0, 0, 10000, "set by simulate() from its own slate")),
      seed(0, "fixes the instance (default: derived from the run's seed); accepted by every environment"),
  };
  return group;
}

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

const OptionGroup& clusteredEnvironment() {
  static const OptionGroup group{
      integer("dim", 11, 2, 10000, "feature dimension"),
      integer("arms", 2000, 1, 100000000, "arms per round N"),
      integer("k", 100, 1, 100000000, "super-arm size (at most arms)"),
      number("angle", 0.7853981633974483, 0, 1.5707963267948966, "angle of the clusters (radians)", true, false),
      number("jitter", 0.0, 0, 1e6, "noise added to the arms' features"),
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

// ---- Nested objects of the environments ----

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
std::deque<OptionTable>& tableStore() {
  using namespace option_groups;
  static std::deque<OptionTable> tables{
      {"index", "exact", {&typed(), &indexDim(), &exact()}},
      {"index", "hnsw", {&typed(), &indexDim(), &hnsw()}},
      {"index", "lsh", {&typed(), &indexDim(), &lsh()}},
      {"index", "adaptive", {&typed(), &indexDim(), &adaptive()}},
      {"index", "bounded-me", {&typed(), &indexDim(), &boundedMe()}},
      {"index", "greedy", {&typed(), &indexDim(), &greedy()}},
      {"index", "pca-tree", {&typed(), &indexDim(), &pcaTree()}},
      {"linear-policy", "lin-ucb", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &ridgePrior(), &linUcb(), &optimisticSubspace()}},
      {"linear-policy", "lin-ts", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &ridgePrior(), &thompson(), &armSubspace(), &approximationAudit(), &linTsIndex()}},
      {"linear-policy", "sub-ts", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &ridgePrior(), &thompson(), &armSubspace(), &approximationAudit(), &subTsIndex()}},
      {"linear-policy", "linear-elim", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &elimination(), &approximationAudit(), &linearElimIndex(), &optimisticSubspace()}},
      {"linear-policy", "sub-elim", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &elimination(), &approximationAudit(), &subElimSearch(), &subElimIndex(), &optimisticSubspace()}},
      {"catalogue", "catalogue", {&typed(), &catalogue()}},
      {"semi-bandit-policy", "cucb", {&typed(), &semiBandit(), &forgetting()}},
      {"semi-bandit-policy", "faster-cucb", {&typed(), &semiBandit(), &forgetting(), &fasterCucb()}},
      {"semi-bandit-policy", "cts", {&typed(), &semiBandit(), &forgetting()}},
      {"cls-policy", "c2ucb", {&typed(), &cls(), &forgetting(), &clsRidge(), &c2ucb()}},
      {"cls-policy", "pc2ucb", {&typed(), &cls(), &forgetting(), &clsRidge(), &c2ucb(), &pc2ucb()}},
      {"cls-policy", "comb-ts", {&typed(), &cls(), &forgetting(), &clsRidge(), &combTs()}},
      {"cls-policy", "comb-lin-ucb", {&typed(), &cls(), &forgetting(), &combLinTs(), &combLinUcb()}},
      {"cls-policy", "comb-lin-ts", {&typed(), &cls(), &forgetting(), &combLinTs()}},
      {"cls-policy", "greedy-cls", {&typed(), &cls(), &forgetting(), &clsRidge()}},
      {"simulation", "simulate", {&simulation()}},
      {"evaluation", "evaluate", {&evaluation()}},
      {"environment", "linear", {&typed(), &environmentCommon(), &linearEnvironment()}},
      {"environment", "ratings", {&typed(), &environmentCommon(), &ratingsEnvironment()}},
      {"environment", "clustered", {&typed(), &environmentCommon(), &clusteredEnvironment()}},
      {"environment", "promotion", {&typed(), &environmentCommon(), &promotionEnvironment()}},
      {"environment", "matroid", {&typed(), &environmentCommon(), &matroidEnvironment()}},
      {"environment", "mab-bp", {&typed(), &environmentCommon(), &mabBpEnvironment()}},
      {"environment", "mips", {&typed(), &environmentCommon(), &mipsEnvironment()}},
      {"nested", "linear.change", {&linearChange()}},
      {"nested", "linear.drift", {&linearDrift()}},
      {"nested", "matroid.drift", {&matroidDrift()}},
      {"nested", "ratings.change", {&ratingsChange()}},
      {"nested", "matroid.matroid", {&matroidSpec()}},
      {"nested", "policy.prior", {&ridgePriorSpec()}},
      {"nested", "policy.forgetting", {&forgettingSpec()}},
  };
  return tables;
}
}  // namespace

const std::deque<OptionTable>& optionTables() { return tableStore(); }

void addOptionTable(OptionTable table) {
  if (findOptionTable(table.kind, table.type) != nullptr) {
    throw std::logic_error("option table " + table.kind + "/" + table.type + " exists already");
  }
  tableStore().push_back(std::move(table));
}

}  // namespace sublinear
