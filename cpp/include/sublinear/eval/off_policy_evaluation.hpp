#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/eval/decision_log.hpp"
#include "sublinear/eval/reward_model.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear {

// Off-policy evaluation: the mean reward per decision a linear policy would get, estimated from
// decisions another (logging) policy made, each with a 95% normal interval and an effective sample
// size. The policy under evaluation is never changed: every estimator works on fresh copies of it.
//
// Two values are estimated, and the estimators say which:
//   - the policy as it stands (frozen): V = sum_a pi(a) mu(a), with pi its choice probabilities now,
//     in each record's context: the position of a slate it was shown at and the filters it was
//     decided under (LinearPolicy::choiceDistribution, asked once per distinct context: Thompson
//     sampling estimates it from `draws` posterior draws, a deterministic policy selects once). IPS weights each logged reward by
//     w = pi(a) / p (Horvitz-Thompson), SNIPS divides by the sum of the weights instead of n, DM
//     fits a model of the reward on the logged arms' features (RewardModel: ridge, or logistic for
//     clicks, by the option rewardModel) and averages it under pi, sum_a pi(a) r(x_a), DR
//     adds to DM the weighted residuals of the logged rewards (doubly robust: unbiased when either
//     the propensities or the model are right).
//   - the policy as it learns (replay, Li et al. 2011, "Unbiased offline evaluation of
//     contextual-bandit-based news article recommendation algorithms"): a copy selects at every
//     record; where it picks the logged arm it is updated with the logged reward, which counts;
//     other records are skipped. Unbiased only for logs of uniformly random choices among the same
//     arms; about n / K records count.
// Where the assumptions fail the intervals do not hold: IPS and SNIPS need p > 0 wherever pi > 0
// (a deterministic logger gives no information about other arms), DM needs a reward model that holds
// (linear rewards, or clicks whose log-odds are linear in the features), replay needs a uniform logger.
// The 97.5% quantile of the standard normal: a 95% normal interval is the estimate +- kZ95 errors.
inline constexpr double kZ95 = 1.959963984540054;
// Kish's effective sample size of importance weights, (sum w)^2 / sum w^2 (0 without weight).
double effectiveSampleSize(const std::vector<double>& weights);

// The page estimators' reading of one page, shared by one policy's evaluation and a population's
// (OffPolicyEvaluation::pageEstimatorNames says what each estimates).
// One page's share of a page estimator: its term (the page's value as the estimator reads it), its
// weight (what the effective sample size counts) and its largest weight on one position's reward.
struct PageTerm {
  double term = 0.0;
  double weight = 0.0;
  double largestWeight = 0.0;
};
// pi(record, arm): the target's probability of showing `arm` at `record`'s position in its context.
using PageChoice = std::function<double(std::size_t, Id)>;
// eligible(record): the number of arms the target could show in `record`'s context
// (LinearPolicy::eligibleCount under its filter), the m the exploration mix draws from: what page-pi
// reads for a log that carries the logger's own pages (DecisionLog::policyArms).
using PageEligible = std::function<std::size_t(std::size_t)>;
// The page of log records first to end - 1 as page estimator `name` reads it under `pi` (page-ips and
// page-cascade clip their weights at `clip`). page-pi refuses a page that is not whole, or not of a
// uniform logger (a log without policyArms) or of the exploration mix around the logged policyArms
// (INVALID_ARGUMENT naming it); with policyArms it needs `eligible`. page-cascade needs
// checkCascadeLog first.
PageTerm pageTerm(const std::string& name, const DecisionLog& log, std::size_t first, std::size_t end, const PageChoice& pi, double clip,
                  const PageEligible& eligible = {});
// The pseudo-inverse weight q^T Gamma^+ 1_s of a page s (Swaminathan et al. 2017) for the exploration
// mix: with probability `explore` a page of L = `pageSize` positions drawn uniformly without
// replacement among m items, else the logger's own page s0, whose second moment is
// Gamma = explore Gamma_u + (1 - explore) 1_s0 1_s0^T (off_policy_evaluation.cpp derives it).
// `matched` and `shownAnywhere` are the target's M and C of s (sum_j q(s_j at j), sum_j sum_k q(s_j at
// k)), `ownMatched` and `ownAnywhere` the same of s0, `sharedPositions` the positions where s shows
// s0's item and `sharedItems` the items the two pages share. explore 1: the uniform logger's weight.
double mixPseudoInverseWeight(double m, double pageSize, double explore, double matched, double shownAnywhere, double ownMatched,
                              double ownAnywhere, double sharedPositions, double sharedItems);
