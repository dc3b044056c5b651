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

namespace sublinear {

namespace {
// Rewards and ranges beyond 1e150 (the range of options 'a' and 'b') would make the UCB arithmetic overflow.

// The per-arm statistics and bookkeeping take about 32 bytes per arm.
std::size_t affordableArmCount(std::size_t k) {
  requireAddressable(k, 32, "the statistics of " + std::to_string(k) + " arms");
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
      means_(matroid.groundSetSize(), 0.0),
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
  return means_[arm] + confidenceWidth(t) / std::sqrt(static_cast<double>(pulls_[arm]));
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
  std::vector<Id> basis = (initialPhase_ && needsInitialPulls()) ? basisCoveringUnpulled() : chooseBasis(t);
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
  for (std::size_t i = 0; i < basisLength; ++i) {
    const Id arm = basis[i];
    if (pulls_[arm] == 0 && unpulledListed_) {
      // Swap-remove: O(1), and the list stays in random order.
      const std::uint32_t position = unpulledPosition_[arm];
      unpulled_[position] = unpulled_.back();
      unpulledPosition_[unpulled_[position]] = position;
      unpulled_.pop_back();
    }
    ++pulls_[arm];
    means_[arm] += (rewards[i] - means_[arm]) / static_cast<double>(pulls_[arm]);
    armUpdated(arm, rewards[i]);
  }
  ++rounds_;
  pending_ = false;
  if (initialPhase_ && (unpulled_.empty() || !needsInitialPulls())) {
    initialPhase_ = false;
    initialPullsCompleted();
  }
}

Json SemiBanditPolicy::stats() const {
  return Json{{"type", type()}, {"rounds", rounds_}, {"armsScanned", armsScanned_}, {"initialPullsDone", !initialPhase_}};
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
}

void SemiBanditPolicy::load(StateReader& in) {
  const std::uint64_t rounds = in.u64();
  in.check(rounds <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), "the round count is out of range");
  std::vector<std::uint64_t> pulls = in.u64s();
  std::vector<double> means = in.f64s();
  in.check(pulls.size() == armCount_ && means.size() == armCount_, "the arm statistics do not match the matroid");
  in.random(random_);
  armsScanned_ = in.u64();
  std::vector<Id> unpulled = in.u32s();
  std::vector<Id> selected = in.u32s();

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
    in.check(pulls[arm] <= rounds && pulls[arm] <= expectedPulls - totalPulls, "the pull counts do not add up to the rounds");
    totalPulls += pulls[arm];
    in.check(!loop || pulls[arm] == 0, "a loop was pulled");
    if (pulls[arm] == 0) {
      in.check(means[arm] == 0.0, "an arm never pulled has a mean");
      if (!loop) ++unpulledPlayable;
    } else {
      in.check(std::isfinite(means[arm]) && means[arm] >= a_ - slack && means[arm] <= b_ + slack, "a mean is outside [a, b]");
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
    in.check(arm < armCount_ && pulls[arm] == 0 && oracle_->canAdd(arm) && !seen[arm], "the list of unpulled arms is damaged");
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

  rounds_ = static_cast<std::int64_t>(rounds);
  pulls_ = std::move(pulls);
  means_ = std::move(means);
  unpulled_ = std::move(unpulled);
  unpulledPosition_ = std::move(position);
  unpulledListed_ = listed;
  // The initial phase ends at the update that pulls the last unpulled arm (at the first update
  // for policies without initial pulls).
  initialPhase_ = rounds == 0 || (needsInitialPulls() && !unpulled_.empty());
  pending_ = !selected.empty();
  selected_ = std::move(selected);
}

}  // namespace sublinear
