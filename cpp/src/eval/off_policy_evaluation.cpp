#include "sublinear/eval/off_policy_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <Eigen/Dense>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {
// The two-sided 95% quantile of the standard normal.
constexpr double kZ95 = 1.959963984540054;
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

// Kish's effective sample size of importance weights, (sum w)^2 / sum w^2.
double effectiveSampleSize(const std::vector<double>& weights) {
  double sum = 0.0;
  double squares = 0.0;
  for (const double w : weights) {
    sum += w;
    squares += w * w;
  }
  return squares > 0.0 ? sum * sum / squares : 0.0;
}
}  // namespace

const std::vector<std::string>& OffPolicyEvaluation::estimatorNames() {
  static const std::vector<std::string> names{"replay", "ips", "snips", "dm", "dr"};
  return names;
}

OffPolicyEvaluation::OffPolicyEvaluation(const Json& options) {
  const OptionGroup& group = option_groups::evaluation();
  if (optionGiven(options, "estimators")) {
    const Json& asked = options.at("estimators");
    require(asked.is_array() && !asked.empty(), ErrorCode::InvalidArgument,
            "option 'estimators' must be a non-empty array of 'replay', 'ips', 'snips', 'dm', 'dr'");
    for (const Json& name : asked) {
      const auto& names = estimatorNames();
      if (!name.is_string() || std::find(names.begin(), names.end(), name.get<std::string>()) == names.end()) {
        fail(ErrorCode::InvalidArgument, "unknown estimator " + name.dump() + " (one of 'replay', 'ips', 'snips', 'dm', 'dr')");
      }
      if (std::find(estimators_.begin(), estimators_.end(), name.get<std::string>()) == estimators_.end()) {
        estimators_.push_back(name.get<std::string>());
      }
    }
  } else {
    estimators_ = estimatorNames();
  }
  clip_ = readOption(group, options, "clip", std::numeric_limits<double>::infinity());
  draws_ = static_cast<std::size_t>(readIntegerOption(group, options, "draws"));
  lambda_ = readOption(group, options, "lambda");
}

bool OffPolicyEvaluation::wants(const char* name) const {
  return std::find(estimators_.begin(), estimators_.end(), name) != estimators_.end();
}

