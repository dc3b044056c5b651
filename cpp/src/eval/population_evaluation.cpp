#include "sublinear/eval/population_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <Eigen/Dense>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_specs.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/eval/eval_option_tables.hpp"
#include "sublinear/eval/off_policy_evaluation.hpp"
#include "sublinear/eval/reward_model.hpp"

namespace sublinear {

UserModels UserModels::frozen(std::shared_ptr<Catalogue> catalogue, std::unordered_map<Id, std::vector<std::uint8_t>> states) {
  UserModels models;
  models.catalogue_ = std::move(catalogue);
  models.states_ = std::move(states);
  return models;
}

UserModels UserModels::learning(std::shared_ptr<Catalogue> catalogue, Json spec) {
  require(spec.is_object(), ErrorCode::InvalidArgument, "a learning population's policy must be { type, ...options }");
  UserModels models;
  models.catalogue_ = std::move(catalogue);
  models.learns_ = true;
  models.spec_ = std::move(spec);
  // Refuses bad options now, once, rather than at the first user.
  models.make(0);
  return models;
}

UserModels UserModels::learningFrom(std::shared_ptr<Catalogue> catalogue, std::unordered_map<Id, std::vector<std::uint8_t>> states) {
  UserModels models = frozen(std::move(catalogue), std::move(states));
  models.learns_ = true;
  return models;
}

PersistentLinearPolicy UserModels::make(Id user) const {
  if (!spec_.is_object()) {
    const std::vector<std::uint8_t>& bytes = states_.at(user);
    try {
      return PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "", catalogue_);
    } catch (const Error& error) {
      fail(error.code(), "the saved state of user " + std::to_string(user) + ": " + error.what());
    }
  }
  Json spec = spec_;
  const std::uint64_t base = spec.contains("seed") && spec.at("seed").is_number() ? spec.at("seed").get<std::uint64_t>() : 0;
  // splitmix64's increment spreads neighbouring ids; 53 bits keep the seed exact as a JavaScript number.
  spec["seed"] = (base + 0x9E3779B97F4A7C15ULL * (std::uint64_t{user} + 1)) & ((std::uint64_t{1} << 53) - 1);
  return PersistentLinearPolicy(std::move(spec), catalogue_);
}

namespace {
constexpr std::size_t kLargestWeightsShown = 5;

Json finiteOrNull(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }




// The standard error of a sum of independent per-user influences, with the U / (U - 1) small-sample factor.
double userStandardError(const std::vector<double>& influence) {
  const double users = static_cast<double>(influence.size());
  if (users < 2) return std::numeric_limits<double>::quiet_NaN();
  double squares = 0.0;
  for (const double t : influence) squares += t * t;
  return std::sqrt(squares * users / (users - 1.0));
}

double bootstrapQuantile(std::vector<double> values, double level) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); }), values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double at = level * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (at - static_cast<double>(below)) * (values[above] - values[below]);
}
}  // namespace

// One population's estimators as per-user ratios, and what says when not to trust them.
// Named, not anonymous: PopulationEvaluation's own structures hold these (a unity build would warn of
// a class with external linkage holding a type of an anonymous namespace).
namespace population_evaluation_detail {
// One estimator's per-user sums: the estimate is sum(numerator) / sum(denominator).
struct UserRatio {
  std::vector<double> numerator;
  std::vector<double> denominator;
  std::size_t n = 0;
  double effectiveSampleSize = 0.0;
  // A page estimator whose interval reads its page terms as weighted counts (readsWeightedCounts): the
  // largest weight it put on one position's reward (the gamma interval's one more reward).
  bool weightedCounts = false;
  double largestWeight = 0.0;

  double value() const { return valueUnder(nullptr); }
  // The estimate with user u counted counts[u] times (a bootstrap resample), or once each.
  double valueUnder(const std::vector<double>* counts) const {
    double top = 0.0;
    double bottom = 0.0;
    for (std::size_t u = 0; u < numerator.size(); ++u) {
      const double c = counts ? (*counts)[u] : 1.0;
      top += c * numerator[u];
      bottom += c * denominator[u];
    }
    return bottom > 0.0 ? top / bottom : std::numeric_limits<double>::quiet_NaN();
  }
  // The delta method's influence of each user on the ratio: (num_u - value den_u) / sum den.
  std::vector<double> influence() const {
    double bottom = 0.0;
    for (const double d : denominator) bottom += d;
    const double v = value();
    std::vector<double> terms(numerator.size(), 0.0);
    if (!(bottom > 0.0)) return terms;
    for (std::size_t u = 0; u < terms.size(); ++u) terms[u] = (numerator[u] - v * denominator[u]) / bottom;
    return terms;
  }
};

using Ratios = std::vector<std::pair<std::string, UserRatio>>;
}  // namespace population_evaluation_detail
using population_evaluation_detail::Ratios;
using population_evaluation_detail::UserRatio;

struct PopulationEvaluation::Terms {
  Ratios ratios;
  // A slate log's: the same estimators over each position's records (empty for a position without any).
  std::vector<Ratios> positions;
  Json diagnostics = Json::object();
  double horizon = std::numeric_limits<double>::quiet_NaN();

};

