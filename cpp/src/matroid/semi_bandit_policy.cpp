#include "sublinear/matroid/semi_bandit_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/memory_budget.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/matroid/matroid_option_tables.hpp"

namespace sublinear {

namespace {
// Rewards and ranges beyond 1e150 (the range of options 'a' and 'b') would make the UCB arithmetic overflow.

// The per-arm statistics and bookkeeping take about 40 bytes per arm.
std::size_t affordableArmCount(std::size_t k) {
  requireAddressable(k, 40, "the statistics of " + std::to_string(k) + " arms");
  return k;
}
}

SemiBanditPolicy::SemiBanditPolicy(const Matroid& matroid, const Json& options)
    : matroid_(matroid.clone()),
      armCount_(affordableArmCount(matroid.groundSetSize())),
      a_(readOption(option_groups::semiBandit(), options, "a")),
      b_(readOption(option_groups::semiBandit(), options, "b")),
      horizon_(readIntegerOption(option_groups::semiBandit(), options, "horizon")),
      random_(readSeedOption(option_groups::semiBandit(), options)),
      pulls_(matroid.groundSetSize(), 0),
      weights_(matroid.groundSetSize(), 0.0),
      means_(matroid.groundSetSize(), 0.0),
      forgetting_(options),
      oracle_(matroid_->makeOracle()) {
  requireObject(options, "policy options");
  require(a_ < b_, ErrorCode::InvalidArgument, "options 'a' and 'b' must satisfy a < b (rewards lie in [a, b])");
  require(matroid_->rank() >= 1, ErrorCode::InvalidArgument, "the matroid has rank 0: there is nothing to play");
  referenceBasis_.reserve(matroid_->rank());
  for (Id arm = 0; arm < armCount_ && referenceBasis_.size() < matroid_->rank(); ++arm) {
    if (oracle_->canAdd(arm)) {
      oracle_->add(arm);
      referenceBasis_.push_back(arm);
    }
  }
  oracle_->clear();
}

double SemiBanditPolicy::confidenceWidth(std::int64_t t) const {
  const double range = b_ - a_;
  return std::sqrt(1.5 * range * range * deterministic::log(static_cast<double>(std::max<std::int64_t>(t, 1))));
}

double SemiBanditPolicy::ucbIndex(Id arm, std::int64_t t) const {
  return means_[arm] + confidenceWidth(t) / std::sqrt(count(arm));
}

const std::vector<Id>& SemiBanditPolicy::select() {
  if (!unpulledListed_ && needsInitialPulls()) {
    // Built on the first select rather than in the constructor, where needsInitialPulls() is not
    // yet the subclass's. Loops are in no basis and are never pulled.
    unpulledListed_ = true;
    for (Id arm = 0; arm < armCount_; ++arm) {
      if (oracle_->canAdd(arm)) unpulled_.push_back(arm);
    }
    random_.shuffle(unpulled_);
    unpulledPosition_.assign(armCount_, 0);
    for (std::size_t i = 0; i < unpulled_.size(); ++i) unpulledPosition_[unpulled_[i]] = static_cast<std::uint32_t>(i);
  }
  const std::int64_t t = rounds_ + 1;
  // Arms whose count is 0 come first (the initial pulls, and again after a restart or an arm's
  // last observation left the window).
  std::vector<Id> basis = !unpulled_.empty() ? basisCoveringUnpulled() : chooseBasis(t);
  if (basis.size() != matroid_->rank()) fail(ErrorCode::CorruptState, "internal error: the chosen set is not a basis");
  selected_ = std::move(basis);
  pending_ = true;
  return selected_;
}

std::vector<Id> SemiBanditPolicy::basisCoveringUnpulled() {
  // Greedy over (a window of) the unpulled arms, then completed from a fixed basis: by the
  // augmentation property an independent set always extends to a basis with elements of another
  // basis. The window keeps a round O(rank · T_member); the first unpulled arm always fits.
  const std::size_t rank = matroid_->rank();
  const std::size_t window = std::min(unpulled_.size(), 4 * rank + 16);
  std::vector<Id> basis;
  basis.reserve(rank);
  oracle_->clear();
  for (std::size_t i = 0; i < window && basis.size() < rank; ++i) {
    const Id arm = unpulled_[i];
    ++armsScanned_;
    if (oracle_->canAdd(arm)) {
      oracle_->add(arm);
      basis.push_back(arm);
    }
  }
  for (const Id arm : referenceBasis_) {
    if (basis.size() >= rank) break;
    ++armsScanned_;
    if (std::find(basis.begin(), basis.end(), arm) == basis.end() && oracle_->canAdd(arm)) {
      oracle_->add(arm);
      basis.push_back(arm);
    }
  }
  oracle_->clear();
  return basis;
}

void SemiBanditPolicy::validateUpdate(const Id* basis, std::size_t basisLength, const double* rewards,
                                      std::size_t rewardLength) const {
  require(pending_, ErrorCode::InvalidArgument, "update() must follow select(): there is no selected basis to update");
  if (basisLength != selected_.size()) {
    fail(ErrorCode::DimensionMismatch, "the basis has " + std::to_string(basisLength) + " arms; the selected basis has " + std::to_string(selected_.size()));
  }
  if (rewardLength != basisLength) {
    fail(ErrorCode::DimensionMismatch, "rewards must be aligned with the basis: " + std::to_string(basisLength) + " arms, " +
                                           std::to_string(rewardLength) + " rewards");
  }
  std::vector<Id> given(basis, basis + basisLength);
  std::vector<Id> expected = selected_;
  std::sort(given.begin(), given.end());
  std::sort(expected.begin(), expected.end());
  require(given == expected, ErrorCode::InvalidArgument, "update() must receive the basis that the last select() returned");
  for (std::size_t i = 0; i < rewardLength; ++i) {
    require(std::isfinite(rewards[i]), ErrorCode::NonFinite, "rewards must be finite");
    if (rewards[i] < a_ || rewards[i] > b_) {
      fail(ErrorCode::InvalidArgument, "reward " + std::to_string(rewards[i]) + " is outside [a, b] = [" + std::to_string(a_) + ", " + std::to_string(b_) + "]");
    }
  }
}

void SemiBanditPolicy::update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength) {
  validateUpdate(basis, basisLength, rewards, rewardLength);
  if (forgetting_.kind() == Forgetting::Kind::Discount) {
    countScale_ *= forgetting_.discount();
    if (countScale_ < kSmallestScale) foldScale();
  }
  // 'auto': the round's standardised errors pooled into one, sum z_k / sqrt(judged), so that the
  // detector sees one observation a round whatever the rank (its false alarms are counted in
  // rounds, as the linear policies' are), and a change of every played arm adds up.
  double errors = 0.0;
  std::size_t judged = 0;
  for (std::size_t i = 0; i < basisLength; ++i) {
    const Id arm = basis[i];
    if (forgetting_.kind() == Forgetting::Kind::Auto) {
      const double z = standardisedError(arm, rewards[i]);
      if (!std::isnan(z)) errors += z, ++judged;
    }
    if (weights_[arm] == 0.0 && unpulledListed_) removeUnpulled(arm);
    ++pulls_[arm];
    weights_[arm] += 1.0 / countScale_;
    means_[arm] += (rewards[i] - means_[arm]) / (countScale_ * weights_[arm]);
    armUpdated(arm, rewards[i]);
    if (forgetting_.kind() == Forgetting::Kind::Window) {
      windowArms_.push_back(arm);
      windowRewards_.push_back(rewards[i]);
    }
  }
  if (forgetting_.kind() == Forgetting::Kind::Window) windowWeights_.push_back(1.0 / countScale_);
  roundWeight_ += 1.0 / countScale_;
  ++rounds_;
  pending_ = false;
  if (forgetting_.kind() == Forgetting::Kind::Window) slideWindow();
  if (initialPhase_ && (unpulled_.empty() || !needsInitialPulls())) {
    initialPhase_ = false;
    initialPullsCompleted();
  }
  if (judged > 0 && forgetting_.detect(errors / std::sqrt(static_cast<double>(judged)))) {
    weighPast(0.0);
    forgetting_.recordChange(static_cast<std::uint64_t>(rounds_), true);
  }
}

