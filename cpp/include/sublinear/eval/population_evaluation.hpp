#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/eval/decision_log.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear {

// The models of a population of users over one catalogue, one per user of a log: either each user's
// saved state as it is (frozen: "these models as they are"), or one configuration every user starts
// from scratch with (learning: "what if every user had had this policy").
class UserModels {
 public:
  // states: user id -> toBytes() of a user over `catalogue`. Restored lazily, one user at a time.
  static UserModels frozen(std::shared_ptr<Catalogue> catalogue, std::unordered_map<Id, std::vector<std::uint8_t>> states);
  // spec: { type, ...options } of a user over `catalogue` (INVALID_ARGUMENT as the constructor says,
  // checked here once). Each user's seed is drawn from the spec's seed and its id, so that Thompson
  // users do not share one stream of noise (which would correlate the users the intervals count as
  // independent).
  static UserModels learning(std::shared_ptr<Catalogue> catalogue, Json spec);
  // Each user's saved state, learning on from there ("these models, had they kept learning").
  static UserModels learningFrom(std::shared_ptr<Catalogue> catalogue, std::unordered_map<Id, std::vector<std::uint8_t>> states);

  bool learns() const { return learns_; }
  bool has(Id user) const { return spec_.is_object() || states_.count(user) > 0; }
  // A fresh model for `user` (precondition: has(user)). A saved state that does not restore over the
  // catalogue is refused naming the user (its code: INVALID_ARGUMENT for another catalogue,
  // CORRUPT_STATE for damaged bytes).
  PersistentLinearPolicy make(Id user) const;

 private:
  UserModels() = default;
  std::shared_ptr<Catalogue> catalogue_;
  bool learns_ = false;
  Json spec_;
  std::unordered_map<Id, std::vector<std::uint8_t>> states_;
};

// Off-policy evaluation of a population (API v3 evaluate with `users`): the mean reward per decision
// over every record of a log whose records each name a user, had each user been served by its model
// of a candidate population, and optionally the same for a baseline and the paired difference.
//
// Frozen populations: each user's choice distribution per record (its position and filters, asked
// of the user's model once per distinct context, as OffPolicyEvaluation does) weighs the logged
// rewards: ips, snips, dm (a reward model of the reward on the catalogue's features, RewardModel:
// ridge, or logistic for clicks; fitted on the log, shared by candidate and baseline), dr (that
// model cross-fitted on two halves of each user's records). dm's reward model is, by default
// (`rewardModelScope: 'auto'`), one per user shrunk towards the pooled one: users whose tastes
// differ click differently on the same items, which one pooled model cannot see (its dm misses on
// such shops); a user with few records stays near the pooled model (fitPerUserModels says how).
// dr keeps the pooled models unless `rewardModelScope: 'per-user'` asks (the constructor says why).
//
// Learning populations: `replay` with rejection sampling by the logged propensities (Dudik, Erhan,
// Langford and Li 2012): each user's model runs through that user's records in log order; where it
// chooses the logged arm the record is accepted with probability acceptance / p, and only accepted
// records update the model and count. Then each accepted decision's arm is distributed as the
// model's own choice whatever the logger preferred, provided acceptance <= p on every record: the
// default acceptance is the log's smallest propensity (unbiased; about that share of the records is
// accepted). A larger one accepts more records and leans towards the logger's favourite arms
// (records with p below it are accepted whenever matched). `horizon` is the mean number of accepted
// decisions per user: the value is the mean reward of each user's first `horizon` decisions.
//
// Every estimate is a ratio of per-user sums (numerator and denominator), so that its interval
// counts users, not records, as the independent units: the records of one user share its model and
// its taste (and a learning model's path). The users are taken as a sample of users like them (the
// spread of their values counts), which is what a switch is decided for. The normal interval is the delta method's over users;
// `interval: 'bootstrap'` resamples users (`resamples` times, from `seed`) and takes the 2.5% and
// 97.5% quantiles. The difference candidate minus baseline is computed on the same users' per-user
// terms (paired): its variance is that of the per-user differences, far below the sum of the two
// variances when the two populations agree on most records. Replay's acceptance draws are shared by
// both populations for the same reason.
class PopulationEvaluation {
 public:
  // options: evaluate()'s (optionTable("evaluation", "evaluate")); the caller's catalogue, users,
  // baseline and log are ignored here. INVALID_ARGUMENT for an unknown estimator.
  explicit PopulationEvaluation(const Json& options);

  // users: one user id per record of `log`. Refuses, before anything is sized by the log: users of
  // another count than the records (INVALID_ARGUMENT), a user a frozen population holds no state of
  // (UNKNOWN_ID naming it and its first record), then DecisionLog::check. An estimator that does not
  // apply to a population's kind (replay to a frozen one, ips/snips/dm/dr to a learning one) when
  // asked for explicitly: INVALID_ARGUMENT.
  // The report: { <estimator>: { value, low, high, n, effectiveSampleSize }, diagnostics, horizon?
  //   (learning), users, baseline?: { the same for the baseline }, difference?: { <estimator>:
  //   { value, low, high } for each estimator both populations have }, positions? (a slate log: for
  //   each position up to the last, its records' estimates, baseline and difference, or null) }.
  Json run(const UserModels& candidate, const UserModels* baseline, const DecisionLog& log, const std::vector<Id>& users) const;

 private:
  struct Terms;
  struct Shared;

  std::vector<std::string> estimators_;
  bool estimatorsGiven_ = false;
  double clip_;
  std::size_t draws_;
  double lambda_;
  std::string rewardModel_;
  std::string rewardModelScope_;
  bool perUserDm_;
  bool perUserDr_;
  bool bootstrap_;
  std::size_t resamples_;
  std::uint64_t seed_;
  double acceptance_;

  std::vector<std::string> estimatorsFor(const UserModels& models) const;
  Terms frozenTerms(const UserModels& models, const Shared& shared, const std::vector<std::string>& estimators) const;
  Terms learningTerms(const UserModels& models, const Shared& shared, const std::vector<std::string>& estimators) const;
  void fitPerUserModels(Shared& shared) const;
};

}  // namespace sublinear
