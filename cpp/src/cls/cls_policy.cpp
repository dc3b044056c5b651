#include "sublinear/cls/cls_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"

namespace sublinear {

namespace {
constexpr std::size_t kMaxArms = 4294967295u;

// Features and rewards enter the ridge sums: finite and, like the linear policies' (ArmSet::kMaxMagnitude),
// at most 1e15 in magnitude, so that V and b stay finite and every saved state reloads. Checked here
// on the bytes the core reads, not only in JavaScript: a getter that runs after JavaScript's check
// could still rewrite the caller's array.
void requireBounded(const double* values, std::size_t count, const char* what) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) {
      fail(ErrorCode::NonFinite, std::string(what) + " has a non-finite entry at position " + std::to_string(i));
    }
    if (std::fabs(values[i]) > ArmSet::kMaxMagnitude) {
      fail(ErrorCode::InvalidArgument, std::string(what) + " entry at position " + std::to_string(i) + " exceeds 1e15 in magnitude");
    }
  }
}

std::size_t rowsOf(std::size_t length, int dim) {
  const auto d = static_cast<std::size_t>(dim);
  if (length == 0 || length % d != 0) {
    fail(ErrorCode::DimensionMismatch, "features must hold N * dim numbers with N >= 1 (dim " + std::to_string(dim) +
                                           "), got " + std::to_string(length));
  }
  require(length / d <= kMaxArms, ErrorCode::InvalidArgument, "at most 2^32 - 1 arms");
  return length / d;
}

// The row count of a fixed arm set, checked like every features argument.
std::size_t armRows(const double* features, std::size_t length, int dim) {
  const std::size_t rows = rowsOf(length, dim);
  requireBounded(features, length, "features");
  return rows;
}

int readDimension(const Json& options) {
  requireObject(options, "policy options");
  require(options.is_object() && options.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return static_cast<int>(readIntegerOption(option_groups::cls(), options, "dim"));
}

int readBlocks(const Json& options) { return static_cast<int>(readIntegerOption(option_groups::cls(), options, "blocks")); }

// The `index` option, null when absent: an object, and only over one block (the index bounds the
// width of a full-dimensional V).
Json indexOption(const Json& options, const BlockDiagonalRidge& ridge) {
  if (!options.contains("index") || options["index"].is_null()) return Json();
  const Json& spec = options["index"];
  require(spec.is_object(), ErrorCode::InvalidArgument, "option 'index' must be an object { type, shortlist, ... }");
  require(ridge.blockCount() == 1, ErrorCode::InvalidArgument, "option 'index' needs blocks = 1");
  return spec;
}
}  // namespace

ClsPolicy::ClsPolicy(const Json& options, double ridgeLambda)
    : random_(readSeedOption(option_groups::cls(), options)),
      ridge_(readDimension(options), readBlocks(options), ridgeLambda),
      defaultK_(static_cast<std::size_t>(readIntegerOption(option_groups::cls(), options, "k"))),
      // s starts at the width of a unit arm under V = lambda I.
      fixedArms_(static_cast<std::size_t>(dim()), indexOption(options, ridge_), 1.0 / std::sqrt(ridgeLambda)),
      forgetting_(options) {}

ClsPolicy::~ClsPolicy() = default;

double ClsPolicy::dot(const ArmSlice& arm, const Vector& direction) const {
  const double* c = direction.data() + arm.offset;
  double sum = 0.0;
  for (std::size_t j = 0; j < arm.width; ++j) sum += c[j] * arm.values[j];
  return sum;
}

double ClsPolicy::width(const ArmSlice& arm) const { return std::sqrt(std::max(0.0, ridge_.quadraticForm(arm))); }

double ClsPolicy::armDraw(Id row) {
  double& slot = draws_[row];
  if (std::isnan(slot)) {
    slot = drawArmNoise();
    drawnRows_.push_back(row);
  }
  return slot;
}

double ClsPolicy::scoreArm(const ArmSlice& arm, Id row, double* widthOut) {
  ++scoredArms_;
  double score = dot(arm, center());
  if (usesWidth()) {
    const double w = width(arm);
    *widthOut = w;
    score += widthMultiplier(row) * w;
  } else {
    *widthOut = 0.0;
  }
  return score;
}