double SemiBanditPolicy::standardisedError(Id arm, double reward) const {
  const double n = count(arm);
  if (n < kJudgedCount) return std::numeric_limits<double>::quiet_NaN();
  // The arm's own noise scale, bounded by its mean: a reward in [a, b] with mean mu has a variance
  // of at most (mu - a)(b - mu) (Bhatia and Davis 2000), reached by Bernoulli rewards. A scale pooled
  // over the arms undershot the noisiest arms' and made their errors look like evidence.
  const double range = b_ - a_;
  const double sigma = std::max(kNoiseFloor * range, std::sqrt(std::max(0.0, (means_[arm] - a_) * (b_ - means_[arm]))));
  // The arm was played for a high upper bound (CUCB) or draw (CTS): its mean may be too high by up
  // to its confidence width lambda_t / sqrt(N_k) without any change, so that much is not evidence.
  // One standard error (the linear policies' margin) left the best arms' unlucky stretches, whose
  // errors persist until their means catch up, raising alarms in stationary runs.
  const double error = reward - means_[arm] + confidenceWidth(rounds_ + 1) / std::sqrt(n);
  return std::clamp(error / (sigma * std::sqrt(1.0 + 1.0 / n)), -Forgetting::kClip, Forgetting::kClip);
}

void SemiBanditPolicy::forget(double factor) {
  if (!Forgetting::forgets(factor)) return;
  weighPast(factor);
  forgetting_.recordChange(static_cast<std::uint64_t>(rounds_), false);
}

