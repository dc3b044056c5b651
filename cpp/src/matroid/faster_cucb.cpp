#include "sublinear/matroid/faster_cucb.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/matroid/partition_matroid.hpp"

namespace sublinear {

namespace {
constexpr int kZeroLevel = INT_MIN;  // the bin {0} of Eqs. (5)-(6)
constexpr std::uint32_t kNoBin = 0xffffffffu;
constexpr std::uint32_t kNotInBasis = 0xffffffffu;
// Rounds per measurement window of the two ways to keep the basis, and the schedule: of every
// kCycleWindows windows, one measures exchange repair, one the greedy rebuild, and the rest use the
// cheaper of the two latest measurements.
constexpr std::int64_t kWindowRounds = 32;
constexpr std::int64_t kCycleWindows = 8;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The levels of 1/sqrt(N) are cached up to here (16 KiB): memory that does not grow with the
// rounds, and a restored policy refills at most this much before its first update.
constexpr std::uint64_t kCachedPulls = std::uint64_t{1} << 12;

double defaultEpsilon(const Json& options) {
  const double horizon = static_cast<double>(readIntegerOption(option_groups::semiBandit(), options, "horizon"));
  const double logHorizon = deterministic::log(std::max(horizon, 3.0));
  return std::min(0.5, std::max(0.01, 1.0 / logHorizon));
}
}  // namespace

FasterCucb::FasterCucb(const Matroid& matroid, const Json& options)
    : SemiBanditPolicy(matroid, options),
      epsilon_(readOption(option_groups::fasterCucb(), options, "epsilon", defaultEpsilon(options))),
      eta_(epsilon_ / 3.0),
      logStep_(deterministic::log(1.0 + eta_)),
      componentOfArm_(matroid.groundSetSize(), 0),
      binOfArm_(matroid.groundSetSize(), kNoBin),
      slotOfArm_(matroid.groundSetSize(), 0),
      oracle_(this->matroid().makeOracle()),
      classOfArm_(this->matroid().armClasses()) {
  require(rewardLow() >= 0.0, ErrorCode::InvalidArgument,
          "FasterCUCB rounds features multiplicatively: rewards must be non-negative (option 'a' >= 0)");
  const std::string kind = this->matroid().kind();
  if (kind == "partition") {
    const auto& partition = static_cast<const PartitionMatroid&>(this->matroid());
    for (Id arm = 0; arm < armCount(); ++arm) componentOfArm_[arm] = partition.groupOf(arm);
    components_.resize(partition.rank());
    walk_ = Walk::OneArmPerComponent;
  } else {
    components_.resize(1);
    walk_ = kind == "uniform" ? Walk::TopArms : Walk::Oracle;
  }
  if (walk_ == Walk::Oracle) basisSlotOfArm_.assign(armCount(), kNotInBasis);
}

double FasterCucb::corner(int level) const {
  return level == kZeroLevel ? 0.0 : deterministic::exp(static_cast<double>(level) * logStep_);
}

// The level L with corner(L - 1) < value <= corner(L): BIN's half-open intervals of Eq. (4), on a
// grid anchored at 1 and unbounded both ways. The estimate from log is corrected against the
// corners actually used as dominating points, so Eq. (8) holds exactly in floating point.
int FasterCucb::level(double value) const {
  if (value <= 0.0) return kZeroLevel;
  int estimate = static_cast<int>(std::ceil(deterministic::log(value) / logStep_));
  while (corner(estimate) < value) ++estimate;
  while (corner(estimate - 1) >= value) --estimate;
  return estimate;
}

int FasterCucb::betaLevel(std::uint64_t pulls) {
  // beta = 1/sqrt(N) depends on N alone: for small N its level is computed once per value of N.
  if (pulls >= kCachedPulls) return level(1.0 / std::sqrt(static_cast<double>(pulls)));
  while (betaLevelOfPulls_.size() <= pulls) {
    const double count = static_cast<double>(betaLevelOfPulls_.size());
    betaLevelOfPulls_.push_back(count == 0 ? kZeroLevel : level(1.0 / std::sqrt(count)));
  }
  return betaLevelOfPulls_[pulls];
}

double FasterCucb::roundedIndex(Id arm, double lambda) const {
  require(binsBuilt_ && binOfArm_[arm] != kNoBin, ErrorCode::InvalidArgument, "the arm has no feature yet");
  return weight(binOfArm_[arm], lambda);
}

bool FasterCucb::ahead(std::uint32_t x, std::uint32_t y, double lambda) const {
  const double wx = weight(x, lambda);
  const double wy = weight(y, lambda);
  if (wx != wy) return wx > wy;
  // A tie at lambda: the larger beta leads just after it, which is the order of the cell above.
  if (bins_[x].domBeta != bins_[y].domBeta) return bins_[x].domBeta > bins_[y].domBeta;
  return bins_[x].alphaLevel != bins_[y].alphaLevel ? bins_[x].alphaLevel > bins_[y].alphaLevel : x < y;
}

// The lambda >= the representative at which `lower` (behind `upper` there) overtakes `upper`: the
// line orthogonal to dom(upper) - dom(lower) that Algorithm 6 lists, as a value of lambda.
double FasterCucb::crossing(const Component& component, std::uint32_t upper, std::uint32_t lower) const {
  const Bin& u = bins_[upper];
  const Bin& l = bins_[lower];
  if (l.domBeta <= u.domBeta) return kInfinity;
  return std::max(component.representative, (u.domAlpha - l.domAlpha) / (l.domBeta - u.domBeta));
}

void FasterCucb::enterCell(Component& component, double lambda) {
  component.representative = lambda;
  auto& order = component.order;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return ahead(x, y, lambda); });
  component.cellHigh = kInfinity;
  for (std::size_t i = 0; i + 1 < order.size(); ++i) component.cellHigh = std::min(component.cellHigh, crossing(component, order[i], order[i + 1]));
  ++cellsEntered_;
  // A new order: the maintained basis is rebuilt by the next FIND-BASE.
  basisValid_ = false;
}