void ClsPolicy::startRound(std::size_t arms) {
  const double unset = std::numeric_limits<double>::quiet_NaN();
  if (draws_.size() != arms) {
    draws_.assign(arms, unset);
  } else {
    for (const Id row : drawnRows_) draws_[row] = unset;
  }
  drawnRows_.clear();
  beginRound();
}

std::vector<Id> ClsPolicy::select(const ArmFeatures& arms, const SuperArmConstraint& constraint) {
  if (arms.dim() != static_cast<std::size_t>(dim())) {
    fail(ErrorCode::DimensionMismatch, "arms have dimension " + std::to_string(arms.dim()) + ", the policy has dim " +
                                           std::to_string(dim()));
  }
  SuperArmOracle::validate(constraint, arms.count());
  return selectAll(arms, constraint);
}

std::vector<Id> ClsPolicy::select(const double* features, std::size_t length, const SuperArmConstraint& constraint) {
  const std::size_t rows = rowsOf(length, dim());
  requireBounded(features, length, "features");
  return select(ArmFeatures::dense(features, rows, static_cast<std::size_t>(dim())), constraint);
}

std::vector<Id> ClsPolicy::selectAll(const ArmFeatures& arms, const SuperArmConstraint& constraint) {
  const std::size_t count = arms.count();
  startRound(count);
  std::vector<double> scores(count);
  std::vector<double> widths(count);
  if (randomRound()) {
    // Greedy's first round: independent standard normal scores, the features unused.
    for (std::size_t row = 0; row < count; ++row) scores[row] = random_.normal();
  } else {
    for (std::size_t row = 0; row < count; ++row) {
      scores[row] = scoreArm(arms.slice(row), static_cast<Id>(row), &widths[row]);
    }
  }
  std::vector<Id> chosen = SuperArmOracle::select(scores, constraint);
  std::vector<double> chosenWidths;
  chosenWidths.reserve(chosen.size());
  for (const Id row : chosen) chosenWidths.push_back(widths[row]);
  remember(arms, chosen, chosenWidths);
  return chosen;
}

void ClsPolicy::setArms(const double* features, std::size_t length) {
  const std::size_t rows = armRows(features, length, dim());
  fixedArms_.setArms(features, rows, usesWidth());
  pending_ = false;
  pendingRows_.clear();
  pendingVectors_.clear();
}

std::vector<Id> ClsPolicy::selectFromArms(const SuperArmConstraint& constraint) {
  require(fixedArms_.count() > 0, ErrorCode::Empty, "no fixed arm set: call setArms(features) first, or pass features to select");
  SuperArmOracle::validate(constraint, fixedArms_.count());
  const ArmFeatures arms = fixedArms_.arms();
  // The index serves the uniform-matroid case; quotas and feature-blind rounds score every arm.
  if (!fixedArms_.indexed() || constraint.grouped() || randomRound()) return selectAll(arms, constraint);
  return selectShortlist(constraint);
}

std::vector<Id> ClsPolicy::selectShortlist(const SuperArmConstraint& constraint) {
  const ArmFeatures arms = fixedArms_.arms();
  startRound(arms.count());
  const double multiplier = usesWidth() ? widthMultiplierBound(arms.count()) : 0.0;
  const FixedArmShortlist::Choice choice =
      fixedArms_.choose(constraint, center(), ridge_.inverseGram(), multiplier,
                        [&](Id row, double* width) { return scoreArm(arms.slice(row), row, width); });
  if (choice.rows.size() < constraint.k) return selectAll(arms, constraint);
  remember(arms, choice.rows, choice.widths);
  return choice.rows;
}

void ClsPolicy::remember(const ArmFeatures& arms, const std::vector<Id>& chosen, const std::vector<double>& widths) {
  ++rounds_;
  pending_ = true;
  pendingRows_ = chosen;
  pendingVectors_.clear();
  pendingVectors_.reserve(chosen.size());
  for (const Id row : chosen) pendingVectors_.push_back(arms.vector(row));
  if (usesWidth()) fixedArms_.observeWidths(widths);
}