namespace {
const UserRatio* findRatio(const Ratios& ratios, const std::string& name) {
  for (const auto& [estimator, ratio] : ratios) {
    if (estimator == name) return &ratio;
  }
  return nullptr;
}

// Whether record k counts: every record (position -1), or those of one position of a slate log.
using RecordFilter = std::function<bool(std::size_t)>;

// The page estimators asked for, as per-user sums of page terms (pageTerm, the reading one policy's
// evaluation has) over each user's pages: a page estimate is a ratio of per-user sums like the
// others, so that its interval counts users (a user's pages share its taste and its model).
class PageRatios {
 public:
  PageRatios(const std::vector<std::string>& estimators, std::size_t userCount) {
    for (const std::string& name : estimators) {
      if (!OffPolicyEvaluation::isPageEstimator(name)) continue;
      names_.push_back(name);
      UserRatio ratio;
      ratio.numerator.assign(userCount, 0.0);
      ratio.denominator.assign(userCount, 0.0);
      ratio.weightedCounts = readsWeightedCounts(name);
      ratios_.push_back(std::move(ratio));
    }
    weights_.resize(names_.size());
  }
  bool empty() const { return names_.empty(); }
  bool has(const char* name) const { return std::find(names_.begin(), names_.end(), name) != names_.end(); }

  // User u's page of records first to end - 1, under that user's choice probabilities pi.
  void add(std::size_t u, const DecisionLog& log, std::size_t first, std::size_t end, const PageChoice& pi, double clip,
           const PageEligible& eligible) {
    for (std::size_t k = 0; k < names_.size(); ++k) {
      const PageTerm page = pageTerm(names_[k], log, first, end, pi, clip, eligible);
      UserRatio& ratio = ratios_[k];
      ratio.numerator[u] += page.term;
      ratio.denominator[u] += 1.0;
      ++ratio.n;
      ratio.largestWeight = std::max(ratio.largestWeight, page.largestWeight);
      weights_[k].push_back(page.weight);
    }
  }

  // The ratios into `ratios`, and each estimator's page diagnostics into `diagnostics`.
  void moveInto(Ratios& ratios, Json& diagnostics) {
    for (std::size_t k = 0; k < names_.size(); ++k) {
      ratios_[k].effectiveSampleSize = effectiveSampleSize(weights_[k]);
      diagnostics[names_[k]] = Json{{"pages", ratios_[k].n},
                                    {"effectiveSampleSize", ratios_[k].effectiveSampleSize},
                                    {"largestWeight", ratios_[k].largestWeight}};
      ratios.emplace_back(names_[k], std::move(ratios_[k]));
    }
  }

 private:
  std::vector<std::string> names_;
  std::vector<UserRatio> ratios_;
  std::vector<std::vector<double>> weights_;
};

// The probability of `arm` in a choice distribution.
double probabilityIn(const RewardModel::Distribution& pi, Id arm) {
  for (const auto& [candidate, probability] : pi) {
    if (candidate == arm) return probability;
  }
  return 0.0;
}
}  // namespace

// What both populations read: the log grouped by user, the features of the logged arms, the pooled
// reward models and replay's acceptance draws.
struct PopulationEvaluation::Shared {
  const DecisionLog& log;
  // Users in order of their first record, and each one's records in log order.
  std::vector<Id> users;
  std::vector<std::vector<std::size_t>> records;
  int dim = 0;
  std::function<Eigen::Map<const Vector>(Id)> features;
  // Each record's user (an index into users) and fold: the parity of its rank among its user's
  // records, so that every user's records are split into two halves (DR's cross-fitting and the
  // per-user models' cross-validation).
  std::vector<std::size_t> userOf;
  std::vector<std::size_t> foldOf;
  // The pooled reward model over the whole log (DM) and over the records outside each of two folds
  // (DR: foldModels[f] is fitted without fold f).
  std::optional<RewardModel> model;
  std::optional<RewardModel> foldModels[2];
  // With rewardModelScope 'per-user': each user's models, shrunk towards the pooled ones with the
  // weight userLambda (fitPerUserModels).
  bool perUserDm;
  bool perUserDr;
  double userLambda;
  std::vector<RewardModel> userModels;
  std::vector<RewardModel> userFoldModels[2];
  // The reward model of user u's records (DM), and that fitted without fold f (DR).
  const RewardModel& modelFor(std::size_t u) const { return perUserDm ? userModels[u] : *model; }
  const RewardModel& foldModelFor(std::size_t u, std::size_t fold) const { return perUserDr ? userFoldModels[fold][u] : *foldModels[fold]; }
  std::vector<double> acceptanceDraws;
  // With a page estimator: the log's pages (DecisionLog::pageBounds) and each user's pages in log order.
  std::vector<std::size_t> pageBounds;
  std::vector<std::vector<std::size_t>> pagesOf;
  // With page-pi of a log with policyArms: the arms eligible in each record's context (the
  // catalogue's under its filter, the same for every user), what the exploration mix draws from.
  std::vector<std::size_t> eligible;
  PageEligible eligibleAt() const {
    return [this](std::size_t record) { return eligible.empty() ? std::size_t{0} : eligible[record]; };
  }
};

