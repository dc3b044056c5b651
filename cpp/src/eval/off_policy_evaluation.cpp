#include "sublinear/eval/off_policy_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include <Eigen/Dense>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/eval/eval_option_tables.hpp"

namespace sublinear {

namespace {
// The two-sided 95% quantile of the standard normal.
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct Estimate {
  double value = kNoValue;
  double standardError = kNoValue;
  std::size_t n = 0;
  double effectiveSampleSize = 0.0;

  Json toJson() const {
    // JSON has no NaN: an estimate without a sample is null throughout.
    const auto number = [](double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); };
    return Json{{"value", number(value)},
                {"low", number(value - kZ95 * standardError)},
                {"high", number(value + kZ95 * standardError)},
                {"n", n},
                {"effectiveSampleSize", effectiveSampleSize}};
  }
};

// The mean of `samples` with the standard error of a mean of independent draws.
Estimate meanOf(const std::vector<double>& samples) {
  Estimate estimate;
  estimate.n = samples.size();
  estimate.effectiveSampleSize = static_cast<double>(samples.size());
  if (samples.empty()) return estimate;
  double sum = 0.0;
  for (const double y : samples) sum += y;
  const double n = static_cast<double>(samples.size());
  estimate.value = sum / n;
  if (samples.size() < 2) return estimate;
  double squares = 0.0;
  for (const double y : samples) squares += (y - estimate.value) * (y - estimate.value);
  estimate.standardError = std::sqrt(squares / (n - 1.0) / n);
  return estimate;
}

}  // namespace

const std::vector<std::string>& OffPolicyEvaluation::estimatorNames() {
  static const std::vector<std::string> names{"replay", "ips", "snips", "dm", "dr", "page-ips", "page-pi", "page-cascade"};
  return names;
}

const std::vector<std::string>& OffPolicyEvaluation::pageEstimatorNames() {
  static const std::vector<std::string> names{"page-ips", "page-pi", "page-cascade"};
  return names;
}

OffPolicyEvaluation::OffPolicyEvaluation(const Json& options) {
  const OptionGroup& group = option_groups::evaluation();
  for (const char* populationOnly : {"interval", "resamples", "seed", "acceptance"}) {
    if (optionGiven(options, populationOnly)) {
      fail(ErrorCode::InvalidArgument, std::string("option '") + populationOnly + "' is for a population (evaluate with users), not one policy");
    }
  }
  if (optionGiven(options, "estimators")) {
    const Json& asked = options.at("estimators");
    require(asked.is_array() && !asked.empty(), ErrorCode::InvalidArgument,
            "option 'estimators' must be a non-empty array of 'replay', 'ips', 'snips', 'dm', 'dr', 'page-ips', 'page-pi', 'page-cascade'");
    for (const Json& name : asked) {
      const auto& names = estimatorNames();
      if (!name.is_string() || std::find(names.begin(), names.end(), name.get<std::string>()) == names.end()) {
        fail(ErrorCode::InvalidArgument, "unknown estimator " + name.dump() + " (one of 'replay', 'ips', 'snips', 'dm', 'dr', 'page-ips', 'page-pi', 'page-cascade')");
      }
      if (std::find(estimators_.begin(), estimators_.end(), name.get<std::string>()) == estimators_.end()) {
        estimators_.push_back(name.get<std::string>());
      }
    }
  } else {
    // The page estimators read the log's pages and say nothing of a log of single decisions: asked for only.
    for (const std::string& name : estimatorNames()) {
      const auto& pageNames = pageEstimatorNames();
      if (std::find(pageNames.begin(), pageNames.end(), name) == pageNames.end()) estimators_.push_back(name);
    }
  }
  clip_ = readOption(group, options, "clip", std::numeric_limits<double>::infinity());
  draws_ = static_cast<std::size_t>(readIntegerOption(group, options, "draws"));
  lambda_ = readOption(group, options, "lambda");
  rewardModel_ = readStringOption(group, options, "rewardModel");
}

bool OffPolicyEvaluation::wants(const char* name) const {
  return std::find(estimators_.begin(), estimators_.end(), name) != estimators_.end();
}

// The target policy's choice distribution in one context of the log (a position and the filters it
// was decided under): the reward model's value in that context is its mean under pi.
struct OffPolicyEvaluation::Context {
  RewardModel::Distribution pi;
  // The arms the target has eligible there (page-pi of a log with policyArms only; else 0).
  std::size_t eligible = 0;

  double probabilityOf(Id arm) const {
    for (const auto& [candidate, probability] : pi) {
      if (candidate == arm) return probability;
    }
    return 0.0;
  }
  // Whether pi was estimated from draws (more than one arm): its error enters the intervals.
  bool drawn() const { return pi.size() > 1; }
};