std::size_t FasterCucb::positionOf(const Component& component, std::uint32_t bin) const {
  const auto& order = component.order;
  return static_cast<std::size_t>(std::lower_bound(order.begin(), order.end(), bin, [&](std::uint32_t x, std::uint32_t y) {
                                    return ahead(x, y, component.representative);
                                  }) - order.begin());
}

void FasterCucb::placeArm(Id arm, bool maintainOrder) {
  Component& component = components_[componentOfArm_[arm]];
  const auto key = std::make_pair(level(empiricalMean(arm)), betaLevel(pulls(arm)));
  std::uint32_t bin;
  const auto found = component.binOfLevels.find(key);
  if (found != component.binOfLevels.end()) {
    bin = found->second;
  } else {
    if (freeBins_.empty()) {
      bin = static_cast<std::uint32_t>(bins_.size());
      bins_.emplace_back();
    } else {
      bin = freeBins_.back();
      freeBins_.pop_back();
    }
    Bin& created = bins_[bin];
    created.alphaLevel = key.first;
    created.betaLevel = key.second;
    created.domAlpha = corner(key.first);
    created.domBeta = corner(key.second);
    component.binOfLevels.emplace(key, bin);
    ++binCount_;
    auto& order = component.order;
    if (maintainOrder) {
      const auto at = std::lower_bound(order.begin(), order.end(), bin,
                                       [&](std::uint32_t x, std::uint32_t y) { return ahead(x, y, component.representative); });
      const auto position = order.insert(at, bin);
      if (position != order.begin()) component.cellHigh = std::min(component.cellHigh, crossing(component, *(position - 1), bin));
      if (position + 1 != order.end()) component.cellHigh = std::min(component.cellHigh, crossing(component, bin, *(position + 1)));
    } else {
      order.push_back(bin);
    }
  }
  // Arms join their class's group; a new group takes a random position, so a greedy scan meets the
  // classes of a large bin at random rather than in index order.
  Bin& target = bins_[bin];
  const std::uint32_t armClass = classOfArm_[arm];
  auto grouped = target.groupOfClass.find(armClass);
  if (grouped == target.groupOfClass.end()) {
    target.groups.emplace_back();
    const auto last = static_cast<std::uint32_t>(target.groups.size() - 1);
    const auto slot = static_cast<std::uint32_t>(random().uniformInt(target.groups.size()));
    std::swap(target.groups[slot], target.groups[last]);
    if (slot != last) target.groupOfClass[classOfArm_[target.groups[last].front()]] = last;
    grouped = target.groupOfClass.emplace(armClass, slot).first;
  }
  auto& group = target.groups[grouped->second];
  slotOfArm_[arm] = static_cast<std::uint32_t>(group.size());
  group.push_back(arm);
  binOfArm_[arm] = bin;
}