PopulationEvaluation::PopulationEvaluation(const Json& options) {
  const OptionGroup& group = option_groups::evaluation();
  if (optionGiven(options, "estimators")) {
    // The names are checked as the single policy's are.
    const OffPolicyEvaluation check(Json{{"estimators", options.at("estimators")}});
    for (const Json& name : options.at("estimators")) {
      if (std::find(estimators_.begin(), estimators_.end(), name.get<std::string>()) == estimators_.end()) {
        estimators_.push_back(name.get<std::string>());
      }
    }
    estimatorsGiven_ = true;
  }
  clip_ = readOption(group, options, "clip", std::numeric_limits<double>::infinity());
  draws_ = static_cast<std::size_t>(readIntegerOption(group, options, "draws"));
  lambda_ = readOption(group, options, "lambda");
  rewardModel_ = readStringOption(group, options, "rewardModel");
  // 'auto': per-user models for dm, the pooled ones for dr. Measured (bench/results/population-user-models.md,
  // npm run bench -- ope): where users' tastes differ the pooled dm misses (0 of 20 seeds covered)
  // and the per-user one covers (20 of 20), but dr, whose residuals already carry each user's own
  // clicks, covered 11 of 20 with per-user models against 19 of 20 with the pooled ones when the
  // candidates had learned from the evaluated records (a user's model and policy then share that
  // user's noise).
  rewardModelScope_ = readStringOption(group, options, "rewardModelScope");
  perUserDm_ = rewardModelScope_ != "pooled";
  perUserDr_ = rewardModelScope_ == "per-user";
  bootstrap_ = readStringOption(group, options, "interval") == "bootstrap";
  resamples_ = static_cast<std::size_t>(readIntegerOption(group, options, "resamples"));
  seed_ = static_cast<std::uint64_t>(readIntegerOption(group, options, "seed"));
  acceptance_ = readOption(group, options, "acceptance", 0.0);
}

std::vector<std::string> PopulationEvaluation::estimatorsFor(const UserModels& models) const {
  const std::vector<std::string> defaults = models.learns() ? std::vector<std::string>{"replay"}
                                                            : std::vector<std::string>{"ips", "snips", "dm", "dr"};
  if (!estimatorsGiven_) return defaults;
  // The page estimators apply to both kinds (a learning population is read along its replay's path,
  // learningTerms), asked for only, as for one policy.
  for (const std::string& name : estimators_) {
    if (std::find(defaults.begin(), defaults.end(), name) == defaults.end() && !OffPolicyEvaluation::isPageEstimator(name)) {
      fail(ErrorCode::InvalidArgument, "estimator '" + name + "' does not apply to a " + (models.learns() ? "learning" : "frozen") +
                                           " population (" + (models.learns() ? "replay" : "ips, snips, dm, dr") +
                                           " and the page estimators do)");
    }
  }
  return estimators_;
}