Json OffPolicyEvaluation::run(const PolicyCopy& copy, const DecisionLog& log) const {
  std::unique_ptr<PersistentLinearPolicy> frozen = copy();
  const LinearPolicy& policy = frozen->policy();
  log.check(policy);
  const std::size_t n = log.size();
  const int d = policy.dim();
  const auto features = [&](Id arm) { return Eigen::Map<const Vector>(policy.featuresOf(arm), d); };
  Json report = Json::object();

  // pi: the frozen policy's choice frequencies over `draws` selections of one copy.
  std::unordered_map<Id, double> pi;
  const bool needsPi = wants("ips") || wants("snips") || wants("dm") || wants("dr");
  if (needsPi) {
    for (std::size_t draw = 0; draw < draws_; ++draw) pi[frozen->select()] += 1.0;
    double largestError = 0.0;
    for (auto& [arm, probability] : pi) {
      probability /= static_cast<double>(draws_);
      largestError = std::max(largestError, std::sqrt(probability * (1.0 - probability) / static_cast<double>(draws_)));
    }
    report["target"] = Json{{"draws", draws_}, {"arms", pi.size()}, {"standardError", largestError}};
  }
  const auto probabilityOf = [&](Id arm) {
    const auto found = pi.find(arm);
    return found == pi.end() ? 0.0 : found->second;
  };

  std::vector<double> weights(n);
  for (std::size_t i = 0; i < n; ++i) weights[i] = std::min(probabilityOf(log.arms[i]) / log.propensities[i], clip_);
  const double weightEss = effectiveSampleSize(weights);
  // pi is a mean of `draws` choices, so even exact weights would estimate sum_a pi^(a) mu(a): the
  // draws add Var_{a ~ pi}(reward) / draws, estimated from the weighted moments of the logged rewards.
  double rewardDrawVariance = 0.0;
  {
    double weightSum = 0.0;
    double first = 0.0;
    double second = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      weightSum += weights[i];
      first += weights[i] * log.rewards[i];
      second += weights[i] * log.rewards[i] * log.rewards[i];
    }
    if (weightSum > 0.0) {
      first /= weightSum;
      rewardDrawVariance = std::max(0.0, second / weightSum - first * first) / static_cast<double>(draws_);
    }
  }
  const auto withDraws = [&](Estimate& estimate) {
    estimate.standardError = std::sqrt(estimate.standardError * estimate.standardError + rewardDrawVariance);
  };

  if (wants("replay")) {
    std::unique_ptr<PersistentLinearPolicy> learner = copy();
    std::vector<double> matched;
    for (std::size_t i = 0; i < n; ++i) {
      if (learner->select() != log.arms[i]) continue;
      learner->update(log.arms[i], log.rewards[i]);
      matched.push_back(log.rewards[i]);
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
    for (std::size_t i = 0; i < n; ++i) terms[i] = weights[i] * log.rewards[i];
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
    for (std::size_t i = 0; i < n; ++i) {
      weightSum += weights[i];
      weighted += weights[i] * log.rewards[i];
    }
    if (weightSum > 0.0) {
      snips.value = weighted / weightSum;
      // The delta method's variance of a ratio estimator.
      double spread = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        const double residual = log.rewards[i] - snips.value;
        spread += weights[i] * weights[i] * residual * residual;
      }
      snips.standardError = std::sqrt(spread) / weightSum;
      withDraws(snips);
    }
    report["snips"] = snips.toJson();
  }
  if (wants("dm") || wants("dr")) {
    // The reward model: ridge regression of the logged rewards on the logged arms' features, over
    // the records with i % folds != skip (all of them with folds 1, skip 1).
    struct RewardModel {
      Eigen::LDLT<Matrix> factor;
      Vector theta;
    };
    const auto fit = [&](std::size_t folds, std::size_t skip) {
      Matrix gram = lambda_ * Matrix::Identity(d, d);
      Vector responses = Vector::Zero(d);
      for (std::size_t i = 0; i < n; ++i) {
        if (i % folds == skip) continue;
        const auto x = features(log.arms[i]);
        gram.selfadjointView<Eigen::Lower>().rankUpdate(x);
        responses += log.rewards[i] * x;
      }
      gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
      RewardModel model{Eigen::LDLT<Matrix>(gram), Vector()};
      model.theta = model.factor.solve(responses);
      return model;
    };
    // q = E_pi[x]: a model's value under pi is q^T theta.
    Vector q = Vector::Zero(d);
    for (const auto& [arm, probability] : pi) q += probability * features(arm);
    if (wants("dm")) {
      const RewardModel model = fit(1, 1);
      const double modelled = q.dot(model.theta);
      double squares = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        const double residual = log.rewards[i] - features(log.arms[i]).dot(model.theta);
        squares += residual * residual;
      }
      // The draws' error in the model's value: Var_{a ~ pi}(x_a^T theta) / draws.
      double drawVariance = 0.0;
      for (const auto& [arm, probability] : pi) {
        const double gap = features(arm).dot(model.theta) - modelled;
        drawVariance += probability * gap * gap;
      }
      drawVariance /= static_cast<double>(draws_);
      // The model's own uncertainty at q: sigma^2 q^T V^-1 q, sigma^2 from the residuals.
      Estimate dm;
      dm.n = n;
      dm.effectiveSampleSize = static_cast<double>(n);
      dm.value = modelled;
      const double noise = squares / std::max(1.0, static_cast<double>(n) - static_cast<double>(d));
      dm.standardError = std::sqrt(std::max(0.0, noise * q.dot(model.factor.solve(q))) + drawVariance);
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
        const double modelled = q.dot(other.theta);
        for (std::size_t i = fold; i < n; i += kFolds) {
          terms[i] = modelled + weights[i] * (log.rewards[i] - features(log.arms[i]).dot(other.theta));
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

}  // namespace sublinear