void FasterCucb::unplaceArm(Id arm) {
  Component& component = components_[componentOfArm_[arm]];
  const std::uint32_t bin = binOfArm_[arm];
  Bin& source = bins_[bin];
  const auto groupAt = source.groupOfClass.find(classOfArm_[arm]);
  auto& group = source.groups[groupAt->second];
  const std::uint32_t slot = slotOfArm_[arm];
  group[slot] = group.back();
  slotOfArm_[group[slot]] = slot;
  group.pop_back();
  binOfArm_[arm] = kNoBin;
  if (!group.empty()) return;
  const std::uint32_t emptied = groupAt->second;
  source.groupOfClass.erase(groupAt);
  if (emptied + 1 != source.groups.size()) {
    std::swap(source.groups[emptied], source.groups.back());
    source.groupOfClass[classOfArm_[source.groups[emptied].front()]] = emptied;
  }
  source.groups.pop_back();
  if (!source.groups.empty()) return;
  component.binOfLevels.erase(std::make_pair(bins_[bin].alphaLevel, bins_[bin].betaLevel));
  freeBins_.push_back(bin);
  --binCount_;
  auto& order = component.order;
  const auto position = std::find(order.begin(), order.end(), bin);
  if (position != order.begin() && position + 1 != order.end()) {
    component.cellHigh = std::min(component.cellHigh, crossing(component, *(position - 1), *(position + 1)));
  }
  order.erase(position);
}

void FasterCucb::initialPullsCompleted() {
  // INITIALIZE (Algorithm 2): every playable arm has a feature now.
  for (Id arm = 0; arm < armCount(); ++arm) {
    if (pulls(arm) > 0) placeArm(arm, false);
  }
  binsBuilt_ = true;
  // No representative yet: the first FIND-BASE enters the cell of its query.
  for (auto& component : components_) component.cellHigh = -1.0;
}

void FasterCucb::armUpdated(Id arm, double) {
  if (!binsBuilt_) return;
  const bool maintained = basisValid_ && !rebuildEveryRound_ && basisSlotOfArm_[arm] != kNotInBasis;
  const Component& component = components_[componentOfArm_[arm]];
  // The old bin's position and rank, kept apart: the bin may empty and be reused by placeArm.
  std::size_t oldPosition = 0;
  double oldAlpha = 0.0, oldBeta = 0.0;
  int oldAlphaLevel = 0;
  if (maintained) {
    const std::uint32_t bin = binOfArm_[arm];
    oldPosition = positionOf(component, bin);
    oldAlpha = bins_[bin].domAlpha;
    oldBeta = bins_[bin].domBeta;
    oldAlphaLevel = bins_[bin].alphaLevel;
  }
  // UPDATE-FEATURE (Algorithm 4), for the one live representative.
  unplaceArm(arm);
  placeArm(arm, true);
  if (!maintained) return;
  // Compared as ahead() compares bins.
  const Bin& now = bins_[binOfArm_[arm]];
  const double lambda = component.representative;
  const double oldWeight = oldAlpha + lambda * oldBeta;
  const double newWeight = now.domAlpha + lambda * now.domBeta;
  const bool demoted = newWeight != oldWeight ? newWeight < oldWeight
                       : now.domBeta != oldBeta ? now.domBeta < oldBeta
                                                : now.alphaLevel < oldAlphaLevel;
  if (demoted) exchangeAfterDemotion(arm, oldPosition);
}