Json OffPolicyEvaluation::run(const PolicyCopy& copy, const DecisionLog& log) const {
  PersistentLinearPolicy frozen = copy();
  log.check(*frozen);
  const std::size_t n = log.size();

  // pi per context, each asked once of the frozen copy.
  std::vector<Context> contexts;
  std::vector<std::size_t> contextOf(n);
  const bool wantsPages = wants("page-ips") || wants("page-pi") || wants("page-cascade");
  // Inconsistent pages are refused before pi is asked for anything, and so is what page-cascade cannot read.
  const std::vector<std::size_t> pageBounds = wantsPages ? log.pageBounds() : std::vector<std::size_t>{};
  if (wants("page-cascade")) {
    checkCascadeTarget(*frozen);
    checkCascadeLog(log, pageBounds);
  }
  const bool needsPi = wants("ips") || wants("snips") || wants("dm") || wants("dr") || wantsPages;
  // page-pi of the exploration mix draws its uniform pages from the target's eligible arms.
  const bool countsEligible = wants("page-pi") && !log.policyArms.empty();
  if (needsPi) {
    std::unordered_map<std::string, std::size_t> known;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string key = log.contextKey(i);
      const auto [found, inserted] = known.emplace(key, contexts.size());
      if (inserted) {
        Context context;
        context.pi = frozen->choiceDistribution(log.positionOf(i), log.filterOf(i), draws_);
        if (countsEligible) context.eligible = frozen->eligibleCount(log.filterOf(i));
        contexts.push_back(std::move(context));
      }
      contextOf[i] = found->second;
    }
  }
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), std::size_t{0});
  // One kind of reward model for the whole log (and each position's records): clicks or not is the log's.
  const RewardModel::Kind kind = RewardModel::choose(rewardModel_, log.rewards);
  Json report = estimate(copy, frozen, log, all, contexts, contextOf, kind);
  if (wants("dm") || wants("dr")) report["rewardModel"] = RewardModel::nameOf(kind);
  if (wantsPages) estimatePages(log, pageBounds, contexts, contextOf, report);
  if (needsPi) {
    double largestError = 0.0;
    std::vector<Id> arms;
    for (const Context& context : contexts) {
      for (const auto& [arm, probability] : context.pi) {
        arms.push_back(arm);
        if (context.drawn()) largestError = std::max(largestError, std::sqrt(probability * (1.0 - probability) / static_cast<double>(draws_)));
      }
    }
    std::sort(arms.begin(), arms.end());
    const auto distinct = static_cast<std::size_t>(std::unique(arms.begin(), arms.end()) - arms.begin());
    report["target"] = Json{{"draws", draws_}, {"contexts", contexts.size()}, {"arms", distinct}, {"standardError", largestError}};
  }
  if (!log.positions.empty()) {
    // A slate log: the same estimators for each position's records (the value of that position).
    // The records are sorted into their positions in one pass; check() bounded the last position by
    // the policy's arm count.
    const std::uint32_t last = *std::max_element(log.positions.begin(), log.positions.end());
    std::vector<std::vector<std::size_t>> byPosition(std::size_t{last} + 1);
    for (std::size_t i = 0; i < n; ++i) byPosition[log.positions[i]].push_back(i);
    Json positions = Json::array();
    for (const std::vector<std::size_t>& records : byPosition) {
      positions.push_back(records.empty() ? Json(nullptr) : estimate(copy, frozen, log, records, contexts, contextOf, kind));
    }
    report["positions"] = positions;
  }
  return report;
}