void ClsPolicy::update(const Id* chosen, std::size_t count, const double* rewards, std::size_t rewardCount) {
  require(pending_, ErrorCode::InvalidArgument, "update must follow a select (each selection is updated at most once)");
  if (rewardCount != count) {
    fail(ErrorCode::DimensionMismatch, "rewards must have one entry per chosen arm: " + std::to_string(count) +
                                           " arms, " + std::to_string(rewardCount) + " rewards");
  }
  requireBounded(rewards, rewardCount, "rewards");
  std::vector<std::size_t> positions(count);
  std::vector<bool> used(pendingRows_.size(), false);
  for (std::size_t i = 0; i < count; ++i) {
    const auto found = std::find(pendingRows_.begin(), pendingRows_.end(), chosen[i]);
    if (found == pendingRows_.end()) {
      fail(ErrorCode::InvalidArgument, "row " + std::to_string(chosen[i]) + " was not in the last selection");
    }
    const auto position = static_cast<std::size_t>(found - pendingRows_.begin());
    if (used[position]) fail(ErrorCode::InvalidArgument, "row " + std::to_string(chosen[i]) + " appears twice");
    used[position] = true;
    positions[i] = position;
    if (!ridge_.fitsOneBlock(pendingVectors_[position])) {
      fail(ErrorCode::InvalidArgument, "row " + std::to_string(chosen[i]) + " has features in more than one of the " +
                                           std::to_string(ridge_.blockCount()) + " blocks");
    }
  }
  if (forgetting_.kind() == Forgetting::Kind::Discount) discountPast(forgetting_.discount());
  // 'auto' judges the round as one observation, before the model learns from it.
  const bool changed = forgetting_.kind() == Forgetting::Kind::Auto && roundContradictsModel(positions, rewards);
  for (std::size_t i = 0; i < count; ++i) observe(pendingVectors_[positions[i]], rewards[i]);
  if (forgetting_.kind() == Forgetting::Kind::Window) {
    windowRoundSizes_.push_back(static_cast<std::uint32_t>(count));
    slideWindow();
  }
  pending_ = false;
  pendingRows_.clear();
  pendingVectors_.clear();
  if (changed) {
    weighPast(0.0);
    forgetting_.recordChange(static_cast<std::uint64_t>(rounds_), true);
  }
}

// The round's prediction errors e_i = r_i - x_i^T theta^ share the model's error (theta* - theta^),
// which rows of one cluster see almost alike: judged one by one, a round of k such rows counts one
// unlucky estimate k times (C2UCB restarted in 1 of 4 stationary runs of simulate()'s clustered
// problem, k = 10, doubling its regret). Under the model their sum has variance
// sigma^2 (k + ||sum_i x_i||^2_{V^-1}) (the noise of each row, and the estimate's error along the sum),
// so the round gives one standardised error z = (sum_i e_i + margin sigma sum_i ||x_i||_{V^-1}) /
// (sigma sqrt(k + ||sum_i x_i||^2_{V^-1})): the winner's-curse allowance of every row (see
// LinearModel), and the detector's one step. True on a change.
bool ClsPolicy::roundContradictsModel(const std::vector<std::size_t>& positions, const double* rewards) {
  const double sigma = std::max(residuals_.sigma(), kNoiseFloor * residuals_.rewardScale());
  const double warmUp = std::max(Forgetting::kWarmUp, forgetting_.warmUpPerDimension() * ridge_.blockDim());
  if (residuals_.weight() < warmUp || sigma == 0.0) return false;
  const auto slice = [](const Vector& x) { return ArmSlice{x.data(), 0, static_cast<std::size_t>(x.size())}; };
  Vector sum = Vector::Zero(ridge_.dim());
  double errors = 0.0;
  double widths = 0.0;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Vector& x = pendingVectors_[positions[i]];
    sum += x;
    errors += rewards[i] - x.dot(ridge_.theta());
    widths += std::sqrt(std::max(0.0, ridge_.quadraticForm(slice(x))));
  }
  const double spread = std::sqrt(static_cast<double>(positions.size()) + std::max(0.0, ridge_.quadraticForm(slice(sum))));
  return forgetting_.detect((errors + forgetting_.margin() * sigma * widths) / (sigma * spread));
}

void ClsPolicy::observe(const Vector& x, double reward) {
  const double error = reward - x.dot(ridge_.theta());
  ridge_.update(x, reward);
  effectiveObservations_ += 1.0;
  if (forgetting_.kind() == Forgetting::Kind::Window) window_.push_back({x, reward, 1.0});
  // The noise estimate: the error in units of its predictive spread, from the update's own x^T V^-1 x.
  if (forgetting_.kind() == Forgetting::Kind::Auto) residuals_.observe(error, ridge_.lastDenominator(), reward);
}