Json PopulationEvaluation::run(const UserModels& candidate, const UserModels* baseline, const DecisionLog& log,
                               const std::vector<Id>& users) const {
  if (users.size() != log.size()) {
    fail(ErrorCode::InvalidArgument, "log: users must have one entry per decision (" + std::to_string(users.size()) +
                                         " users, " + std::to_string(log.size()) + " arms)");
  }
  const std::vector<std::string> candidateEstimators = estimatorsFor(candidate);
  const std::vector<std::string> baselineEstimators = baseline ? estimatorsFor(*baseline) : std::vector<std::string>{};
  for (std::size_t i = 0; i < users.size(); ++i) {
    for (const UserModels* models : {&candidate, baseline}) {
      if (models && !models->has(users[i])) {
        fail(ErrorCode::UnknownId, "log record " + std::to_string(i) + ": user " + std::to_string(users[i]) + " has no saved state in " +
                                       (models == &candidate ? "users" : "baseline") + ".states");
      }
    }
  }
  // Any user's model holds the catalogue's arms: the log is checked against them.
  require(!users.empty(), ErrorCode::Empty, "log: no decision to evaluate");
  const PersistentLinearPolicy reader = candidate.make(users[0]);
  log.check(*reader);

  Shared shared{log, {}, {}, reader->dim(), {}, {}, {}, {}, {}, false, false, std::numeric_limits<double>::quiet_NaN(), {}, {}, {}, {}, {}, {}};
  shared.features = [&reader, d = shared.dim](Id arm) { return Eigen::Map<const Vector>(reader->featuresOf(arm), d); };
  {
    std::unordered_map<Id, std::size_t> indexOf;
    for (std::size_t i = 0; i < users.size(); ++i) {
      const auto [found, inserted] = indexOf.emplace(users[i], shared.users.size());
      if (inserted) {
        shared.users.push_back(users[i]);
        shared.records.emplace_back();
      }
      shared.records[found->second].push_back(i);
    }
    shared.userOf.resize(users.size());
    shared.foldOf.resize(users.size());
    for (std::size_t u = 0; u < shared.records.size(); ++u) {
      for (std::size_t j = 0; j < shared.records[u].size(); ++j) {
        shared.userOf[shared.records[u][j]] = u;
        shared.foldOf[shared.records[u][j]] = j % 2;
      }
    }
  }
  const int d = shared.dim;
  const std::size_t n = log.size();
  // The pooled model of the reward on the catalogue's features, over every user's records (or those
  // outside one fold): the model itself (rewardModelScope 'pooled'), or what each user's model is
  // shrunk towards ('per-user').
  const RewardModel::Kind kind = RewardModel::choose(rewardModel_, log.rewards);
  const RewardModel::Features featuresOf = [&reader](Id arm) { return reader->featuresOf(arm); };
  const auto fitPooled = [&](std::optional<std::size_t> skip) {
    return RewardModel::fit(kind, lambda_, d, featuresOf, log.arms, log.rewards,
                            [&shared, skip](std::size_t k) { return !skip || shared.foldOf[k] != *skip; });
  };
  const auto wanted = [&](const char* name) {
    for (const auto* list : {&candidateEstimators, &baselineEstimators}) {
      if (std::find(list->begin(), list->end(), name) != list->end()) return true;
    }
    return false;
  };
  const bool pagesWanted = wanted("page-ips") || wanted("page-pi") || wanted("page-cascade");
  if (pagesWanted) {
    // Pages as one policy's log has them, refused before anything is fitted or estimated: a page
    // is one user's view, so a page whose records name different users is no page of either.
    shared.pageBounds = log.pageBounds();
    if (wanted("page-cascade")) OffPolicyEvaluation::checkCascadeLog(log, shared.pageBounds);
    std::unordered_map<Id, std::size_t> userIndex;
    for (std::size_t u = 0; u < shared.users.size(); ++u) userIndex.emplace(shared.users[u], u);
    shared.pagesOf.resize(shared.users.size());
    for (std::size_t page = 0; page + 1 < shared.pageBounds.size(); ++page) {
      const std::size_t first = shared.pageBounds[page];
      for (std::size_t i = first + 1; i < shared.pageBounds[page + 1]; ++i) {
        if (users[i] != users[first]) {
          fail(ErrorCode::InvalidArgument, "log record " + std::to_string(i) + ": user " + std::to_string(users[i]) + " on the page of user " +
                                               std::to_string(users[first]) + " (records " + std::to_string(first) + " to " +
                                               std::to_string(shared.pageBounds[page + 1] - 1) + "): a page is one user's");
        }
      }
      shared.pagesOf[userIndex.at(users[first])].push_back(page);
    }
    if (wanted("page-pi") && !log.policyArms.empty()) {
      // Asked once per context of the log: every user is over the catalogue, whose arms a filter admits.
      std::unordered_map<std::string, std::size_t> known;
      shared.eligible.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const auto [found, inserted] = known.emplace(log.contextKey(i), 0);
        if (inserted) found->second = reader->eligibleCount(log.filterOf(i));
        shared.eligible[i] = found->second;
      }
    }
  }
  if (wanted("dm") || wanted("dr")) {
    shared.perUserDm = perUserDm_ && wanted("dm");
    shared.perUserDr = perUserDr_ && wanted("dr");
    const bool perUser = shared.perUserDm || shared.perUserDr;
    // The per-user models need both pooled ones: the whole log's (DM's centre) and the folds' (DR's
    // centres, and the cross-validation of the users' weight).
    if (wanted("dm") || perUser) shared.model = fitPooled(std::nullopt);
    if (wanted("dr") || perUser) {
      for (std::size_t fold = 0; fold < 2; ++fold) shared.foldModels[fold] = fitPooled(fold);
    }
    if (perUser) fitPerUserModels(shared);
  }
  if (wanted("replay") || (pagesWanted && (candidate.learns() || (baseline && baseline->learns())))) {
    Random random(seed_);
    shared.acceptanceDraws.resize(n);
    for (double& u : shared.acceptanceDraws) u = random.uniform();
  }

  const auto termsOf = [&](const UserModels& models, const std::vector<std::string>& estimators) {
    return models.learns() ? learningTerms(models, shared, estimators) : frozenTerms(models, shared, estimators);
  };
  const Terms candidateTerms = termsOf(candidate, candidateEstimators);
  Terms baselineTerms;
  if (baseline) baselineTerms = termsOf(*baseline, baselineEstimators);

  // Users resampled with replacement, as counts per user; resample b is drawn from its own seed, so
  // that every estimator and both populations see the same resamples (the difference's bootstrap is
  // paired too) without all of them being held at once. The reward models are not refitted per
  // resample: each user's dm terms carry its records' influence on the models (its own model's and,
  // through the centre every user is shrunk towards, the pooled one's), so resampling users resamples
  // the models' error as the normal interval reads it.
  const std::size_t userCount = shared.users.size();
  const auto resample = [&](std::size_t b, std::vector<double>& counts) {
    Random random(seed_ + 0x9E3779B97F4A7C15ULL * (b + 1));
    std::fill(counts.begin(), counts.end(), 0.0);
    for (std::size_t draw = 0; draw < userCount; ++draw) counts[random.uniformInt(userCount)] += 1.0;
  };
  // [low, high] of `value` with standard error `error` (normal), or the 2.5% and 97.5% quantiles of
  // `of` over the resamples.
  const auto interval = [&](double value, double error, const std::function<double(const std::vector<double>&)>& of) {
    if (!bootstrap_ || !std::isfinite(value)) return std::make_pair(value - kZ95 * error, value + kZ95 * error);
    std::vector<double> values;
    values.reserve(resamples_);
    std::vector<double> counts(userCount);
    for (std::size_t b = 0; b < resamples_; ++b) {
      resample(b, counts);
      values.push_back(of(counts));
    }
    return std::make_pair(bootstrapQuantile(values, 0.025), bootstrapQuantile(values, 0.975));
  };
  // page-ips' and page-cascade's normal interval is the one they have for one policy (Fay and Feuer's
  // gamma interval, weightedCountInterval), with the standard error over users.
  const std::optional<double> largestReward = largestCountReward(log.rewards);
  const auto estimates = [&](const Ratios& ratios) {
    Json out = Json::object();
    for (const auto& [name, ratio] : ratios) {
      const double value = ratio.value();
      const double error = userStandardError(ratio.influence());
      auto [low, high] = interval(value, error, [&ratio = ratio](const std::vector<double>& counts) { return ratio.valueUnder(&counts); });
      if (!bootstrap_ && ratio.weightedCounts && largestReward && std::isfinite(value)) {
        double pages = 0.0;
        for (const double d : ratio.denominator) pages += d;
        std::tie(low, high) = weightedCountInterval(value, error, ratio.largestWeight, *largestReward, pages);
      }
      out[name] = Json{{"value", finiteOrNull(value)}, {"low", finiteOrNull(low)}, {"high", finiteOrNull(high)}, {"n", ratio.n},
                       {"effectiveSampleSize", ratio.effectiveSampleSize}};
    }
    return out;
  };
  // Candidate minus baseline for each estimator both have, paired: the spread of the per-user
  // differences of the two influences, and the same resamples.
  const auto difference = [&](const Ratios& ratios, const Ratios& others) {
    Json out = Json::object();
    for (const auto& [name, ratio] : ratios) {
      const UserRatio* other = findRatio(others, name);
      if (!other) continue;
      const double value = ratio.value() - other->value();
      std::vector<double> influence = ratio.influence();
      const std::vector<double> otherInfluence = other->influence();
      for (std::size_t u = 0; u < influence.size(); ++u) influence[u] -= otherInfluence[u];
      const auto [low, high] = interval(value, userStandardError(influence), [&ratio = ratio, other](const std::vector<double>& counts) {
        return ratio.valueUnder(&counts) - other->valueUnder(&counts);
      });
      out[name] = Json{{"value", finiteOrNull(value)}, {"low", finiteOrNull(low)}, {"high", finiteOrNull(high)}};
    }
    return out;
  };
  const auto report = [&](const Terms& terms) {
    Json out = estimates(terms.ratios);
    out["diagnostics"] = terms.diagnostics;
    if (std::isfinite(terms.horizon)) out["horizon"] = terms.horizon;
    return out;
  };

  Json result = report(candidateTerms);
  result["users"] = userCount;
  result["interval"] = bootstrap_ ? "bootstrap" : "normal";
  if (shared.model || shared.foldModels[0]) {
    result["rewardModel"] = RewardModel::nameOf(kind);
    result["rewardModelScope"] = rewardModelScope_;
    if (shared.perUserDm || shared.perUserDr) result["userLambda"] = shared.userLambda;
  }
  if (baseline) {
    result["baseline"] = report(baselineTerms);
    result["difference"] = difference(candidateTerms.ratios, baselineTerms.ratios);
  }
  if (!candidateTerms.positions.empty()) {
    // A slate log: each position's records alone (null for a position without records).
    Json positions = Json::array();
    for (std::size_t j = 0; j < candidateTerms.positions.size(); ++j) {
      if (candidateTerms.positions[j].empty()) {
        positions.push_back(nullptr);
        continue;
      }
      Json position = estimates(candidateTerms.positions[j]);
      if (baseline && j < baselineTerms.positions.size()) {
        position["baseline"] = estimates(baselineTerms.positions[j]);
        position["difference"] = difference(candidateTerms.positions[j], baselineTerms.positions[j]);
      }
      positions.push_back(position);
    }
    result["positions"] = positions;
  }
  return result;
}