Json OffPolicyEvaluation::estimate(const PolicyCopy& copy, const PersistentLinearPolicy& frozen, const DecisionLog& log,
                                   const std::vector<std::size_t>& records, const std::vector<Context>& contexts,
                                   const std::vector<std::size_t>& contextOf, RewardModel::Kind kind) const {
  const std::size_t n = records.size();
  const int d = frozen->dim();
  const auto arm = [&](std::size_t k) { return log.arms[records[k]]; };
  const auto reward = [&](std::size_t k) { return log.rewards[records[k]]; };
  const auto context = [&](std::size_t k) -> const Context& { return contexts[contextOf[records[k]]]; };
  Json report = Json::object();
  const bool needsPi = !contexts.empty();

  std::vector<double> weights(n, 0.0);
  // The share of pi's draws in an estimate's variance: sum over drawn contexts of (records / n)^2
  // (1 when one drawn context holds every record, 1 / n when each record has its own).
  double drawShare = 0.0;
  // The records of each context (by its index), for the draws' share of the variances below.
  std::unordered_map<std::size_t, std::size_t> contextCounts;
  if (needsPi) {
    for (std::size_t k = 0; k < n; ++k) weights[k] = std::min(context(k).probabilityOf(arm(k)) / log.propensities[records[k]], clip_);
    for (std::size_t k = 0; k < n; ++k) ++contextCounts[contextOf[records[k]]];
    for (const auto& [index, count] : contextCounts) {
      if (contexts[index].drawn()) drawShare += std::pow(static_cast<double>(count) / static_cast<double>(n), 2.0);
    }
  }
  const double weightEss = effectiveSampleSize(weights);
  // pi is a mean of `draws` choices, so even exact weights would estimate sum_a pi^(a) mu(a): the
  // draws add Var_{a ~ pi}(reward) / draws, estimated from the weighted moments of the logged rewards.
  double rewardDrawVariance = 0.0;
  {
    double weightSum = 0.0;
    double first = 0.0;
    double second = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      weightSum += weights[k];
      first += weights[k] * reward(k);
      second += weights[k] * reward(k) * reward(k);
    }
    if (weightSum > 0.0) {
      first /= weightSum;
      rewardDrawVariance = drawShare * std::max(0.0, second / weightSum - first * first) / static_cast<double>(draws_);
    }
  }
  const auto withDraws = [&](Estimate& estimate) {
    estimate.standardError = std::sqrt(estimate.standardError * estimate.standardError + rewardDrawVariance);
  };

  if (wants("replay")) {
    PersistentLinearPolicy learner = copy();
    std::vector<double> matched;
    for (std::size_t k = 0; k < n; ++k) {
      const std::optional<Id> choice = log.choiceAt(*learner, records[k]);
      if (choice != arm(k)) continue;
      learner->update(arm(k), reward(k));
      matched.push_back(reward(k));
    }
    Estimate replay = meanOf(matched);
    // A learning policy's rewards along one replay are not independent (a lucky start keeps paying),
    // so the interval takes the larger of the independent draws' error and that of the means of
    // kReplayBatches consecutive batches (whose spread also holds the learning curve: conservative).
    constexpr std::size_t kReplayBatches = 10;
    if (matched.size() >= 2 * kReplayBatches) {
      std::vector<double> batchMeans(kReplayBatches, 0.0);
      const std::size_t per = matched.size() / kReplayBatches;
      for (std::size_t b = 0; b < kReplayBatches; ++b) {
        for (std::size_t i = b * per; i < (b + 1) * per; ++i) batchMeans[b] += matched[i] / static_cast<double>(per);
      }
      replay.standardError = std::max(replay.standardError, meanOf(batchMeans).standardError);
    }
    report["replay"] = replay.toJson();
  }
  if (wants("ips")) {
    std::vector<double> terms(n);
    for (std::size_t k = 0; k < n; ++k) terms[k] = weights[k] * reward(k);
    Estimate ips = meanOf(terms);
    withDraws(ips);
    ips.effectiveSampleSize = weightEss;
    report["ips"] = ips.toJson();
  }
  if (wants("snips")) {
    Estimate snips;
    snips.n = n;
    snips.effectiveSampleSize = weightEss;
    double weightSum = 0.0;
    double weighted = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      weightSum += weights[k];
      weighted += weights[k] * reward(k);
    }
    if (weightSum > 0.0) {
      snips.value = weighted / weightSum;
      // The delta method's variance of a ratio estimator.
      double spread = 0.0;
      for (std::size_t k = 0; k < n; ++k) {
        const double residual = reward(k) - snips.value;
        spread += weights[k] * weights[k] * residual * residual;
      }
      snips.standardError = std::sqrt(spread) / weightSum;
      withDraws(snips);
    }
    report["snips"] = snips.toJson();
  }
  if (wants("dm") || wants("dr")) {
    // The reward model (RewardModel: ridge, or logistic for clicks) of these records' rewards on their
    // arms' features, over the records with k % folds != skip (all of them with folds 1, skip 1).
    std::vector<Id> arms(n);
    std::vector<double> rewards(n);
    for (std::size_t k = 0; k < n; ++k) {
      arms[k] = arm(k);
      rewards[k] = reward(k);
    }
    const RewardModel::Features featuresOf = [&frozen](Id a) { return frozen->featuresOf(a); };
    const auto fit = [&](std::size_t folds, std::size_t skip) {
      return RewardModel::fit(kind, lambda_, d, featuresOf, arms, rewards, [folds, skip](std::size_t k) { return k % folds != skip; });
    };
    // A model's value in each context these records are in, sum_a pi(a) r(x_a), computed once a context.
    const auto contextValues = [&](const RewardModel& model) {
      std::vector<double> values(contexts.size(), 0.0);
      for (const auto& [index, count] : contextCounts) values[index] = model.valueUnder(contexts[index].pi);
      return values;
    };
    if (wants("dm")) {
      const RewardModel model = fit(1, 1);
      const std::vector<double> byContext = contextValues(model);
      // The model's value in each record's context and the mean gradient of those values in the
      // model's parameters (the delta method's direction).
      std::vector<double> values(n);
      for (std::size_t k = 0; k < n; ++k) values[k] = byContext[contextOf[records[k]]];
      Vector gradient = Vector::Zero(model.parameters());
      // The draws' error in the model's value: Var_{a ~ pi}(r(x_a)) / draws per drawn context.
      double drawVariance = 0.0;
      for (const auto& [index, count] : contextCounts) {
        const Context& c = contexts[index];
        const double share = static_cast<double>(count) / static_cast<double>(n);
        gradient += share * model.gradientUnder(c.pi);
        if (!c.drawn()) continue;
        double spread = 0.0;
        for (const auto& [candidate, probability] : c.pi) {
          const double gap = model.predict(frozen->featuresOf(candidate)) - byContext[index];
          spread += probability * gap * gap;
        }
        drawVariance += share * share * spread / static_cast<double>(draws_);
      }
      Estimate dm = meanOf(values);
      // The contexts' spread (0 with one context), the model's own uncertainty along the gradient
      // (RewardModel::varianceAlong) and the draws'.
      const double contextVariance = std::isfinite(dm.standardError) ? dm.standardError * dm.standardError : 0.0;
      const double modelVariance = model.varianceAlong(gradient, arms, rewards, [](std::size_t) { return true; });
      dm.standardError = std::sqrt(contextVariance + modelVariance + drawVariance);
      report["dm"] = dm.toJson();
    }
    if (wants("dr")) {
      // Cross-fitted: each record's residual is taken against the model fitted on the other fold, so
      // that a model's fit to its own records neither shrinks the residuals nor biases the estimate.
      constexpr std::size_t kFolds = 2;
      std::vector<double> terms(n);
      for (std::size_t fold = 0; fold < kFolds; ++fold) {
        // Fitted on the records outside this fold.
        const RewardModel other = fit(kFolds, fold);
        const std::vector<double> byContext = contextValues(other);
        for (std::size_t k = fold; k < n; k += kFolds) {
          terms[k] = byContext[contextOf[records[k]]] + weights[k] * (reward(k) - other.predict(frozen->featuresOf(arm(k))));
        }
      }
      Estimate dr = meanOf(terms);
      withDraws(dr);
      dr.effectiveSampleSize = weightEss;
      report["dr"] = dr.toJson();
    }
  }
  return report;
}