void ClsPolicy::discountPast(double factor) {
  ridge_.scale(factor);
  regulariserShare_ *= factor;
  effectiveObservations_ *= factor;
  // Below half its regulariser V could lose its conditioning in directions no arm fills; the
  // top-up is exact (V + (1 - c) lambda I), O(dim blockDim^2) once every log(2) / (1 - g) rounds.
  if (regulariserShare_ < 0.5) {
    ridge_.weigh(1.0, regulariserShare_);
    regulariserShare_ = 1.0;
  }
}

void ClsPolicy::weighPast(double factor) {
  ridge_.weigh(factor, regulariserShare_);
  regulariserShare_ = 1.0;
  effectiveObservations_ *= factor;
  if (factor == 0.0) {
    residuals_.clear();
    window_.clear();
    windowRoundSizes_.clear();
    sinceRefit_ = 0;
  } else {
    for (BlockDiagonalRidge::Observation& observation : window_) observation.weight *= factor;
  }
}

void ClsPolicy::forget(double factor) {
  if (!Forgetting::forgets(factor)) return;
  weighPast(factor);
  forgetting_.recordChange(static_cast<std::uint64_t>(rounds_), false);
}

void ClsPolicy::slideWindow() {
  while (windowRoundSizes_.size() > forgetting_.window()) {
    for (std::uint32_t i = 0; i < windowRoundSizes_.front(); ++i) {
      const BlockDiagonalRidge::Observation& oldest = window_.front();
      const double root = std::sqrt(oldest.weight);
      ridge_.downdate(root * oldest.x, root * oldest.reward);
      effectiveObservations_ = std::max(0.0, effectiveObservations_ - oldest.weight);
      window_.pop_front();
    }
    windowRoundSizes_.pop_front();
  }
  // The downdates' rounding is wiped out once a window, at O(window k blockDim^2 + dim blockDim^2).
  if (++sinceRefit_ >= forgetting_.window()) {
    ridge_.refit(window_);
    sinceRefit_ = 0;
  }
}

Json ClsPolicy::stats() const {
  std::uint64_t indexProducts = 0;
  Json stats = Json::object();
  if (fixedArms_.indexed()) {
    stats["index"] = fixedArms_.indexStats();
    indexProducts = stats["index"]["innerProducts"].get<std::uint64_t>();
  }
  stats["innerProducts"] = indexProducts + scoredArms_;
  stats["scoredArms"] = scoredArms_;
  stats["rounds"] = rounds_;
  stats["shortlistRounds"] = fixedArms_.shortlistRounds();
  stats["certifiedRounds"] = fixedArms_.certifiedRounds();
  stats["armCount"] = fixedArms_.count();
  stats["forgetting"] = forgetting_.stats(effectiveObservations_);
  return stats;
}

void ClsPolicy::save(StateWriter& out) const {
  ridge_.save(out);
  out.random(random_);
  const std::uint64_t counters[] = {static_cast<std::uint64_t>(rounds_), scoredArms_, fixedArms_.shortlistRounds(),
                                    fixedArms_.certifiedRounds()};
  out.u64s(counters, 4);
  out.f64(fixedArms_.widthScale());
  out.u8(pending_ ? 1 : 0);
  out.u32s(pendingRows_.data(), pendingRows_.size());
  std::vector<double> vectors;
  for (const Vector& x : pendingVectors_) vectors.insert(vectors.end(), x.data(), x.data() + x.size());
  out.f64s(vectors.data(), vectors.size());
  // Before the fixed arms: their index ends the payload.
  forgetting_.save(out);
  out.f64(regulariserShare_);
  out.f64(effectiveObservations_);
  residuals_.save(out);
  const std::vector<std::uint32_t> roundSizes(windowRoundSizes_.begin(), windowRoundSizes_.end());
  out.u32s(roundSizes.data(), roundSizes.size());
  for (const BlockDiagonalRidge::Observation& observation : window_) {
    out.vector(observation.x);
    out.f64(observation.reward);
    out.f64(observation.weight);
  }
  out.u64(sinceRefit_);
  out.f64s(fixedArms_.features().data(), fixedArms_.features().size());
  fixedArms_.saveIndex(out);
}

