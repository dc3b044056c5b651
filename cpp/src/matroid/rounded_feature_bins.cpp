#include "sublinear/matroid/rounded_feature_bins.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

namespace {
constexpr int kZeroLevel = INT_MIN;  // the bin {0} of Eqs. (5)-(6)
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The levels of 1/sqrt(N) are cached up to here (16 KiB): memory that does not grow with the
// rounds, and a restored policy refills at most this much before its first update.
constexpr std::uint64_t kCachedPulls = std::uint64_t{1} << 12;
}  // namespace

RoundedFeatureBins::RoundedFeatureBins(double eta, std::vector<std::uint32_t> componentOfArm, std::size_t componentCount,
                                       std::vector<std::uint32_t> classOfArm)
    : logStep_(deterministic::log(1.0 + eta)),
      components_(componentCount),
      componentOfArm_(std::move(componentOfArm)),
      classOfArm_(std::move(classOfArm)),
      binOfArm_(componentOfArm_.size(), kNoBin),
      slotOfArm_(componentOfArm_.size(), 0) {}

double RoundedFeatureBins::corner(int level) const {
  return level == kZeroLevel ? 0.0 : deterministic::exp(static_cast<double>(level) * logStep_);
}

// The level L with corner(L - 1) < value <= corner(L): BIN's half-open intervals of Eq. (4), on a
// grid anchored at 1 and unbounded both ways. The estimate from log is corrected against the
// corners actually used as dominating points, so Eq. (8) holds exactly in floating point.
int RoundedFeatureBins::level(double value) const {
  if (value <= 0.0) return kZeroLevel;
  int estimate = static_cast<int>(std::ceil(deterministic::log(value) / logStep_));
  while (corner(estimate) < value) ++estimate;
  while (corner(estimate - 1) >= value) --estimate;
  return estimate;
}

int RoundedFeatureBins::betaLevel(double weight) {
  // beta = 1/sqrt(N) depends on N alone: for small whole N its level is computed once per value of N.
  if (weight >= static_cast<double>(kCachedPulls) || weight != std::floor(weight)) return level(1.0 / std::sqrt(weight));
  const auto pulls = static_cast<std::uint64_t>(weight);
  while (betaLevelOfPulls_.size() <= pulls) {
    const double count = static_cast<double>(betaLevelOfPulls_.size());
    betaLevelOfPulls_.push_back(count == 0 ? kZeroLevel : level(1.0 / std::sqrt(count)));
  }
  return betaLevelOfPulls_[pulls];
}

bool RoundedFeatureBins::ahead(std::uint32_t x, std::uint32_t y, double lambda) const {
  const double wx = weight(x, lambda);
  const double wy = weight(y, lambda);
  if (wx != wy) return wx > wy;
  // A tie at lambda: the larger beta leads just after it, which is the order of the cell above.
  if (bins_[x].domBeta != bins_[y].domBeta) return bins_[x].domBeta > bins_[y].domBeta;
  return bins_[x].alphaLevel != bins_[y].alphaLevel ? bins_[x].alphaLevel > bins_[y].alphaLevel : x < y;
}

// The lambda >= the representative at which `lower` (behind `upper` there) overtakes `upper`: the
// line orthogonal to dom(upper) - dom(lower) that Algorithm 6 lists, as a value of lambda.
double RoundedFeatureBins::crossing(const Component& component, std::uint32_t upper, std::uint32_t lower) const {
  const Bin& u = bins_[upper];
  const Bin& l = bins_[lower];
  if (l.domBeta <= u.domBeta) return kInfinity;
  return std::max(component.representative, (u.domAlpha - l.domAlpha) / (l.domBeta - u.domBeta));
}

void RoundedFeatureBins::enterCell(Component& component, double lambda) {
  component.representative = lambda;
  auto& order = component.order;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return ahead(x, y, lambda); });
  component.cellHigh = kInfinity;
  for (std::size_t i = 0; i + 1 < order.size(); ++i) component.cellHigh = std::min(component.cellHigh, crossing(component, order[i], order[i + 1]));
}

std::size_t RoundedFeatureBins::followQuery(double lambda) {
  std::size_t entered = 0;
  for (auto& component : components_) {
    if (lambda > component.cellHigh || lambda < component.representative) {
      enterCell(component, lambda);
      ++entered;
    }
  }
  return entered;
}

std::size_t RoundedFeatureBins::positionOf(const Component& component, std::uint32_t bin) const {
  const auto& order = component.order;
  return static_cast<std::size_t>(std::lower_bound(order.begin(), order.end(), bin, [&](std::uint32_t x, std::uint32_t y) {
                                    return ahead(x, y, component.representative);
                                  }) - order.begin());
}

void RoundedFeatureBins::place(Id arm, double mean, double weight, Random& random, bool maintainOrder) {
  Component& component = components_[componentOfArm_[arm]];
  const auto key = std::make_pair(level(mean), betaLevel(weight));
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
    const auto slot = static_cast<std::uint32_t>(random.uniformInt(target.groups.size()));
    std::swap(target.groups[slot], target.groups[last]);
    if (slot != last) target.groupOfClass[classOfArm_[target.groups[last].front()]] = last;
    grouped = target.groupOfClass.emplace(armClass, slot).first;
  }
  auto& group = target.groups[grouped->second];
  slotOfArm_[arm] = static_cast<std::uint32_t>(group.size());
  group.push_back(arm);
  binOfArm_[arm] = bin;
}

void RoundedFeatureBins::remove(Id arm) {
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

void RoundedFeatureBins::completeInitialization() {
  built_ = true;
  for (auto& component : components_) component.cellHigh = -1.0;
}

void RoundedFeatureBins::save(StateWriter& out) const {
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
}

void RoundedFeatureBins::load(StateReader& in, const SemiBanditPolicy& policy) {
  built_ = policy.initialPullsDone();
  const std::size_t armCount = policy.armCount();

  // Bins: an arm leaves its bin before it joins another, so at most one slot per arm ever exists.
  // The levels of a bin are those of its arms' features, which every arm must share.
  const std::size_t slots = in.count(8);
  in.check(slots <= armCount, "there are more bins than arms");
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
        in.check(built_ && arm < armCount && policy.weight(arm) > 0.0 && binOfArm_[arm] == kNoBin, "a bin holds an arm that cannot be there");
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
    target.alphaLevel = level(policy.empiricalMean(first));
    target.betaLevel = betaLevel(policy.weight(first));
    target.domAlpha = corner(target.alphaLevel);
    target.domBeta = corner(target.betaLevel);
    componentOfBin[bin] = componentOfArm_[first];
    for (const auto& group : target.groups) {
      for (const Id arm : group) {
        in.check(componentOfArm_[arm] == componentOfBin[bin] && level(policy.empiricalMean(arm)) == target.alphaLevel &&
                     betaLevel(policy.weight(arm)) == target.betaLevel,
                 "an arm is in a bin of other features");
      }
    }
    in.check(components_[componentOfBin[bin]].binOfLevels.emplace(std::make_pair(target.alphaLevel, target.betaLevel), bin).second,
             "two bins have the same features");
    ++binCount_;
  }
  // Once the bins are built (at the end of the initial pulls) every pulled arm has one.
  for (Id arm = 0; arm < armCount; ++arm) {
    in.check((binOfArm_[arm] != kNoBin) == (built_ && policy.weight(arm) > 0.0), "a pulled arm is in no bin");
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
}

}  // namespace sublinear