namespace {
// The weights lambda_u a user's reward model may be shrunk towards the pooled one with, compared by
// cross-validation. Every user gets the same weight: a user with m records has a likelihood whose
// curvature grows with m, so the same penalty leaves a user with few records near the pooled model
// and lets one with many follow its own clicks. From a quarter (a handful of a user's clicks
// outweigh it) to 1024 (the pooled model, short of users with thousands of records); a factor of 4
// between neighbours, on which scale the held-out loss is flat near its minimum.
constexpr double kUserLambdas[] = {0.25, 1.0, 4.0, 16.0, 64.0, 256.0, 1024.0};
}  // namespace

// A population's per-user reward models (rewardModelScope 'per-user'). Users of one shop click
// differently on the same items (their tastes), which one pooled model cannot see: its DM is then
// the right model of the average user, not of each user, and misses the population's value where
// the candidate serves users their own items. A model per user alone would be all noise for users
// with a few records; a hierarchical one keeps both: user u's parameters minimise its records' loss
// plus lambda_u / 2 ||theta_u - theta_pooled||^2 (RewardModel::fit with a prior), the kind the
// pooled model has (logistic for clicks, ridge otherwise), fitted by the same Newton steps.
//
// lambda_u, the precision of the users' tastes around the pooled model (large: they agree), is the one weight of
// kUserLambdas whose fold models predict the held-out half of every user's records best (the loss
// of RewardModel::loss summed over both folds): where every user clicks alike it comes out large
// and the models are the pooled one, where tastes differ it comes out small. Those fold models
// (user u's records outside fold f, shrunk towards the pooled model fitted outside fold f) are DR's
// cross-fitted models as they are; DM's are refitted on each user's every record, shrunk towards
// the pooled model of the whole log. The intervals take the weight as given (it is one number chosen
// from the whole log, not a parameter per user).
void PopulationEvaluation::fitPerUserModels(Shared& shared) const {
  const std::size_t userCount = shared.users.size();
  const RewardModel::Kind kind = shared.model->kind();
  const RewardModel::Features featuresOf = [&shared](Id arm) { return shared.features(arm).data(); };
  // Each user's records as arrays of their own: a fit scans every record it is given.
  std::vector<std::vector<Id>> arms(userCount);
  std::vector<std::vector<double>> rewards(userCount);
  for (std::size_t u = 0; u < userCount; ++u) {
    for (const std::size_t k : shared.records[u]) {
      arms[u].push_back(shared.log.arms[k]);
      rewards[u].push_back(shared.log.rewards[k]);
    }
  }
  const auto fitUser = [&](std::size_t u, double weight, const RewardModel& centre, std::optional<std::size_t> skip) {
    const std::vector<std::size_t>& records = shared.records[u];
    return RewardModel::fit(kind, weight, shared.dim, featuresOf, arms[u], rewards[u],
                            [&](std::size_t j) { return !skip || shared.foldOf[records[j]] != *skip; }, &centre);
  };
  double bestLoss = std::numeric_limits<double>::infinity();
  for (const double weight : kUserLambdas) {
    std::vector<RewardModel> folds[2];
    double heldOut = 0.0;
    for (std::size_t u = 0; u < userCount; ++u) {
      for (std::size_t fold = 0; fold < 2; ++fold) {
        folds[fold].push_back(fitUser(u, weight, *shared.foldModels[fold], fold));
        for (std::size_t j = 0; j < arms[u].size(); ++j) {
          if (shared.foldOf[shared.records[u][j]] == fold) heldOut += folds[fold].back().loss(featuresOf(arms[u][j]), rewards[u][j]);
        }
      }
    }
    if (shared.userFoldModels[0].empty() || heldOut < bestLoss) {
      bestLoss = heldOut;
      shared.userLambda = weight;
      for (std::size_t fold = 0; fold < 2; ++fold) shared.userFoldModels[fold] = std::move(folds[fold]);
    }
  }
  shared.userModels.reserve(userCount);
  for (std::size_t u = 0; u < userCount; ++u) shared.userModels.push_back(fitUser(u, shared.userLambda, *shared.model, std::nullopt));
}