void FasterCucb::exchangeAfterDemotion(Id arm, std::size_t oldPosition) {
  oracle_->clear();
  for (const Id kept : basis_) {
    if (kept != arm) oracle_->add(kept);
  }
  oracleCalls_ += basis_.size() - 1;
  const auto& order = components_.front().order;
  const std::uint32_t newBin = binOfArm_[arm];
  Id replacement = arm;
  for (std::size_t position = oldPosition; position < order.size() && order[position] != newBin && replacement == arm; ++position) {
    ++binsVisited_;
    for (const auto& group : bins_[order[position]].groups) {
      // One arm outside the basis per class: the others of the class give the same answer.
      const auto candidate = std::find_if(group.begin(), group.end(), [&](Id a) { return basisSlotOfArm_[a] == kNotInBasis; });
      if (candidate == group.end()) continue;
      ++armsScanned_;
      ++oracleCalls_;
      if (oracle_->canAdd(*candidate)) {
        replacement = *candidate;
        break;
      }
    }
  }
  oracle_->clear();
  if (replacement == arm) return;
  const std::uint32_t slot = basisSlotOfArm_[arm];
  basis_[slot] = replacement;
  basisSlotOfArm_[replacement] = slot;
  basisSlotOfArm_[arm] = kNotInBasis;
  ++basisExchanges_;
}

void FasterCucb::chooseMaintenance(std::int64_t t) {
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
  if (!rebuildEveryRound_) basisValid_ = false;
}

std::vector<Id> FasterCucb::greedyOverBins() {
  const std::size_t rank = matroid().rank();
  std::vector<Id> basis;
  basis.reserve(rank);
  oracle_->clear();
  for (const std::uint32_t bin : components_.front().order) {
    ++binsVisited_;
    for (const auto& group : bins_[bin].groups) {
      // Arms of one class are offered until one is refused: a refused arm stays dependent as the
      // held set grows, and so do the rest of its class.
      for (const Id arm : group) {
        ++armsScanned_;
        oracleCalls_ += 2;
        if (!oracle_->canAdd(arm)) break;
        oracle_->add(arm);
        basis.push_back(arm);
        if (basis.size() == rank) break;
      }
      if (basis.size() == rank) break;
    }
    if (basis.size() == rank) break;
  }
  oracle_->clear();
  return basis;
}

std::vector<Id> FasterCucb::chooseBasis(std::int64_t t) {
  // FIND-BASE (Algorithm 3) for q = (1, lambda_t).
  const double lambda = confidenceWidth(t);
  for (auto& component : components_) {
    if (lambda > component.cellHigh || lambda < component.representative) enterCell(component, lambda);
  }
  const std::size_t rank = matroid().rank();
  std::vector<Id> basis;
  basis.reserve(rank);
  if (walk_ == Walk::OneArmPerComponent) {
    for (const auto& component : components_) {
      ++binsVisited_;
      basis.push_back(bins_[component.order.front()].groups.front().front());
    }
    armsScanned_ += basis.size();
    return basis;
  }
  const auto& order = components_.front().order;
  if (walk_ == Walk::TopArms) {
    for (const std::uint32_t bin : order) {
      ++binsVisited_;
      for (const auto& group : bins_[bin].groups) {
        for (const Id arm : group) {
          basis.push_back(arm);
          if (basis.size() == rank) break;
        }
        if (basis.size() == rank) break;
      }
      if (basis.size() == rank) break;
    }
    armsScanned_ += basis.size();
    return basis;
  }
  chooseMaintenance(t);
  if (rebuildEveryRound_) basisValid_ = false;
  if (!basisValid_) {
    for (const Id arm : basis_) basisSlotOfArm_[arm] = kNotInBasis;
    basis_ = greedyOverBins();
    for (std::size_t slot = 0; slot < basis_.size(); ++slot) basisSlotOfArm_[basis_[slot]] = static_cast<std::uint32_t>(slot);
    basisValid_ = true;
    ++basisRebuilds_;
  }
  return basis_;
}