void SemiBanditPolicy::weighPast(double factor) {
  if (factor > 0.0) {
    // N_k = G M_k for every arm at once; the means are weighted means and stay.
    countScale_ *= factor;
    if (countScale_ < kSmallestScale) foldScale();
  } else {
    countScale_ = 1.0;
    roundWeight_ = 0.0;
    std::fill(weights_.begin(), weights_.end(), 0.0);
    std::fill(means_.begin(), means_.end(), 0.0);
    windowArms_.clear();
    windowRewards_.clear();
    windowWeights_.clear();
    if (needsInitialPulls() && unpulledListed_) {
      unpulled_.clear();
      for (Id arm = 0; arm < armCount_; ++arm) {
        if (oracle_->canAdd(arm)) unpulled_.push_back(arm);
      }
      random_.shuffle(unpulled_);
      for (std::size_t i = 0; i < unpulled_.size(); ++i) unpulledPosition_[unpulled_[i]] = static_cast<std::uint32_t>(i);
    }
    initialPhase_ = true;
  }
  countsWeighed(factor);
}

void SemiBanditPolicy::slideWindow() {
  const std::size_t rank = matroid_->rank();
  while (windowArms_.size() > forgetting_.window() * rank) {
    // One round leaves: its rank observations, each of the weight 1 / G it was given.
    const double weight = windowWeights_.front();
    for (std::size_t i = 0; i < rank; ++i) {
      const Id arm = windowArms_.front();
      const double reward = windowRewards_.front();
      windowArms_.pop_front();
      windowRewards_.pop_front();
      const double left = weights_[arm] - weight;
      // Whole numbers unless forget(f) scaled G: then the last observation may leave rounding behind.
      const bool emptied = left <= 1e-9 * weight;
      means_[arm] = emptied ? 0.0 : means_[arm] + (means_[arm] - reward) * (weight / left);
      weights_[arm] = emptied ? 0.0 : left;
      if (emptied && needsInitialPulls()) listUnpulled(arm);
      observationLeft(arm, reward, emptied);
    }
    windowWeights_.pop_front();
    roundWeight_ = std::max(0.0, roundWeight_ - weight);
  }
}

void SemiBanditPolicy::foldScale() {
  // A positive weight stays positive: an arm with a count is not one to cover again.
  for (double& weight : weights_) {
    if (weight > 0.0) weight = std::max(weight * countScale_, std::numeric_limits<double>::min());
  }
  for (double& weight : windowWeights_) weight *= countScale_;
  roundWeight_ *= countScale_;
  countScale_ = 1.0;
  weightsRenormalised();
}