namespace {
// The pseudo-inverse weight of one page (Swaminathan et al. 2017, "Off-policy evaluation for slate
// recommendation") under the uniform logger without replacement: a page of L positions drawn
// uniformly among the ordered L-subsets of m items. Its second moment Gamma = E[1_s 1_s^T] over the
// (position, item) indicators is c (J_L - I_L) (x) (J_m - I_m) + I / m with c = 1 / (m (m - 1)), whose
// eigenvalues are L / m (on 1 (x) 1), (m - L) / (m (m - 1)) (1 (x) u, u orthogonal to 1), 0 (v (x) 1:
// each position holds one item) and 1 / (m - 1) (v (x) u). The weight q^T Gamma^+ 1_s, with q the
// target's marginals q(a at j), is then 1 + (m - 1) M + (m - 1) (C - L) / (m - L), where
// M = sum_j q(s_j at j) (the target's probability of the shown items where they were shown) and
// C = sum_j sum_k q(s_j at k) (of the shown items anywhere); with m = L the middle eigenvalue is 0
// and the weight is 1 + (m - 1) (M - C / L). For L = 1 it is m M, IPS's weight.
// The same form x^T Gamma^+ y holds for any x whose rows (positions) sum to 1 against a page's y = 1_s:
// with M = <x, 1_s> and C the sum of x's columns (items) at s's items, which is how the mix's weight
// below reads the logger's own page s0 (x = 1_s0: M the positions where s shows s0's item, C the
// items the two pages share).
double pseudoInverseWeight(double m, double pageSize, double matched, double shownAnywhere) {
  if (m > pageSize) return 1.0 + (m - 1.0) * matched + (m - 1.0) * (shownAnywhere - pageSize) / (m - pageSize);
  return 1.0 + (m - 1.0) * (matched - shownAnywhere / pageSize);
}
}  // namespace

