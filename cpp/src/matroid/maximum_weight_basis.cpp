#include "sublinear/matroid/maximum_weight_basis.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/state_codec.hpp"
#include "sublinear/matroid/rounded_feature_bins.hpp"

namespace sublinear {

namespace {
// Rounds per measurement window of the two ways to keep the basis, and the schedule: of every
// kCycleWindows windows, one measures exchange repair, one the greedy rebuild, and the rest use the
// cheaper of the two latest measurements.
constexpr std::int64_t kWindowRounds = 32;
constexpr std::int64_t kCycleWindows = 8;
}  // namespace

MaximumWeightBasis::MaximumWeightBasis(const Matroid& matroid, bool maintained)
    : maintained_(maintained), armCount_(matroid.groundSetSize()), rank_(matroid.rank()), oracle_(matroid.makeOracle()) {
  if (maintained_) slotOfArm_.assign(armCount_, kNotInBasis);
}

const std::vector<Id>& MaximumWeightBasis::basis(std::int64_t t, const RoundedFeatureBins& bins, std::uint64_t& binsVisited,
                                                 std::uint64_t& armsScanned) {
  chooseMaintenance(t);
  if (rebuildEveryRound_) valid_ = false;
  if (!valid_) {
    for (const Id arm : basis_) slotOfArm_[arm] = kNotInBasis;
    basis_ = greedyOverBins(bins, binsVisited, armsScanned);
    for (std::size_t slot = 0; slot < basis_.size(); ++slot) slotOfArm_[basis_[slot]] = static_cast<std::uint32_t>(slot);
    valid_ = true;
    ++rebuilds_;
  }
  return basis_;
}

void MaximumWeightBasis::exchangeAfterDemotion(Id arm, std::size_t oldPosition, const RoundedFeatureBins& bins,
                                               std::uint64_t& binsVisited, std::uint64_t& armsScanned) {
  oracle_->clear();
  for (const Id kept : basis_) {
    if (kept != arm) oracle_->add(kept);
  }
  oracleCalls_ += basis_.size() - 1;
  const auto& order = bins.components().front().order;
  const std::uint32_t newBin = bins.binOf(arm);
  Id replacement = arm;
  for (std::size_t position = oldPosition; position < order.size() && order[position] != newBin && replacement == arm; ++position) {
    ++binsVisited;
    for (const auto& group : bins.bin(order[position]).groups) {
      // One arm outside the basis per class: the others of the class give the same answer.
      const auto candidate = std::find_if(group.begin(), group.end(), [&](Id a) { return slotOfArm_[a] == kNotInBasis; });
      if (candidate == group.end()) continue;
      ++armsScanned;
      ++oracleCalls_;
      if (oracle_->canAdd(*candidate)) {
        replacement = *candidate;
        break;
      }
    }
  }
  oracle_->clear();
  if (replacement == arm) return;
  const std::uint32_t slot = slotOfArm_[arm];
  basis_[slot] = replacement;
  slotOfArm_[replacement] = slot;
  slotOfArm_[arm] = kNotInBasis;
  ++exchanges_;
}

void MaximumWeightBasis::chooseMaintenance(std::int64_t t) {
  if (windowStart_ == 0) windowStart_ = t;
  if (t - windowStart_ < kWindowRounds) return;
  const double perRound = static_cast<double>(oracleCalls_ - windowCalls_) / static_cast<double>(t - windowStart_);
  (rebuildEveryRound_ ? rebuildCost_ : exchangeCost_) = perRound;
  ++window_;
  windowStart_ = t;
  windowCalls_ = oracleCalls_;
  const std::int64_t phase = window_ % kCycleWindows;
  if (phase == 0 || exchangeCost_ < 0.0) {
    rebuildEveryRound_ = false;
  } else if (phase == 1 || rebuildCost_ < 0.0) {
    rebuildEveryRound_ = true;
  } else {
    rebuildEveryRound_ = rebuildCost_ < exchangeCost_;
  }
  // The exchange path starts from a basis of the current order.
  if (!rebuildEveryRound_) valid_ = false;
}

std::vector<Id> MaximumWeightBasis::greedyOverBins(const RoundedFeatureBins& bins, std::uint64_t& binsVisited,
                                                   std::uint64_t& armsScanned) {
  std::vector<Id> basis;
  basis.reserve(rank_);
  oracle_->clear();
  for (const std::uint32_t bin : bins.components().front().order) {
    ++binsVisited;
    for (const auto& group : bins.bin(bin).groups) {
      // Arms of one class are offered until one is refused: a refused arm stays dependent as the
      // held set grows, and so do the rest of its class.
      for (const Id arm : group) {
        ++armsScanned;
        oracleCalls_ += 2;
        if (!oracle_->canAdd(arm)) break;
        oracle_->add(arm);
        basis.push_back(arm);
        if (basis.size() == rank_) break;
      }
      if (basis.size() == rank_) break;
    }
    if (basis.size() == rank_) break;
  }
  oracle_->clear();
  return basis;
}

void MaximumWeightBasis::addStats(Json& stats) const {
  stats["basisRebuilds"] = rebuilds_;
  stats["basisExchanges"] = exchanges_;
  stats["oracleCalls"] = oracleCalls_;
  stats["basisMaintenance"] = rebuildEveryRound_ ? "greedy every round" : "exchange";
}

void MaximumWeightBasis::save(StateWriter& out, const std::array<std::uint64_t, 2>& policyCounters) const {
  out.u32s(basis_.data(), basis_.size());
  out.u8(valid_ ? 1 : 0);
  out.u8(rebuildEveryRound_ ? 1 : 0);
  const std::uint64_t counters[] = {rebuilds_, exchanges_, oracleCalls_, static_cast<std::uint64_t>(window_),
                                    static_cast<std::uint64_t>(windowStart_), windowCalls_, policyCounters[0], policyCounters[1]};
  out.u64s(counters, 8);
  out.f64(exchangeCost_);
  out.f64(rebuildCost_);
}

std::array<std::uint64_t, 2> MaximumWeightBasis::load(StateReader& in, const RoundedFeatureBins& bins, std::int64_t rounds) {
  // Empty or a basis of placed arms, and only where a basis is maintained.
  basis_ = in.u32s();
  const std::uint8_t valid = in.u8();
  const std::uint8_t rebuild = in.u8();
  in.check(valid <= 1 && rebuild <= 1 && (maintained_ || (valid == 0 && rebuild == 0)), "bad flags of the maintained basis");
  in.check(basis_.empty() ? valid == 0 : maintained_ && basis_.size() == rank_, "the maintained basis is damaged");
  for (std::size_t slot = 0; slot < basis_.size(); ++slot) {
    const Id arm = basis_[slot];
    in.check(arm < armCount_ && bins.binOf(arm) != RoundedFeatureBins::kNoBin && slotOfArm_[arm] == kNotInBasis && oracle_->canAdd(arm),
             "the maintained basis is not a basis");
    oracle_->add(arm);
    slotOfArm_[arm] = static_cast<std::uint32_t>(slot);
  }
  oracle_->clear();
  valid_ = valid == 1;
  rebuildEveryRound_ = rebuild == 1;

  const std::vector<std::uint64_t> counters = in.u64s();
  in.check(counters.size() == 8, "the counters are damaged");
  exchangeCost_ = in.f64();
  rebuildCost_ = in.f64();
  // Costs are oracle calls per round, negative (-1) until measured; windows start at a round t.
  const auto validCost = [](double cost) { return cost == -1.0 || (std::isfinite(cost) && cost >= 0.0); };
  in.check(counters[3] <= static_cast<std::uint64_t>(rounds) && counters[4] <= static_cast<std::uint64_t>(rounds) + 1 &&
               counters[5] <= counters[2] && validCost(exchangeCost_) && validCost(rebuildCost_),
           "the basis-maintenance measurements are damaged");
  rebuilds_ = counters[0];
  exchanges_ = counters[1];
  oracleCalls_ = counters[2];
  window_ = static_cast<std::int64_t>(counters[3]);
  windowStart_ = static_cast<std::int64_t>(counters[4]);
  windowCalls_ = counters[5];
  return {counters[6], counters[7]};
}

}  // namespace sublinear