void SemiBanditPolicy::listUnpulled(Id arm) {
  unpulledPosition_[arm] = static_cast<std::uint32_t>(unpulled_.size());
  unpulled_.push_back(arm);
}

void SemiBanditPolicy::removeUnpulled(Id arm) {
  // Swap-remove: O(1), and the list stays in random order.
  const std::uint32_t position = unpulledPosition_[arm];
  unpulled_[position] = unpulled_.back();
  unpulledPosition_[unpulled_[position]] = position;
  unpulled_.pop_back();
}

Json SemiBanditPolicy::stats() const {
  return Json{{"type", type()},
              {"rounds", rounds_},
              {"armsScanned", armsScanned_},
              {"initialPullsDone", !initialPhase_},
              {"forgetting", forgetting_.stats(countScale_ * roundWeight_)}};
}

void SemiBanditPolicy::save(StateWriter& out) const {
  out.u64(static_cast<std::uint64_t>(rounds_));
  out.u64s(pulls_.data(), pulls_.size());
  out.f64s(means_.data(), means_.size());
  out.random(random_);
  out.u64(armsScanned_);
  out.u32s(unpulled_.data(), unpulled_.size());
  // The selection an update() may still answer; empty when none is pending (a basis never is).
  out.u32s(selected_.data(), pending_ ? selected_.size() : 0);
  out.f64s(weights_.data(), weights_.size());
  out.f64(countScale_);
  out.f64(roundWeight_);
  out.u8(initialPhase_ ? 1 : 0);
  forgetting_.save(out);
  const std::vector<Id> windowArms(windowArms_.begin(), windowArms_.end());
  const std::vector<double> windowRewards(windowRewards_.begin(), windowRewards_.end());
  const std::vector<double> windowWeights(windowWeights_.begin(), windowWeights_.end());
  out.u32s(windowArms.data(), windowArms.size());
  out.f64s(windowRewards.data(), windowRewards.size());
  out.f64s(windowWeights.data(), windowWeights.size());
}