// The exploration mix (decideSlate() with explore: epsilon): with probability epsilon a uniform page
// without replacement, else the logger's own page s0 (deterministic given its state), so that
// Gamma = epsilon Gamma_u + (1 - epsilon) v v^T with v = 1_s0. v lies in the range of Gamma_u (it is
// orthogonal to Gamma_u's null space, the v' (x) 1 with v' orthogonal to 1: a page holds one item
// per position), so Gamma has Gamma_u's range and, on it, Sherman and Morrison's inverse:
//   Gamma^+ = (Gamma_u^+ - t Gamma_u^+ v v^T Gamma_u^+ / (1 + t alpha)) / epsilon,
// t = (1 - epsilon) / epsilon, alpha = v^T Gamma_u^+ v, the rank of Gamma_u (E_u[1_s^T Gamma_u^+ 1_s]
// = tr(Gamma_u^+ Gamma_u), and every page has the same): 1 + (m - 1) L, or 1 + (m - 1) (L - 1) when
// m = L (where 1 (x) u is in the null space too). A page s's weight is then
//   q^T Gamma^+ 1_s = (w_u(s) - (1 - epsilon) beta gamma(s) / (epsilon + (1 - epsilon) alpha)) / epsilon
// with w_u(s) = q^T Gamma_u^+ 1_s the uniform logger's weight of s, beta = q^T Gamma_u^+ v that of s0,
// and gamma(s) = v^T Gamma_u^+ 1_s, all three of pseudoInverseWeight's form. epsilon = 1 gives the
// uniform logger's weight; on the logger's own page (gamma = alpha) the weight is
// beta / (epsilon + (1 - epsilon) alpha), about 1 / (1 - epsilon) for a target that shows s0 itself.
// tests/cpp/page_evaluation_test.cpp checks it against a dense pseudo-inverse of Gamma on small shops
// and for unbiasedness by enumerating every page.
double mixPseudoInverseWeight(double m, double pageSize, double explore, double matched, double shownAnywhere, double ownMatched,
                              double ownAnywhere, double sharedPositions, double sharedItems) {
  const double uniform = pseudoInverseWeight(m, pageSize, matched, shownAnywhere);
  if (explore >= 1.0) return uniform;
  const double beta = pseudoInverseWeight(m, pageSize, ownMatched, ownAnywhere);
  const double gamma = pseudoInverseWeight(m, pageSize, sharedPositions, sharedItems);
  const double alpha = pseudoInverseWeight(m, pageSize, pageSize, pageSize);
  return (uniform - (1.0 - explore) * beta * gamma / (explore + (1.0 - explore) * alpha)) / explore;
}

namespace {

// The `z` quantile (z a standard normal quantile) of the gamma distribution of shape `shape` and scale
// `scale`, by Wilson and Hilferty's cube root: within about 1% from shape 1 on; below it the upper
// quantile falls a little short (2% at shape 0.5) and the lower one toward 0 (0 where the cube
// root's base falls below 0). A closed form, where an exact quantile would iterate on the incomplete
// gamma function, for an interval whose shapes are mostly well above 1.
double gammaQuantile(double shape, double scale, double z) {
  const double c = 1.0 / (9.0 * shape);
  const double root = 1.0 - c + z * std::sqrt(c);
  return root > 0.0 ? shape * scale * root * root * root : 0.0;
}

// The 95% interval of the estimate `value` with standard error `error` of page-ips and page-cascade,
// whose page terms are sums of rewards in [0, largestReward] at importance weights of at most
// largestWeight, over `pages` pages: Fay and Feuer's (1997) gamma interval for a weighted sum of
// Poisson counts (used for directly standardised rates). Why not the normal interval: a deterministic
// target's page is weighed only where the logger happened to show it (for page-cascade its whole
// prefix, weights of hundreds: 336 on the third position of 8 items), so the page terms are 0 on most
// pages and large on a few; a log that showed few of the heavy ones gives a low estimate with a small
// error, and the normal interval missed above the truth (35 of 40 seeds of the bench's cascade shop
// from either logger). The gamma interval is skewed as the estimate is (a gamma with the estimate's
// mean and variance), and its upper end allows one more reward at the largest weight, as an exact
// Poisson interval allows one more count than it saw. In a simulation of the bench's cascade shop
// (8 items, pages of 3, a uniform logger or the mix 0.5, 100 to 300 seeds) it covered 99 to 100% of
// 1,000 and 5,000 pages where the normal covered 86 to 91%, and 95 to 98% of 20,000 pages (the
// normal 92%) at 1.2 times the normal's width; 20 items, pages of 2, 1,000 pages: 98% (the normal
// 82%). Cheap (closed form) and with no draws. The studentised bootstrap over pages cannot see the
// heavy pages a log lacks: 84 to 92% in the same simulation; an empirical-Bernstein bound, whose
// range is the largest weight, covered but was 3.5 times the normal's width at 20,000 pages. Rewards
// below 0 break the Poisson reading: such a log keeps the normal interval.
}  // namespace

std::pair<double, double> weightedCountInterval(double value, double error, double largestWeight, double largestReward, double pages) {
  if (!std::isfinite(error)) return {kNoValue, kNoValue};
  const double variance = error * error;
  const double low = value > 0.0 && variance > 0.0 ? gammaQuantile(value * value / variance, variance / value, -kZ95) : std::max(value, 0.0);
  const double unit = largestWeight * largestReward / pages;  // one more reward at the largest weight, as a share of the mean
  const double above = value + unit;
  const double spread = variance + unit * unit;
  const double high = above > 0.0 && spread > 0.0 ? gammaQuantile(above * above / spread, spread / above, kZ95) : above;
  return {low, high};
}