void ClsPolicy::load(StateReader& in) {
  const std::size_t d = static_cast<std::size_t>(dim());
  // The model is decoded into its own storage (a policy is loaded only when new, and a failed load
  // leaves no object): a copy beside it would double a large model's memory, for good on the wasm heap.
  ridge_.load(in);
  Random random = random_;
  in.random(random);
  const std::vector<std::uint64_t> counters = in.u64s();
  in.check(counters.size() == 4, "bad counters");
  const double widthScale = in.f64();
  const std::uint8_t pending = in.u8();
  const std::vector<Id> pendingRows = in.u32s();
  const std::vector<double> vectors = in.f64s();
  forgetting_.load(in);
  const double regulariserShare = in.f64();
  const double effectiveObservations = in.f64();
  residuals_.load(in);
  const std::vector<std::uint32_t> roundSizes = in.u32s();
  in.check(regulariserShare >= 0.5 && regulariserShare <= 1.0 && (regulariserShare == 1.0 || forgetting_.kind() == Forgetting::Kind::Discount),
           "the regulariser's share is out of range");
  in.check(std::isfinite(effectiveObservations) && effectiveObservations >= 0.0 &&
               effectiveObservations <= static_cast<double>(ridge_.observations()),
           "the effective number of observations is out of range");
  in.check(forgetting_.kind() == Forgetting::Kind::Window ? roundSizes.size() <= forgetting_.window() : roundSizes.empty(),
           "the window holds more rounds than it keeps");
  std::deque<BlockDiagonalRidge::Observation> window;
  for (const std::uint32_t size : roundSizes) {
    for (std::uint32_t i = 0; i < size; ++i) {
      in.check(window.size() < static_cast<std::size_t>(ridge_.observations()), "the window holds more observations than the model");
      Vector x = in.vector(ridge_.dim());
      const double reward = in.f64();
      const double weight = in.f64();
      in.check(x.allFinite() && ridge_.fitsOneBlock(x) && std::isfinite(reward) && std::isfinite(weight) && weight > 0.0 && weight <= 1.0,
               "a window observation is damaged");
      window.push_back({std::move(x), reward, weight});
    }
  }
  const std::uint64_t sinceRefit = in.u64();
  in.check(forgetting_.kind() != Forgetting::Kind::Window || sinceRefit < forgetting_.window(), "the window's refit count is out of range");
  std::vector<double> fixed = in.f64s();
  in.check(pending <= 1 && std::isfinite(widthScale) && widthScale > 0.0, "bad selection state");
  in.check(vectors.size() == pendingRows.size() * d && (pending == 1 || pendingRows.empty()), "pending selection does not match");
  in.check(fixed.size() % d == 0, "fixed arms do not match the dimension");
  for (const double value : vectors) in.check(std::isfinite(value) && std::fabs(value) <= ArmSet::kMaxMagnitude, "a pending feature is not finite or exceeds 1e15");
  // A pending row indexes the round it was selected from (its features, or the fixed arms then), not
  // today's fixed arms: its features are saved with it, so only its uniqueness is checked.
  std::vector<Id> sortedRows = pendingRows;
  std::sort(sortedRows.begin(), sortedRows.end());
  in.check(std::adjacent_find(sortedRows.begin(), sortedRows.end()) == sortedRows.end(), "a pending row appears twice");
  const std::size_t rows = fixed.empty() ? 0 : armRows(fixed.data(), fixed.size(), dim());
  fixedArms_.load(in, std::move(fixed), rows, usesWidth(), counters[2], counters[3], widthScale);
  regulariserShare_ = regulariserShare;
  effectiveObservations_ = effectiveObservations;
  window_ = std::move(window);
  windowRoundSizes_.assign(roundSizes.begin(), roundSizes.end());
  sinceRefit_ = sinceRefit;
  random_ = random;
  rounds_ = static_cast<long>(counters[0]);
  scoredArms_ = counters[1];
  pending_ = pending == 1;
  pendingRows_ = pendingRows;
  pendingVectors_.clear();
  for (std::size_t i = 0; i < pendingRows.size(); ++i) pendingVectors_.push_back(Eigen::Map<const Vector>(vectors.data() + i * d, static_cast<Eigen::Index>(d)));
}

}  // namespace sublinear