Json FasterCucb::stats() const {
  Json result = SemiBanditPolicy::stats();
  result["epsilon"] = epsilon_;
  result["bins"] = binCount_;
  result["cellsEntered"] = cellsEntered_;
  result["binsVisited"] = binsVisited_;
  if (walk_ == Walk::Oracle) {
    result["basisRebuilds"] = basisRebuilds_;
    result["basisExchanges"] = basisExchanges_;
    result["oracleCalls"] = oracleCalls_;
    result["basisMaintenance"] = rebuildEveryRound_ ? "greedy every round" : "exchange";
  }
  return result;
}

void FasterCucb::save(StateWriter& out) const {
  SemiBanditPolicy::save(out);
  out.u64(bins_.size());
  for (const Bin& bin : bins_) {
    out.u64(bin.groups.size());
    for (const auto& group : bin.groups) out.u32s(group.data(), group.size());
  }
  out.u32s(freeBins_.data(), freeBins_.size());
  for (const Component& component : components_) {
    out.f64(component.representative);
    out.f64(component.cellHigh);
    out.u32s(component.order.data(), component.order.size());
  }
  out.u32s(basis_.data(), basis_.size());
  out.u8(basisValid_ ? 1 : 0);
  out.u8(rebuildEveryRound_ ? 1 : 0);
  const std::uint64_t counters[] = {basisRebuilds_, basisExchanges_, oracleCalls_, static_cast<std::uint64_t>(window_),
                                    static_cast<std::uint64_t>(windowStart_), windowCalls_, cellsEntered_, binsVisited_};
  out.u64s(counters, 8);
  out.f64(exchangeCost_);
  out.f64(rebuildCost_);
}