namespace {
// A page estimator: `perPage(first, end)` reads the page of records first to end - 1. The interval is
// over pages, not positions: a page's positions are not independent (one page, one user, one filter).
// With `largestReward` (the log's, when no reward is below 0) the interval is weightedCountInterval's;
// without it (page-pi, whose weights can be below 0, or a log with rewards below 0) the normal one.
template <class PerPage>
Json overPages(const std::vector<std::size_t>& bounds, std::optional<double> largestReward, const PerPage& perPage) {
  const std::size_t pageCount = bounds.size() - 1;
  std::vector<double> terms(pageCount, 0.0);
  std::vector<double> weights(pageCount, 0.0);
  double largestWeight = 0.0;
  for (std::size_t k = 0; k < pageCount; ++k) {
    const PageTerm page = perPage(bounds[k], bounds[k + 1]);
    terms[k] = page.term;
    weights[k] = page.weight;
    largestWeight = std::max(largestWeight, page.largestWeight);
  }
  Estimate estimate = meanOf(terms);
  estimate.effectiveSampleSize = effectiveSampleSize(weights);
  Json out = estimate.toJson();
  if (largestReward && std::isfinite(estimate.value)) {
    const auto [low, high] =
        weightedCountInterval(estimate.value, estimate.standardError, largestWeight, *largestReward, static_cast<double>(pageCount));
    out["low"] = std::isfinite(low) ? Json(low) : Json(nullptr);
    out["high"] = std::isfinite(high) ? Json(high) : Json(nullptr);
  }
  return out;
}

// The estimators that weigh each position's reward on its own (page-ips, page-cascade): the page's
// term is the sum of its positions' weighted rewards, its weight their weights' mean. `weightOf(i)` is
// called for the page's records in order, so that a weight may carry what the earlier positions made.
template <class WeightOf>
PageTerm weightedPositions(const DecisionLog& log, std::size_t first, std::size_t end, WeightOf&& weightOf) {
  PageTerm page;
  for (std::size_t i = first; i < end; ++i) {
    const double w = weightOf(i);
    page.term += w * log.rewards[i];
    page.weight += w / static_cast<double>(end - first);
    page.largestWeight = std::max(page.largestWeight, w);
  }
  return page;
}
}  // namespace

void OffPolicyEvaluation::estimatePages(const DecisionLog& log, const std::vector<std::size_t>& bounds,
                                        const std::vector<Context>& contexts, const std::vector<std::size_t>& contextOf,
                                        Json& report) const {
  const PageChoice pi = [&](std::size_t record, Id arm) { return contexts[contextOf[record]].probabilityOf(arm); };
  const PageEligible eligible = [&](std::size_t record) { return contexts[contextOf[record]].eligible; };
  const std::optional<double> largestReward = largestCountReward(log.rewards);
  for (const std::string& name : pageEstimatorNames()) {
    if (!wants(name.c_str())) continue;
    report[name] = overPages(bounds, readsWeightedCounts(name) ? largestReward : std::nullopt,
                             [&](std::size_t first, std::size_t end) { return pageTerm(name, log, first, end, pi, clip_, eligible); });
  }
}

bool readsWeightedCounts(const std::string& name) { return name == "page-ips" || name == "page-cascade"; }

std::optional<double> largestCountReward(const std::vector<double>& rewards) {
  // page-ips and page-cascade read their intervals as weighted counts (weightedCountInterval) when no
  // reward is below 0.
  double largest = 0.0;
  for (const double r : rewards) {
    if (r < 0.0) return std::nullopt;
    largest = std::max(largest, r);
  }
  return largest;
}