namespace {
// For each position of a slate log up to the last, the filter of its records, and whether it has any.
std::vector<std::pair<RecordFilter, bool>> positionFilters(const DecisionLog& log) {
  std::vector<std::pair<RecordFilter, bool>> filters;
  if (log.positions.empty()) return filters;
  const std::uint32_t last = *std::max_element(log.positions.begin(), log.positions.end());
  std::vector<bool> present(std::size_t{last} + 1, false);
  for (const std::uint32_t position : log.positions) present[position] = true;
  for (std::uint32_t j = 0; j <= last; ++j) {
    filters.emplace_back([&log, j](std::size_t k) { return log.positions[k] == j; }, present[j]);
  }
  return filters;
}
}  // namespace

PopulationEvaluation::Terms PopulationEvaluation::frozenTerms(const UserModels& models, const Shared& shared,
                                                              const std::vector<std::string>& estimators) const {
  const DecisionLog& log = shared.log;
  const std::size_t n = log.size();
  const std::size_t userCount = shared.users.size();
  // Per record: the clipped and the raw weight pi(a) / p, and what the reward models make of the
  // user's choice distribution there: the pooled model's value sum_a pi(a) r(x_a) and its gradient in
  // the model's parameters (DM), the value under the model fitted without the record's fold (DR).
  // Kept per record, not per context: a Thompson user's pi has up to `draws` arms, the models' summaries
  // a fixed size.
  std::vector<double> weights(n);
  std::vector<double> rawWeights(n);
  const bool direct = std::find(estimators.begin(), estimators.end(), "dm") != estimators.end();
  const bool doublyRobust = std::find(estimators.begin(), estimators.end(), "dr") != estimators.end();
  std::vector<double> modelValues(direct ? n : 0);
  Matrix modelGradients(direct ? shared.model->parameters() : 0, direct ? static_cast<Eigen::Index>(n) : 0);
  std::vector<double> foldValues(doublyRobust ? n : 0);
  PageRatios pages(estimators, userCount);
  // With page estimators: each record's choice distribution, for the page terms of its user's pages.
  std::vector<const RewardModel::Distribution*> distributionOf(pages.empty() ? 0 : n, nullptr);
  for (std::size_t u = 0; u < userCount; ++u) {
    PersistentLinearPolicy model = models.make(shared.users[u]);
    if (pages.has("page-cascade")) OffPolicyEvaluation::checkCascadeTarget(*model);
    // What this user's pi in each of its contexts gives, asked once per context.
    struct Summary {
      double probabilityOfLogged = 0.0;
      double value = 0.0;
      Vector gradient;
      double foldValue[2] = {0.0, 0.0};
    };
    std::unordered_map<std::string, std::pair<RewardModel::Distribution, Summary>> contexts;
    for (const std::size_t k : shared.records[u]) {
      const std::string key = log.contextKey(k);
      auto found = contexts.find(key);
      if (found == contexts.end()) {
        RewardModel::Distribution pi = model->choiceDistribution(log.positionOf(k), log.filterOf(k), draws_);
        Summary summary;
        if (direct) {
          summary.value = shared.modelFor(u).valueUnder(pi);
          summary.gradient = shared.modelFor(u).gradientUnder(pi);
        }
        if (doublyRobust) {
          for (std::size_t fold = 0; fold < 2; ++fold) summary.foldValue[fold] = shared.foldModelFor(u, fold).valueUnder(pi);
        }
        found = contexts.emplace(key, std::make_pair(std::move(pi), std::move(summary))).first;
      }
      const auto& [pi, summary] = found->second;
      if (!pages.empty()) distributionOf[k] = &pi;
      rawWeights[k] = probabilityIn(pi, log.arms[k]) / log.propensities[k];
      weights[k] = std::min(rawWeights[k], clip_);
      if (direct) {
        modelValues[k] = summary.value;
        modelGradients.col(static_cast<Eigen::Index>(k)) = summary.gradient;
      }
      // Cross-fitted: the model fitted without this record's fold.
      if (doublyRobust) foldValues[k] = summary.foldValue[shared.foldOf[k]];
    }
    // The user's pages, while its contexts' distributions are held.
    const PageChoice pi = [&](std::size_t record, Id arm) { return probabilityIn(*distributionOf[record], arm); };
    for (const std::size_t page : pages.empty() ? std::vector<std::size_t>{} : shared.pagesOf[u]) {
      pages.add(u, log, shared.pageBounds[page], shared.pageBounds[page + 1], pi, clip_, shared.eligibleAt());
    }
  }

  // The estimators over the records `keep` admits, as per-user sums.
  const auto ratiosOver = [&](const RecordFilter& keep) {
    std::size_t kept = 0;
    std::vector<double> keptWeights;
    for (std::size_t k = 0; k < n; ++k) {
      if (!keep(k)) continue;
      ++kept;
      keptWeights.push_back(weights[k]);
    }
    const double weightEss = effectiveSampleSize(keptWeights);
    const auto perUser = [&](const std::function<double(std::size_t)>& top, const std::function<double(std::size_t)>& bottom) {
      UserRatio ratio;
      ratio.numerator.assign(userCount, 0.0);
      ratio.denominator.assign(userCount, 0.0);
      for (std::size_t u = 0; u < userCount; ++u) {
        for (const std::size_t k : shared.records[u]) {
          ratio.numerator[u] += top(k);
          ratio.denominator[u] += bottom(k);
        }
      }
      ratio.n = kept;
      return ratio;
    };
    const auto counted = [&](std::size_t k) { return keep(k) ? 1.0 : 0.0; };
    Ratios ratios;
    for (const std::string& name : estimators) {
      // The page estimators value whole pages, not a position's records (PageRatios).
      if (OffPolicyEvaluation::isPageEstimator(name)) continue;
      UserRatio ratio;
      if (name == "ips") {
        ratio = perUser([&](std::size_t k) { return keep(k) ? weights[k] * log.rewards[k] : 0.0; }, counted);
        ratio.effectiveSampleSize = weightEss;
      } else if (name == "snips") {
        ratio = perUser([&](std::size_t k) { return keep(k) ? weights[k] * log.rewards[k] : 0.0; },
                        [&](std::size_t k) { return keep(k) ? weights[k] : 0.0; });
        ratio.effectiveSampleSize = weightEss;
      } else if (name == "dm") {
        // The model's value under pi over the kept records, plus every record's influence through
        // the fitted parameters (n_kept g-bar^T H^-1 z_k (y_k - r(x_k)), g-bar the kept records' mean
        // gradient of the value, H the model's Hessian; every record's, since a record of another
        // position moves this one's model too), centred so that the value stays the plain mean: the
        // model's own uncertainty enters the interval per user (for the ridge model this is
        // n_kept q-bar^T G^-1 x_k e_k with q-bar = E_pi[x]; for the logistic one the delta method with
        // its Hessian).
        //
        // Per user, the value is sum_u G_u^T theta_u / n_kept to first order (G_u the sum of user u's
        // kept gradients), and theta_u solves sum_{k of u} z_k (y_k - r_u(x_k)) = lambda_u (theta_u -
        // theta_pooled): d theta_u = H_u^-1 (sum_{k of u} s_k + lambda_u d theta_pooled), with
        // d theta_pooled = H^-1 sum_k s_k over every record. So record k of user v moves the value by
        // (H_v^-1 G_v)^T s_k through its own user's model, and by (H^-1 lambda sum_u H_u^-1 G_u)^T s_k
        // through the pooled centre every user is shrunk towards: both are that user's terms.
        const Eigen::Index p = shared.model->parameters();
        std::vector<Vector> gradientSums(shared.perUserDm ? userCount : 1, Vector::Zero(p));
        for (std::size_t k = 0; k < n; ++k) {
          if (keep(k)) gradientSums[shared.perUserDm ? shared.userOf[k] : 0] += modelGradients.col(static_cast<Eigen::Index>(k));
        }
        std::vector<Vector> userDirections;
        Vector pooledDirection = shared.perUserDm ? Vector::Zero(p) : shared.model->solve(gradientSums[0]);
        if (shared.perUserDm) {
          Vector centrePull = Vector::Zero(p);
          for (std::size_t u = 0; u < userCount; ++u) {
            userDirections.push_back(shared.userModels[u].solve(gradientSums[u]));
            centrePull += shared.userLambda * userDirections.back();
          }
          pooledDirection = shared.model->solve(centrePull);
        }
        std::vector<double> corrections(n);
        double meanCorrection = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
          const double* x = shared.features(log.arms[k]).data();
          corrections[k] = pooledDirection.dot(shared.model->score(x, log.rewards[k]));
          if (shared.perUserDm) {
            const std::size_t u = shared.userOf[k];
            corrections[k] += userDirections[u].dot(shared.userModels[u].score(x, log.rewards[k]));
          }
          meanCorrection += corrections[k] / static_cast<double>(n);
        }
        ratio = perUser([&](std::size_t k) { return (keep(k) ? modelValues[k] : 0.0) + corrections[k] - meanCorrection; }, counted);
        ratio.effectiveSampleSize = static_cast<double>(kept);
      } else if (name == "dr") {
        ratio = perUser(
            [&](std::size_t k) {
              if (!keep(k)) return 0.0;
              // Cross-fitted: the residual against the model fitted without this record's fold.
              const RewardModel& other = shared.foldModelFor(shared.userOf[k], shared.foldOf[k]);
              return foldValues[k] + weights[k] * (log.rewards[k] - other.predict(shared.features(log.arms[k]).data()));
            },
            counted);
        ratio.effectiveSampleSize = weightEss;
      }
      ratios.emplace_back(name, std::move(ratio));
    }
    return ratios;
  };

  Terms terms;
  terms.ratios = ratiosOver([](std::size_t) { return true; });
  // Per position only the estimators of a position's records (not the page estimators alone).
  if (!terms.ratios.empty()) {
    for (const auto& [keep, present] : positionFilters(log)) terms.positions.push_back(present ? ratiosOver(keep) : Ratios{});
  }
  const double weightEss = effectiveSampleSize(weights);

  std::vector<double> largest = rawWeights;
  const std::size_t kept = std::min(kLargestWeightsShown, n);
  std::partial_sort(largest.begin(), largest.begin() + static_cast<std::ptrdiff_t>(kept), largest.end(), std::greater<>());
  largest.resize(kept);
  double rawSum = 0.0;
  double clippedSum = 0.0;
  std::size_t zeroWeight = 0;
  for (std::size_t k = 0; k < n; ++k) {
    rawSum += rawWeights[k];
    clippedSum += weights[k];
    if (rawWeights[k] == 0.0) ++zeroWeight;
  }
  terms.diagnostics = Json{
      {"effectiveSampleSize", weightEss},
      // E[w] = the target's probability on arms the logger may play: well below 1, the target
      // plays arms the log has no support for (and IPS and DR are biased downwards).
      {"weightMean", rawSum / static_cast<double>(n)},
      {"largestWeights", largest},
      {"clippedShare", rawSum > 0.0 ? (rawSum - clippedSum) / rawSum : 0.0},
      {"zeroWeightRecords", zeroWeight},
      {"draws", draws_},
  };
  pages.moveInto(terms.ratios, terms.diagnostics);
  return terms;
}

