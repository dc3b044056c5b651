#include "sublinear/linear/linear_option_tables.hpp"

#include "sublinear/core/option_specs.hpp"
#include "sublinear/linear/approximation_audit.hpp"
#include "sublinear/linear/thompson_sampling.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

// The options of linear policies and the catalogue, as data: their constructors read them through
// these groups, the factories check keys against the tables, JavaScript sees the tables through
// optionTable(kind, type). Every default is written here and only here; comments elsewhere cite it.
namespace sublinear {

namespace option_groups {

using namespace option_specs;

namespace {
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

// The `index` of each linear policy: its keys are the index type's, the type defaulting per policy.
const OptionGroup& linTsIndex() {
  static const OptionGroup group{nested(object("index", "{ type: 'exact' }", "{ type, ...options } of the MIPS index"), "index", "type", "exact")};
  return group;
}

const OptionGroup& subTsIndex() {
  static const OptionGroup group{
      nested(object("index", ThompsonSampling::graphDefaultsText(), "{ type, ...options } of the MIPS index"), "index", "type", "hnsw")};
  return group;
}

const OptionGroup& linearElimIndex() {
  static const OptionGroup group{nested(object("index", "{ type: 'exact' }", "{ type, ...options } of the MIPS index"), "index", "type", "exact")};
  return group;
}

const OptionGroup& subElimIndex() {
  static const OptionGroup group{nested(object("index", "{ type: 'hnsw' }", "{ type, ...options } of the MIPS index"), "index", "type", "hnsw")};
  return group;
}
}  // namespace

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
      number("auditSlice", ApproximationAudit::kDefaultSlice, 0, 1000000,
             "an audit's exact scan advances over later calls by this many times a search's mean work a call (at least 128 KiB of rows); 0 scans in the call that draws the audit"),
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

const OptionGroup& subElimSearch() {
  static const OptionGroup group{
      boolean("boundsFirst", true, "search each stage through upper bounds on ||x||_{V^-1} before its index (exact when certified)"),
  };
  return group;
}

// One arm set and its index shared by many linear policies (linear/catalogue.hpp).
const OptionGroup& catalogue() {
  static const OptionGroup group{
      required("dim", 1, 4096, "feature dimension d of the arms"),
      nested(object("index", ThompsonSampling::graphDefaultsText(), "{ type, ...options } of the one MIPS index every user searches"),
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

}  // namespace option_groups

namespace {
using namespace option_groups;
// Named after the layer: a unity build (the sanitizers' and the fuzzer's) puts several layers' tables in one file.
const bool kLinearTablesAdded = addOptionTables({
    {"linear-policy", "lin-ucb", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &ridgePrior(), &linUcb(), &optimisticSubspace()}},
    {"linear-policy", "lin-ts", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &ridgePrior(), &thompson(), &armSubspace(), &approximationAudit(), &linTsIndex()}},
    {"linear-policy", "sub-ts", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &ridgePrior(), &thompson(), &armSubspace(), &approximationAudit(), &subTsIndex()}},
    {"linear-policy", "linear-elim", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &elimination(), &approximationAudit(), &linearElimIndex(), &optimisticSubspace()}},
    {"linear-policy", "sub-elim", {&typed(), &linearDim(), &ridge(), &forgetting(), &decisions(), &elimination(), &approximationAudit(), &subElimSearch(), &subElimIndex(), &optimisticSubspace()}},
    {"catalogue", "catalogue", {&typed(), &catalogue()}},
    {"nested", "policy.prior", {&ridgePriorSpec()}},
});
}  // namespace

}  // namespace sublinear