PageTerm pageTerm(const std::string& name, const DecisionLog& log, std::size_t first, std::size_t end, const PageChoice& pi, double clip,
                  const PageEligible& eligible) {
  if (name == "page-ips") {
    // Each position's IPS weight.
    return weightedPositions(log, first, end, [&](std::size_t i) { return std::min(pi(i, log.arms[i]) / log.propensities[i], clip); });
  }
  if (name == "page-cascade") {
    // Reward-interaction IPS: position j's reward weighs pi(s_0..s_j) / mu(s_0..s_j), the target's
    // probability of the page's prefix over the logger's (checkCascadeTarget: a deterministic target,
    // whose probability of a prefix is the product of its positions' 0 or 1).
    double target = 1.0;
    return weightedPositions(log, first, end, [&](std::size_t i) {
      target *= pi(i, log.arms[i]);
      return std::min(target / log.prefixPropensities[i], clip);
    });
  }
  if (name != "page-pi") fail(ErrorCode::InvalidArgument, "unknown page estimator '" + name + "'");
  // One weight for the whole page (the pseudo-inverse's) on the sum of its rewards.
  const auto page = "page of records " + std::to_string(first) + " to " + std::to_string(end - 1);
  const std::size_t size = end - first;
  // The page's positions are distinct (pageBounds), so 0 to size - 1 each once when the largest is size - 1.
  std::uint32_t last = 0;
  for (std::size_t i = first; i < end; ++i) last = std::max(last, log.positionOf(i));
  if (last + 1 != size) {
    fail(ErrorCode::InvalidArgument, "page-pi: the " + page + " shows " + std::to_string(size) + " positions, not 0 to " +
                                         std::to_string(size - 1) + ": the pseudo-inverse estimator needs whole pages");
  }
  double matched = 0.0;
  double shownAnywhere = 0.0;
  double total = 0.0;
  for (std::size_t i = first; i < end; ++i) {
    matched += pi(i, log.arms[i]);
    for (std::size_t j = first; j < end; ++j) shownAnywhere += pi(j, log.arms[i]);
    total += log.rewards[i];
  }
  PageTerm term;
  if (log.policyArms.empty()) {
    // The uniform logger's propensity is 1 / m at every position, m the items it drew from.
    const double m = std::round(1.0 / log.propensities[first]);
    for (std::size_t i = first; i < end; ++i) {
      if (!(std::abs(log.propensities[i] * m - 1.0) <= 1e-6) || m < static_cast<double>(size)) {
        fail(ErrorCode::InvalidArgument,
             "page-pi: log record " + std::to_string(i) + " has propensity " + std::to_string(log.propensities[i]) + " where the " + page +
                 " needs 1 / m for one whole m >= " + std::to_string(size) +
                 ": without policyArms the pseudo-inverse estimator reads a uniform logger without replacement (its joint "
                 "distribution of pages is known); the exploration mix's pages: log decideSlate()'s policyArms; other loggers' pages: page-ips");
      }
    }
    term.weight = pseudoInverseWeight(m, static_cast<double>(size), matched, shownAnywhere);
    term.term = term.weight * total;
    return term;
  }
  // The exploration mix around the logged policyArms: m, the arms the target has eligible in the
  // page's context (the logger's uniform page is drawn from as many, the same arms under the same
  // filter), and epsilon read from each position's propensity, epsilon / m where the page does not
  // show the logger's own item and 1 - epsilon + epsilon / m where it does: one epsilon for the page.
  if (!eligible) fail(ErrorCode::InvalidArgument, "page-pi: the target's eligible counts are needed for a log with policyArms");
  const std::size_t eligibleCount = eligible(first);
  for (std::size_t i = first + 1; i < end; ++i) {
    if (eligible(i) != eligibleCount) {
      fail(ErrorCode::InvalidArgument, "page-pi: log record " + std::to_string(i) + " is decided among " + std::to_string(eligible(i)) +
                                           " eligible arms, the " + page + "'s first among " + std::to_string(eligibleCount) +
                                           ": one page's positions share the arms its exploration draws from");
    }
  }
  if (eligibleCount < size) {
    fail(ErrorCode::InvalidArgument, "page-pi: the " + page + " shows " + std::to_string(size) + " positions where the target has " +
                                         std::to_string(eligibleCount) + " eligible arms: no page of that size is drawn without replacement");
  }
  const double m = static_cast<double>(eligibleCount);
  double explore = std::numeric_limits<double>::quiet_NaN();
  double ownMatched = 0.0;
  double ownAnywhere = 0.0;
  double sharedPositions = 0.0;
  double sharedItems = 0.0;
  for (std::size_t i = first; i < end; ++i) {
    const Id own = log.policyArms[i];
    for (std::size_t j = first; j < i; ++j) {
      if (log.policyArms[j] == own) {
        fail(ErrorCode::InvalidArgument, "page-pi: log record " + std::to_string(i) + ": policy arm " + std::to_string(own) +
                                             " is the policy arm of record " + std::to_string(j) + " too: a page shows distinct arms");
      }
    }
    const double p = log.propensities[i];
    const bool shown = log.arms[i] == own;
    // m = 1 (a page of one arm among one): every page is the logger's own, and any epsilon weighs it 1.
    const double epsilon = m <= 1.0 ? 1.0 : shown ? (1.0 - p) / (1.0 - 1.0 / m) : m * p;
    const std::string record = "page-pi: log record " + std::to_string(i) + " has propensity " + std::to_string(p);
    if (shown && !(epsilon > 1e-12)) {
      fail(ErrorCode::InvalidArgument, record + " on the logger's own arm: the logger did not explore (explore 0), and the pseudo-inverse "
                                                "estimator needs pages it drew at random; page-ips reads the positions the target shares with it");
    }
    if (!(epsilon <= 1.0 + 1e-9) || (std::isfinite(explore) && std::abs(epsilon - explore) > 1e-6 * explore)) {
      fail(ErrorCode::InvalidArgument,
           record + (shown ? " on the logger's own arm " : " beside the logger's own arm ") + std::to_string(own) + ", where the " + page +
               " of an exploration mix over " + std::to_string(eligibleCount) + " eligible arms has " +
               (std::isfinite(explore) ? "explore " + std::to_string(explore) + ", so " + std::to_string(explore / m) + " beside it and " +
                                             std::to_string(1.0 - explore + explore / m) + " on it"
                                       : std::string("explore / m beside it and 1 - explore + explore / m on it, explore in (0, 1]")) +
               ": page-pi reads the mix of a deterministic logger (LinUCB, the elimination policies) or a uniform one; other loggers' pages: page-ips");
    }
    if (!std::isfinite(explore)) explore = std::min(epsilon, 1.0);
    ownMatched += pi(i, own);
    for (std::size_t j = first; j < end; ++j) {
      ownAnywhere += pi(j, own);
      sharedItems += log.arms[j] == own ? 1.0 : 0.0;
    }
    sharedPositions += shown ? 1.0 : 0.0;
  }
  term.weight = mixPseudoInverseWeight(m, static_cast<double>(size), explore, matched, shownAnywhere, ownMatched, ownAnywhere, sharedPositions,
                                       sharedItems);
  term.term = term.weight * total;
  return term;
}

