#include "sublinear/linear/linear_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

namespace sublinear {

namespace {
double readLambda(const Json& options) { return readOption(option_groups::ridge(), options, "lambda"); }

// Pseudo-observations of the prior variance in noiseEstimate().
constexpr double kPriorWeight = 2.0;
// The predicted click rates the likelihood ratio accepts: a linear model predicts below 0 and above
// 1; a rate near 1 would let one missing click weigh log(1 / (1 - p)).
constexpr double kLowestRate = 1e-3;
constexpr double kHighestRate = 0.9;
// The share of the past a change found over clicks keeps in a Thompson policy's model (the factored
// form is the one that draws): its choices by a draw make runs of misses likelier where nothing
// changed (the statistic's stationary peaks 11.0 nats against 8.5 for LinUCB), and a false alarm
// that starts the model over cost up to 1.30x 'none''s regret in a generated click world; keeping a
// quarter cost at most 1.08x there, and still regained a switched Fashion-MNIST shopper's clicks in
// 1.40x a fresh model's pages for Sub-TS (bench/experiments/click-detector-results.md). LinUCB and
// the elimination policies found no false change at that level and start over (keeping a share
// slowed their regain to 2.08x).
constexpr double kSampledAlarmKeeps = 0.25;
}  // namespace

LinearModel::LinearModel(int dim, int featureDim, const Json& options, RidgeRegression::Form form, Listener& listener)
    : ridge_(dim, readLambda(options), form),
      listener_(listener),
      noiseGiven_(isGiven(options, "noise")),
      noise_(readOption(option_groups::ridge(), options, "noise")),
      forgetting_(options, form == RidgeRegression::Form::Factored ? kSampledAlarmKeeps : 0.0) {
  startFromPrior(options, featureDim);
}

void LinearModel::startFromPrior(const Json& options, int featureDim) {
  if (!isGiven(options, "prior")) return;
  const Json& prior = options["prior"];
  require(prior.is_object() && prior.contains("theta") && prior.contains("weight"), ErrorCode::InvalidArgument,
          "option 'prior' must be an object { theta, weight }");
  optionTable("nested", "policy.prior").check(prior);
  const Json& theta = prior["theta"];
  // The model's dimension: a Sub-TS that transforms its features works in d + 1 dimensions, whose
  // last coordinate a population estimate in the arms' space does not describe.
  require(ridge_.dim() == featureDim, ErrorCode::InvalidArgument,
          "option 'prior' cannot be combined with negativeRewardTransform (the model is not in the arms' space)");
  if (!theta.is_array() || theta.size() != static_cast<std::size_t>(featureDim)) {
    fail(ErrorCode::DimensionMismatch, "option 'prior.theta' must hold " + std::to_string(featureDim) + " numbers (the dimension)");
  }
  Vector mean(featureDim);
  for (int j = 0; j < featureDim; ++j) {
    const Json& value = theta[static_cast<std::size_t>(j)];
    require(value.is_number(), ErrorCode::InvalidArgument, "option 'prior.theta' must hold numbers only");
    mean[j] = value.get<double>();
    // As for features (ArmSet::kMaxMagnitude): b = weight theta must stay finite through updates.
    require(std::isfinite(mean[j]) && std::fabs(mean[j]) <= ArmSet::kMaxMagnitude, ErrorCode::NonFinite,
            "option 'prior.theta' must hold finite numbers of magnitude at most 1e15");
  }
  const double weight = readOption(option_groups::ridgePriorSpec(), prior, "weight");
  priorWeight_ = weight;
  priorMean_ = std::move(mean);
  ridge_.startFromPrior(priorMean_, priorWeight_);
}

void LinearModel::observe(const Vector& x, double reward) {
  if (forgetting_.kind() == Forgetting::Kind::Discount) discountPast(forgetting_.discount());
  ridge_.update(x, reward);
  listener_.afterObservation();
  rewardSum_ += reward;
  squaredRewardSum_ += reward * reward;
  effectiveObservations_ += 1.0;
  ++updates_;
  if (binaryRewards_ && reward != 0.0 && reward != 1.0) {
    // Not clicks: the standardised errors from now on, their evidence gathered afresh.
    binaryRewards_ = false;
    if (forgetting_.kind() == Forgetting::Kind::Auto) {
      forgetting_.restartDetector();
      window_.clear();
    }
  }
  if (forgetting_.kind() == Forgetting::Kind::Window) {
    window_.push_back({x, reward, 1.0});
    slideWindow();
  }
  if (forgetting_.kind() == Forgetting::Kind::Auto) detectChange(x, reward);
}

Vector LinearModel::priorResponses() const {
  return priorWeight_ > 0.0 ? Vector(priorWeight_ * priorMean_) : Vector::Zero(ridge_.dim());
}

void LinearModel::discountPast(double factor) {
  ridge_.scale(factor);
  rewardSum_ *= factor;
  squaredRewardSum_ *= factor;
  effectiveObservations_ *= factor;
  priorScale_ *= factor;
  listener_.onModelScaled(factor);
  // Below half its regulariser V could lose its conditioning in directions no arm fills; the top-up
  // is exact (V + (1 - c) P I) and O(d^3), once every log(2) / (1 - g) observations. The elimination
  // policies restart their stages then (periodic restarts, Zhao et al. 2020).
  if (priorScale_ < 0.5) weighPast(1.0);
}

void LinearModel::slideWindow() {
  while (window_.size() > forgetting_.window()) {
    const WindowRow& oldest = window_.front();
    const double root = std::sqrt(oldest.weight);
    ridge_.downdate(root * oldest.x, root * oldest.reward);
    rewardSum_ -= oldest.weight * oldest.reward;
    squaredRewardSum_ = std::max(0.0, squaredRewardSum_ - oldest.weight * oldest.reward * oldest.reward);
    effectiveObservations_ = std::max(0.0, effectiveObservations_ - oldest.weight);
    window_.pop_front();
    listener_.onForget(false);
  }
  // The downdates' rounding is wiped out once a window, at O(window d^2 + d^3): O(d^2 + d^3 / window)
  // an observation; the elimination policies restart their stages then.
  if (++sinceRefactor_ >= forgetting_.window()) refactorWindow();
}

void LinearModel::refactorWindow() {
  Matrix gram = startPrecision() * Matrix::Identity(ridge_.dim(), ridge_.dim());
  Vector responses = priorResponses();
  double rewards = 0.0, squares = 0.0, weight = 0.0;
  for (const WindowRow& row : window_) {
    gram.noalias() += row.weight * row.x * row.x.transpose();
    responses += (row.weight * row.reward) * row.x;
    rewards += row.weight * row.reward;
    squares += row.weight * row.reward * row.reward;
    weight += row.weight;
  }
  ridge_.reset(gram, responses);
  rewardSum_ = rewards;
  squaredRewardSum_ = squares;
  effectiveObservations_ = weight;
  sinceRefactor_ = 0;
  listener_.onForget(true);
}

void LinearModel::detectChange(const Vector& x, double reward) {
  if (effectiveObservations_ < std::max(Forgetting::kWarmUp, forgetting_.warmUpPerDimension() * ridge_.dim())) return;
  // The error of the prediction made before this observation, from the model after it: with
  // u = V^-1 x and D = 1 + x^T u (V before), r - x^T theta_new = (r - x^T theta_old) / D, and the
  // predictive variance of r - x^T theta_old is sigma^2 D. O(d).
  const double denominator = ridge_.lastDenominator();
  const double error = denominator * (reward - x.dot(ridge_.theta()));
  const double sigma = noiseEstimate();
  // The policy chose the arm for a high estimate: its prediction is too high by up to about its
  // width sigma ||x||_{V^-1} without any change (the winner's curse), so that much is not evidence.
  const double width = std::sqrt(std::max(0.0, denominator - 1.0));
  bool detected;
  if (binaryRewards_) {
    const double prediction = reward - error - forgetting_.likelihoodMargin() * sigma * width;
    detected = forgetting_.detectLikelihoodRatio(clickLikelihoodRatio(reward, prediction));
  } else {
    detected = forgetting_.detect((error + forgetting_.margin() * sigma * width) / (sigma * std::sqrt(denominator)));
  }
  if (!detected) {
    // The observations since the statistic last stood at 0 are the evidence of a change, and the
    // new world's first observations if it completes one: kept (the latest kRecentRows) while it
    // rises. Where nothing changes the statistic is mostly 0 and they are few.
    if (forgetting_.rising()) {
      window_.push_back({x, reward, 1.0});
      if (window_.size() > Forgetting::kRecentRows) window_.pop_front();
    } else {
      window_.clear();
    }
    return;
  }
  // Start over from the prior with what the new evidence says: the model of the observations since
  // the change began (the estimated change point, Page 1954), not an empty one.
  std::deque<WindowRow> recent = std::move(window_);
  recent.push_back({x, reward, 1.0});
  if (recent.size() > Forgetting::kRecentRows) recent.pop_front();
  const double keep = binaryRewards_ ? forgetting_.alarmKeeps() : 0.0;
  weighPast(keep);
  // The recent rows back to their full weight (weighPast scaled them with the rest when it keeps a share).
  const double root = std::sqrt(1.0 - keep);
  for (const WindowRow& row : recent) {
    ridge_.update(root * row.x, root * row.reward);
    rewardSum_ += (1.0 - keep) * row.reward;
    squaredRewardSum_ += (1.0 - keep) * row.reward * row.reward;
    effectiveObservations_ += 1.0 - keep;
  }
  forgetting_.recordChange(updates_, true);
}

double LinearModel::clickLikelihoodRatio(double reward, double prediction) const {
  const double rate = std::clamp(prediction, kLowestRate, kHighestRate);
  const double ratio = forgetting_.dropRatio();
  return reward == 1.0 ? std::log(ratio) : std::log1p(-ratio * rate) - std::log1p(-rate);
}

void LinearModel::weighPast(double factor) {
  const Vector prior = priorResponses();
  if (factor == 0.0) {
    ridge_.restart(startPrecision(), prior);
  } else {
    // f (V - c P I) + P I and f (b - c b_0) + b_0.
    Matrix gram = ridge_.gramMatrix();
    gram *= factor;
    gram.diagonal().array() += (1.0 - factor * priorScale_) * startPrecision();
    const Vector responses = factor * ridge_.responses() + (1.0 - factor * priorScale_) * prior;
    ridge_.reset(gram, responses);
  }
  priorScale_ = 1.0;
  rewardSum_ *= factor;
  squaredRewardSum_ *= factor;
  effectiveObservations_ *= factor;
  // A window's rows keep their share; 'auto''s evidence of a change is forgotten with the detector.
  if (factor == 0.0 || forgetting_.kind() == Forgetting::Kind::Auto) {
    window_.clear();
  } else {
    for (WindowRow& row : window_) row.weight *= factor;
  }
  listener_.onForget(true);
}

void LinearModel::forget(double factor) {
  weighPast(factor);
  forgetting_.recordChange(updates_, false);
}

void LinearModel::move(const std::vector<const Matrix*>& changes) {
  if (ridge_.observations() == 0) return;
  Matrix gram = ridge_.gramMatrix();
  Vector responses = ridge_.responses();
  for (const Matrix* change : changes) moveModel(gram, responses, *change, priorScale_ * startPrecision());
  ridge_.reset(gram, responses);
  for (const Matrix* change : changes) moveWindow(*change);
}

Vector LinearModel::thetaMovedThrough(const std::vector<const Matrix*>& changes) const {
  Matrix gram = ridge_.gramMatrix();
  Vector responses = ridge_.responses();
  for (const Matrix* change : changes) moveModel(gram, responses, *change, priorScale_ * startPrecision());
  return gram.llt().solve(responses);
}

void LinearModel::moveModel(Matrix& gram, Vector& responses, const Matrix& change, double lambda) {
  const Eigen::Index r = gram.rows();
  const Matrix identity = Matrix::Identity(r, r);
  Matrix moved = lambda * identity + change * (gram - lambda * identity) * change.transpose();
  gram = (moved + moved.transpose()) / 2.0;
  responses = change * responses;
}

void LinearModel::moveWindow(const Matrix& change) {
  for (WindowRow& row : window_) row.x = change * row.x;
}

Json LinearModel::forgettingStats() const {
  Json stats = forgetting_.stats(effectiveObservations_);
  if (binaryRewards_ && stats.contains("detector")) stats["detector"]["threshold"] = forgetting_.likelihoodThreshold();
  return stats;
}

double LinearModel::noiseEstimate() const {
  if (noiseGiven_) return noise_;
  const double n = effectiveObservations_;
  if (n < 2.0) return 1.0;
  const double priorVariance = std::max(0.0, squaredRewardSum_ - rewardSum_ * rewardSum_ / n) / (n - 1.0);
  // Every reward so far the same (up to rounding), as on a page that rewards clicks before its first
  // click: no evidence of the noise's scale yet, so the prior's, as before two observations. An
  // estimate of 0 shrank every confidence width to the bias alone: Sub-Elim moved all its arms to its
  // last stage in one call, and the UCB policies played greedily.
  if (priorVariance <= 1e-12 * squaredRewardSum_ / n) return 1.0;
  const Vector& theta = ridge_.theta();
  // sum (r - x^T theta^)^2 = sum r^2 - 2 theta^T b + theta^T (V - lambda I) theta^, and V theta^ = b.
  // With a prior (V_1 = (lambda + w) I, b_1 = w theta0) the observations' part of b is b - w theta0
  // and of V is V - (lambda + w) I: sum r^2 - theta^T b + 2 w theta^T theta0 - (lambda + w) |theta^|^2.
  // Under a discount the regulariser and the prior hold the share c = priorScale_ of their weight.
  const double residuals =
      priorWeight_ > 0.0
          ? std::max(0.0, squaredRewardSum_ - theta.dot(ridge_.responses()) + 2.0 * priorScale_ * priorWeight_ * theta.dot(priorMean_) -
                              priorScale_ * startPrecision() * theta.squaredNorm())
          : std::max(0.0, squaredRewardSum_ - theta.dot(ridge_.responses()) - priorScale_ * ridge_.lambda() * theta.squaredNorm());
  // The prior's pseudo-observations are no degrees of freedom spent on the data.
  const double effectiveDim = ridge_.dim() - priorScale_ * startPrecision() * ridge_.inverseGram().trace();
  const double freedom = std::max(0.0, n - effectiveDim);
  return std::sqrt((residuals + kPriorWeight * priorVariance) / (freedom + kPriorWeight));
}

void LinearModel::saveRegression(StateWriter& out) const { ridge_.save(out); }

void LinearModel::loadRegression(StateReader& in) {
  ridge_.load(in);
  // V = lambda I + sum x x^T adds the same products in the same order on both sides of the diagonal,
  // so it is symmetric bit for bit. The factored form's V^-1 is not checked beyond being finite:
  // Sherman-Morrison keeps it symmetric only up to rounding, and with ill-conditioned features (|x|
  // near 1e8 and above) its triangles differ by a tenth of its largest entry and its diagonal can
  // turn negative -- states this library writes. Every use tolerates that: norms clamp at zero,
  // Sub-Elim averages the triangles. (The InverseOnly form keeps no V; its V^-1 is checked for
  // symmetry, which its downdates keep bit for bit, in RidgeRegression::load.)
  if (ridge_.form() == RidgeRegression::Form::Factored) {
    const Matrix& gram = ridge_.gram();
    in.check((gram.diagonal().array() > 0.0).all() && gram == gram.transpose(), "ridge state's V is not symmetric with a positive diagonal");
  }
}

void LinearModel::saveMemory(StateWriter& out) const {
  out.u64(updates_);
  out.f64(rewardSum_);
  out.f64(squaredRewardSum_);
  out.f64(effectiveObservations_);
  out.f64(priorScale_);
  out.u8(binaryRewards_ ? 1 : 0);
  forgetting_.save(out);
  out.u64(window_.size());
  for (const WindowRow& row : window_) {
    out.vector(row.x);
    out.f64(row.reward);
    out.f64(row.weight);
  }
  out.u64(sinceRefactor_);
}

void LinearModel::loadMemory(StateReader& in) {
  updates_ = in.u64();
  rewardSum_ = in.f64();
  squaredRewardSum_ = in.f64();
  // A detected change replays the observations since its statistic rose (at most kRecentRows each
  // time) into the new model: the regression may have taken those twice.
  in.check(ridge_.observations() >= 0 && static_cast<std::uint64_t>(ridge_.observations()) >= updates_, "update count does not match the regression's");
  in.check(std::isfinite(rewardSum_) && std::isfinite(squaredRewardSum_) && squaredRewardSum_ >= 0.0,
           "reward sums are not finite");
  effectiveObservations_ = in.f64();
  priorScale_ = in.f64();
  in.check(std::isfinite(effectiveObservations_) && effectiveObservations_ >= 0.0 &&
               effectiveObservations_ <= static_cast<double>(updates_),
           "the effective number of observations is out of range");
  in.check(priorScale_ >= 0.5 && priorScale_ <= 1.0 && (priorScale_ == 1.0 || forgetting_.kind() == Forgetting::Kind::Discount),
           "the regulariser's share is out of range");
  const std::uint8_t binary = in.u8();
  in.check(binary <= 1, "the binary rewards flag is not 0 or 1");
  binaryRewards_ = binary == 1;
  forgetting_.load(in);
  in.check(static_cast<std::uint64_t>(ridge_.observations()) - updates_ <= Forgetting::kRecentRows * forgetting_.changes(),
           "update count does not match the regression's");
  const std::uint64_t rows = in.u64();
  const std::uint64_t kept = forgetting_.kind() == Forgetting::Kind::Window ? forgetting_.window()
                             : forgetting_.kind() == Forgetting::Kind::Auto  ? Forgetting::kRecentRows
                                                                              : 0;
  in.check(rows <= kept, "the window holds more observations than it keeps");
  for (std::uint64_t i = 0; i < rows; ++i) {
    Vector x = in.vector(ridge_.dim());
    const double reward = in.f64();
    const double weight = in.f64();
    in.check(x.allFinite() && std::isfinite(reward) && std::isfinite(weight) && weight > 0.0 && weight <= 1.0,
             "a window row is not finite");
    window_.push_back({std::move(x), reward, weight});
  }
  sinceRefactor_ = in.u64();
  in.check(forgetting_.kind() != Forgetting::Kind::Window || sinceRefactor_ < forgetting_.window(),
           "the window's refactoring count is out of range");
}

}  // namespace sublinear