void SemiBanditPolicy::load(StateReader& in) {
  const std::uint64_t rounds = in.u64();
  in.check(rounds <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), "the round count is out of range");
  // The counts, means and weights are decoded into the vectors the constructor made (a policy is
  // loaded only when new, and a failed load leaves no object): copies beside them would double the
  // memory of a policy over many arms.
  in.u64s(pulls_);
  in.f64s(means_);
  in.check(pulls_.size() == armCount_ && means_.size() == armCount_, "the arm statistics do not match the matroid");
  in.random(random_);
  armsScanned_ = in.u64();
  std::vector<Id> unpulled = in.u32s();
  std::vector<Id> selected = in.u32s();
  in.f64s(weights_);
  const double countScale = in.f64();
  const double roundWeight = in.f64();
  const std::uint8_t initialPhase = in.u8();
  forgetting_.load(in);
  const std::vector<Id> windowArms = in.u32s();
  const std::vector<double> windowRewards = in.f64s();
  const std::vector<double> windowWeights = in.f64s();

  in.check(weights_.size() == armCount_, "the arm weights do not match the matroid");
  in.check(initialPhase <= 1, "the initial phase's flag is not 0 or 1");
  in.check(std::isfinite(countScale) && countScale >= kSmallestScale && countScale <= 1.0, "the count scale is out of range");
  in.check(std::isfinite(roundWeight) && roundWeight >= 0.0 && countScale * roundWeight <= static_cast<double>(rounds) * (1.0 + 1e-9),
           "the rounds' weight is out of range");

  // Every round pulls one basis (rank() arms, each at most once), so the counts add up to
  // rounds x rank; loops are in no basis. Means average rewards in [a, b]; the slack covers the
  // rounding of the running average.
  const std::size_t rank = matroid_->rank();
  in.check(rounds <= std::numeric_limits<std::uint64_t>::max() / rank, "the round count is out of range");
  const std::uint64_t expectedPulls = rounds * rank;
  const double slack = 1e-9 * (b_ - a_);
  std::uint64_t totalPulls = 0;
  std::size_t unpulledPlayable = 0;
  for (Id arm = 0; arm < armCount_; ++arm) {
    const bool loop = !oracle_->canAdd(arm);
    in.check(pulls_[arm] <= rounds && pulls_[arm] <= expectedPulls - totalPulls, "the pull counts do not add up to the rounds");
    totalPulls += pulls_[arm];
    in.check(!loop || pulls_[arm] == 0, "a loop was pulled");
    in.check(std::isfinite(weights_[arm]) && weights_[arm] >= 0.0 &&
                 countScale * weights_[arm] <= static_cast<double>(pulls_[arm]) * (1.0 + 1e-9),
             "an arm's count is out of range");
    if (weights_[arm] == 0.0) {
      in.check(means_[arm] == 0.0, "an arm without observations has a mean");
      if (!loop) ++unpulledPlayable;
    } else {
      in.check(std::isfinite(means_[arm]) && means_[arm] >= a_ - slack && means_[arm] <= b_ + slack, "a mean is outside [a, b]");
    }
  }
  in.check(totalPulls == expectedPulls, "the pull counts do not add up to the rounds");

  // select() lists the unpulled arms (in a random order) on its first call, so they are listed
  // once a round was played or a selection is pending; the list then holds every playable arm
  // not pulled yet.
  const bool listed = needsInitialPulls() && (rounds > 0 || !selected.empty());
  in.check(unpulled.size() == (listed ? unpulledPlayable : 0), "the list of unpulled arms is incomplete");
  std::vector<std::uint32_t> position(listed ? armCount_ : 0, 0);
  std::vector<bool> seen(unpulled.size() > 0 ? armCount_ : 0, false);
  for (std::size_t i = 0; i < unpulled.size(); ++i) {
    const Id arm = unpulled[i];
    in.check(arm < armCount_ && weights_[arm] == 0.0 && oracle_->canAdd(arm) && !seen[arm], "the list of unpulled arms is damaged");
    seen[arm] = true;
    position[arm] = static_cast<std::uint32_t>(i);
  }
  if (!selected.empty()) {
    std::vector<Id> sorted = selected;
    std::sort(sorted.begin(), sorted.end());
    in.check(selected.size() == rank && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
             "the pending selection is not a basis");
    for (const Id arm : selected) {
      in.check(arm < armCount_ && oracle_->canAdd(arm), "the pending selection is not a basis");
      oracle_->add(arm);
    }
    oracle_->clear();
  }

  const std::size_t observations = windowArms.size();
  in.check(windowRewards.size() == observations && windowWeights.size() * rank == observations &&
               (forgetting_.kind() == Forgetting::Kind::Window ? windowWeights.size() <= forgetting_.window() : observations == 0),
           "the window does not match its rounds");
  for (std::size_t i = 0; i < observations; ++i) {
    in.check(windowArms[i] < armCount_ && weights_[windowArms[i]] > 0.0 && std::isfinite(windowRewards[i]) &&
                 windowRewards[i] >= a_ && windowRewards[i] <= b_,
             "a window observation is damaged");
  }
  for (const double weight : windowWeights) in.check(std::isfinite(weight) && weight > 0.0, "a window round's weight is out of range");
  // A restart begins the initial phase again (its covering bases), an emptied window does not.
  in.check((rounds > 0 || initialPhase == 1) && (initialPhase == 0 || rounds == 0 || !needsInitialPulls() || !unpulled.empty()),
           "the initial phase does not match the unpulled arms");

  rounds_ = static_cast<std::int64_t>(rounds);
  countScale_ = countScale;
  roundWeight_ = roundWeight;
  windowArms_.assign(windowArms.begin(), windowArms.end());
  windowRewards_.assign(windowRewards.begin(), windowRewards.end());
  windowWeights_.assign(windowWeights.begin(), windowWeights.end());
  unpulled_ = std::move(unpulled);
  unpulledPosition_ = std::move(position);
  unpulledListed_ = listed;
  initialPhase_ = initialPhase == 1;
  pending_ = !selected.empty();
  selected_ = std::move(selected);
}

}  // namespace sublinear