// Whether `name`'s interval reads its page terms as weighted counts (page-ips, page-cascade), and the
// largest reward that reading scales by: none when a reward is below 0 (the normal interval then).
bool readsWeightedCounts(const std::string& name);
std::optional<double> largestCountReward(const std::vector<double>& rewards);
// The 95% interval of a page-ips or page-cascade estimate `value` with standard error `error` over
// `pages` pages, whose page terms are sums of rewards in [0, largestReward] at weights of at most
// largestWeight: Fay and Feuer's (1997) gamma interval (off_policy_evaluation.cpp says why).
std::pair<double, double> weightedCountInterval(double value, double error, double largestWeight, double largestReward, double pages);

class OffPolicyEvaluation {
 public:
  // A fresh copy of the policy under evaluation, restored from its saved state.
  using PolicyCopy = std::function<PersistentLinearPolicy()>;

  // options: evaluate()'s (optionTable("evaluation", "evaluate")); policy, log and arms are the
  // caller's and are ignored here. INVALID_ARGUMENT for an unknown estimator.
  explicit OffPolicyEvaluation(const Json& options);

  // { <estimator>: { value, low, high, n, effectiveSampleSize } for each estimator asked for,
  //   rewardModel: 'linear' | 'logistic' (with dm or dr), target: { draws, arms, standardError } } (target: pi's draws, the distinct arms drawn, the
  //   largest standard error of one estimated pi(a)). A value with no sample behind it (replay that
  //   matched no record, SNIPS when the policy would play no logged arm) is null. The log is checked
  //   first (DecisionLog::check).
  Json run(const PolicyCopy& copy, const DecisionLog& log) const;

  // "replay", "ips", "snips", "dm", "dr", "page-ips", "page-pi", "page-cascade" (the page estimators only
  // when asked for).
  static const std::vector<std::string>& estimatorNames();
  // "page-ips", "page-pi": the value of a whole page (a slate), the expected sum of its positions'
  // rewards, over the log's pages (DecisionLog::pageBounds), each page one sample of the interval.
  //   page-ips: the sum over a page's records of the per-position IPS terms w = pi(a at j) / p (clipped
  //     as IPS's). Unbiased when rewards add over positions and p is each record's marginal propensity.
  //   page-pi: the pseudo-inverse estimator (Swaminathan et al. 2017) for additive rewards, built for
  //     whole pages (positions 0 to L - 1) of the uniform logger without replacement (a log without
  //     policyArms: every record of a page has propensity 1 / m, m >= the page's size) or of the
  //     exploration mix of a deterministic policy (a log with policyArms, decideSlate()'s: with
  //     probability explore a uniform page of the m arms the target has eligible there, else the
  //     logger's own page); other pages are refused, INVALID_ARGUMENT.
  //   page-cascade: reward-interaction IPS (Open Bandit Pipeline's RIPS; McInerney et al. 2020) for
  //     cascade rewards, where position j's reward may depend on the items above it: position j weighs
  //     pi(s_0..s_j) / mu(s_0..s_j), the target's probability of the page's prefix over the logger's
  //     (the log's prefixPropensities), clipped as IPS's. Needs prefix propensities, pages read from
  //     position 0 in order, and a deterministic target (checkCascade).
  static const std::vector<std::string>& pageEstimatorNames();
  static bool isPageEstimator(const std::string& name);

  // What page-cascade needs, before anything is estimated (INVALID_ARGUMENT naming the reason): of
  // the log, prefix propensities, in (0, 1], none above the record's propensity or the previous
  // position's, the first position's equal to its propensity, and each page's positions 0, 1, ... in
  // order; of the target, that it chooses deterministically (Thompson sampling's probability of a
  // prefix is not computed).
  static void checkCascadeLog(const DecisionLog& log, const std::vector<std::size_t>& bounds);
  static void checkCascadeTarget(const LinearPolicy& target);

 private:
  // The target's choice distribution in one context (a position and filters) of the log.
  struct Context;

  std::vector<std::string> estimators_;
  double clip_;
  std::size_t draws_;
  double lambda_;
  std::string rewardModel_;

  bool wants(const char* name) const;
  // page-ips, page-pi and page-cascade into report, over the pages of `bounds` (DecisionLog::pageBounds).
  void estimatePages(const DecisionLog& log, const std::vector<std::size_t>& bounds, const std::vector<Context>& contexts,
                     const std::vector<std::size_t>& contextOf, Json& report) const;
  // The estimators over `records` (indices into the log), with the target's choice distribution of
  // each record's context (contexts[contextOf[record]]; none when no estimator needs it).
  Json estimate(const PolicyCopy& copy, const PersistentLinearPolicy& frozen, const DecisionLog& log,
                const std::vector<std::size_t>& records, const std::vector<Context>& contexts,
                const std::vector<std::size_t>& contextOf, RewardModel::Kind kind) const;
};

}  // namespace sublinear