void FasterCucb::load(StateReader& in) {
  SemiBanditPolicy::load(in);
  binsBuilt_ = initialPullsDone();

  // Bins: an arm leaves its bin before it joins another, so at most one slot per arm ever exists.
  // The levels of a bin are those of its arms' features, which every arm must share.
  const std::size_t slots = in.count(8);
  in.check(slots <= armCount(), "there are more bins than arms");
  bins_.resize(slots);
  std::vector<std::uint32_t> componentOfBin(slots, 0);
  for (std::uint32_t bin = 0; bin < slots; ++bin) {
    Bin& target = bins_[bin];
    const std::size_t groups = in.count(8);
    for (std::size_t g = 0; g < groups; ++g) {
      std::vector<Id> arms = in.u32s();
      in.check(!arms.empty(), "a bin holds an empty group");
      for (std::size_t slot = 0; slot < arms.size(); ++slot) {
        const Id arm = arms[slot];
        in.check(binsBuilt_ && arm < armCount() && pulls(arm) > 0 && binOfArm_[arm] == kNoBin, "a bin holds an arm that cannot be there");
        in.check(classOfArm_[arm] == classOfArm_[arms.front()], "a group of a bin mixes classes");
        binOfArm_[arm] = bin;
        slotOfArm_[arm] = static_cast<std::uint32_t>(slot);
      }
      in.check(target.groupOfClass.emplace(classOfArm_[arms.front()], static_cast<std::uint32_t>(g)).second,
               "a bin holds two groups of one class");
      target.groups.push_back(std::move(arms));
    }
    if (target.groups.empty()) continue;
    const Id first = target.groups.front().front();
    target.alphaLevel = level(empiricalMean(first));
    target.betaLevel = betaLevel(pulls(first));
    target.domAlpha = corner(target.alphaLevel);
    target.domBeta = corner(target.betaLevel);
    componentOfBin[bin] = componentOfArm_[first];
    for (const auto& group : target.groups) {
      for (const Id arm : group) {
        in.check(componentOfArm_[arm] == componentOfBin[bin] && level(empiricalMean(arm)) == target.alphaLevel &&
                     betaLevel(pulls(arm)) == target.betaLevel,
                 "an arm is in a bin of other features");
      }
    }
    in.check(components_[componentOfBin[bin]].binOfLevels.emplace(std::make_pair(target.alphaLevel, target.betaLevel), bin).second,
             "two bins have the same features");
    ++binCount_;
  }
  // Once the bins are built (at the end of the initial pulls) every pulled arm has one.
  for (Id arm = 0; arm < armCount(); ++arm) {
    in.check((binOfArm_[arm] != kNoBin) == (binsBuilt_ && pulls(arm) > 0), "a pulled arm is in no bin");
  }
  freeBins_ = in.u32s();
  in.check(freeBins_.size() == slots - binCount_, "the free bins are not the empty ones");
  std::vector<bool> listed(slots, false);
  for (const std::uint32_t bin : freeBins_) {
    in.check(bin < slots && bins_[bin].groups.empty() && !listed[bin], "the free bins are not the empty ones");
    listed[bin] = true;
  }

  // Cells: [representative, cellHigh], or cellHigh = -1 before the first. Within a cell the order
  // is the one of the representative (positionOf searches it), and holds each of the bins once.
  std::fill(listed.begin(), listed.end(), false);
  for (std::uint32_t c = 0; c < components_.size(); ++c) {
    Component& component = components_[c];
    component.representative = in.f64();
    component.cellHigh = in.f64();
    component.order = in.u32s();
    const bool entered = component.cellHigh >= component.representative;
    in.check(std::isfinite(component.representative) && component.representative >= 0.0 && (entered || component.cellHigh == -1.0),
             "a cell is damaged");
    in.check(component.order.size() == component.binOfLevels.size(), "a cell's order misses bins");
    for (std::size_t i = 0; i < component.order.size(); ++i) {
      const std::uint32_t bin = component.order[i];
      in.check(bin < slots && !bins_[bin].groups.empty() && componentOfBin[bin] == c && !listed[bin], "a cell's order is damaged");
      listed[bin] = true;
      in.check(!entered || i == 0 || ahead(component.order[i - 1], bin, component.representative), "a cell's order is not sorted");
    }
  }

  // The maintained basis (graphic and transversal matroids only): empty or a basis of placed arms.
  basis_ = in.u32s();
  const std::uint8_t valid = in.u8();
  const std::uint8_t rebuild = in.u8();
  in.check(valid <= 1 && rebuild <= 1 && (walk_ == Walk::Oracle || (valid == 0 && rebuild == 0)), "bad flags of the maintained basis");
  in.check(basis_.empty() ? valid == 0 : walk_ == Walk::Oracle && basis_.size() == matroid().rank(), "the maintained basis is damaged");
  for (std::size_t slot = 0; slot < basis_.size(); ++slot) {
    const Id arm = basis_[slot];
    in.check(arm < armCount() && binOfArm_[arm] != kNoBin && basisSlotOfArm_[arm] == kNotInBasis && oracle_->canAdd(arm),
             "the maintained basis is not a basis");
    oracle_->add(arm);
    basisSlotOfArm_[arm] = static_cast<std::uint32_t>(slot);
  }
  oracle_->clear();
  basisValid_ = valid == 1;
  rebuildEveryRound_ = rebuild == 1;

  const std::vector<std::uint64_t> counters = in.u64s();
  in.check(counters.size() == 8, "the counters are damaged");
  exchangeCost_ = in.f64();
  rebuildCost_ = in.f64();
  // Costs are oracle calls per round, negative (-1) until measured; windows start at a round t.
  const auto validCost = [](double cost) { return cost == -1.0 || (std::isfinite(cost) && cost >= 0.0); };
  in.check(counters[3] <= static_cast<std::uint64_t>(rounds()) && counters[4] <= static_cast<std::uint64_t>(rounds()) + 1 &&
               counters[5] <= counters[2] && validCost(exchangeCost_) && validCost(rebuildCost_),
           "the basis-maintenance measurements are damaged");
  basisRebuilds_ = counters[0];
  basisExchanges_ = counters[1];
  oracleCalls_ = counters[2];
  window_ = static_cast<std::int64_t>(counters[3]);
  windowStart_ = static_cast<std::int64_t>(counters[4]);
  windowCalls_ = counters[5];
  cellsEntered_ = counters[6];
  binsVisited_ = counters[7];
}

}  // namespace sublinear