PopulationEvaluation::Terms PopulationEvaluation::learningTerms(const UserModels& models, const Shared& shared,
                                                                const std::vector<std::string>& estimators) const {
  const DecisionLog& log = shared.log;
  const std::size_t userCount = shared.users.size();
  double acceptance = acceptance_;
  if (!(acceptance > 0.0)) acceptance = *std::min_element(log.propensities.begin(), log.propensities.end());
  // Per record: 1 where the user's model accepted it.
  std::vector<double> accepted(log.size(), 0.0);
  std::size_t matched = 0;
  std::size_t cappedRecords = 0;
  PageRatios pages(estimators, userCount);
  // Where the model, as it stands, shows the logged arm, the record is accepted with probability
  // acceptance / p; returns whether it was.
  const auto accepts = [&](LinearPolicy& model, std::size_t k) {
    const std::optional<Id> choice = log.choiceAt(model, k);
    if (choice != log.arms[k]) return false;
    ++matched;
    const double accept = acceptance / log.propensities[k];
    if (accept > 1.0) ++cappedRecords;
    return shared.acceptanceDraws[k] < accept;
  };
  for (std::size_t u = 0; u < userCount; ++u) {
    PersistentLinearPolicy model = models.make(shared.users[u]);
    if (pages.empty()) {
      for (const std::size_t k : shared.records[u]) {
        if (!accepts(*model, k)) continue;
        model->update(log.arms[k], log.rewards[k]);
        accepted[k] = 1.0;
      }
      continue;
    }
    if (pages.has("page-cascade")) OffPolicyEvaluation::checkCascadeTarget(*model);
    // Page by page, as the candidate runs online: it chooses the whole page with what it knows before
    // the page, then learns. Every page is weighed (pageTerm) by the model's choice probabilities as
    // it stands, an unbiased term for the page value of that model whatever the logger's state; the
    // model learns, at the page's end, the records the replay's rejection accepted on it (each
    // position's feedback reaches it with probability `acceptance`, its own items' as online).
    std::vector<RewardModel::Distribution> distributions;
    std::vector<std::size_t> acceptedHere;
    for (const std::size_t page : shared.pagesOf[u]) {
      const std::size_t first = shared.pageBounds[page];
      const std::size_t end = shared.pageBounds[page + 1];
      distributions.clear();
      for (std::size_t i = first; i < end; ++i) distributions.push_back(model->choiceDistribution(log.positionOf(i), log.filterOf(i), draws_));
      pages.add(u, log, first, end, [&](std::size_t record, Id arm) { return probabilityIn(distributions[record - first], arm); }, clip_,
                shared.eligibleAt());
      acceptedHere.clear();
      for (std::size_t i = first; i < end; ++i) {
        if (accepts(*model, i)) acceptedHere.push_back(i);
      }
      for (const std::size_t i : acceptedHere) {
        model->update(log.arms[i], log.rewards[i]);
        accepted[i] = 1.0;
      }
    }
  }
  // The accepted records `keep` admits, as per-user sums.
  const auto ratiosOver = [&](const RecordFilter& keep) {
    UserRatio ratio;
    ratio.numerator.assign(userCount, 0.0);
    ratio.denominator.assign(userCount, 0.0);
    double count = 0.0;
    for (std::size_t u = 0; u < userCount; ++u) {
      for (const std::size_t k : shared.records[u]) {
        if (!keep(k)) continue;
        ratio.numerator[u] += accepted[k] * log.rewards[k];
        ratio.denominator[u] += accepted[k];
        count += accepted[k];
      }
    }
    ratio.n = static_cast<std::size_t>(count);
    ratio.effectiveSampleSize = count;
    return ratio;
  };
  const bool replay = std::find(estimators.begin(), estimators.end(), "replay") != estimators.end();
  Terms terms;
  const UserRatio all = ratiosOver([](std::size_t) { return true; });
  if (replay) {
    terms.ratios.emplace_back("replay", all);
    for (const auto& [keep, present] : positionFilters(log)) {
      terms.positions.push_back(present ? Ratios{{"replay", ratiosOver(keep)}} : Ratios{});
    }
  }
  const std::size_t acceptedCount = all.n;
  terms.horizon = static_cast<double>(acceptedCount) / static_cast<double>(userCount);
  terms.diagnostics = Json{
      {"acceptance", acceptance},
      {"matched", matched},
      {"accepted", acceptedCount},
      // Matched records whose propensity is below the acceptance, accepted without rejection: their
      // arms are over-represented (0 with the default acceptance).
      {"cappedRecords", cappedRecords},
  };
  pages.moveInto(terms.ratios, terms.diagnostics);
  return terms;
}

}  // namespace sublinear