bool OffPolicyEvaluation::isPageEstimator(const std::string& name) {
  const auto& names = pageEstimatorNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

void OffPolicyEvaluation::checkCascadeTarget(const LinearPolicy& target) {
  if (target.randomisedChoice()) {
    fail(ErrorCode::InvalidArgument, "page-cascade: the target (" + target.type() +
                                         ") draws its slates at random, and its probability of a whole prefix is not computed "
                                         "exactly; page-cascade evaluates deterministic targets (LinUCB, the elimination policies)");
  }
}

void OffPolicyEvaluation::checkCascadeLog(const DecisionLog& log, const std::vector<std::size_t>& bounds) {
  if (log.prefixPropensities.empty()) {
    fail(ErrorCode::InvalidArgument,
         "page-cascade: the log has no prefix propensities (the logger's probability of each page's prefix, decideSlate()'s "
         "prefixPropensities), which a cascade estimator weighs by; without them: page-ips");
  }
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    for (std::size_t i = bounds[k]; i < bounds[k + 1]; ++i) {
      const std::string record = "page-cascade: log record " + std::to_string(i);
      if (log.positionOf(i) != i - bounds[k]) {
        fail(ErrorCode::InvalidArgument, record + " is at position " + std::to_string(log.positionOf(i)) + ", not " +
                                             std::to_string(i - bounds[k]) +
                                             ": a cascade estimator reads each page's positions from 0 on, in order");
      }
      const double p = log.prefixPropensities[i];
      if (!(std::isfinite(p) && p > 0.0 && p <= 1.0)) {
        fail(ErrorCode::InvalidArgument, record + ": prefix propensity " + std::to_string(p) + " is not in (0, 1]");
      }
      // The probability of a prefix is at most that of its last item there, and of the shorter prefix
      // (tolerances for rounding; the first position's prefix is its item).
      const double slack = 1e-9;
      if (p > log.propensities[i] * (1.0 + slack)) {
        fail(ErrorCode::InvalidArgument, record + ": prefix propensity " + std::to_string(p) + " exceeds the record's propensity " +
                                             std::to_string(log.propensities[i]) + ": the prefix includes the record's item");
      }
      if (i > bounds[k] && p > log.prefixPropensities[i - 1] * (1.0 + slack)) {
        fail(ErrorCode::InvalidArgument, record + ": prefix propensity " + std::to_string(p) + " exceeds the previous position's " +
                                             std::to_string(log.prefixPropensities[i - 1]) + ": a longer prefix is no more likely");
      }
      if (i == bounds[k] && std::abs(p - log.propensities[i]) > slack * log.propensities[i]) {
        fail(ErrorCode::InvalidArgument, record + ": prefix propensity " + std::to_string(p) + " at a page's first position differs from its propensity " +
                                             std::to_string(log.propensities[i]));
      }
    }
  }
}

double effectiveSampleSize(const std::vector<double>& weights) {
  double sum = 0.0;
  double squares = 0.0;
  for (const double w : weights) {
    sum += w;
    squares += w * w;
  }
  return squares > 0.0 ? sum * sum / squares : 0.0;
}

}  // namespace sublinear
