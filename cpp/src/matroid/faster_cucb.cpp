#include "sublinear/matroid/faster_cucb.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
constexpr int kZeroLevel = INT_MIN;  // the bin {0} of Eqs. (5)-(6)
constexpr std::uint32_t kNoBin = 0xffffffffu;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

double defaultEpsilon(const Json& options) {
  const double horizon = static_cast<double>(readInteger(options, "horizon", 10000, 1, 9007199254740991LL));
  const double logHorizon = deterministic::log(std::max(horizon, 3.0));
  return std::min(0.5, std::max(0.01, 1.0 / logHorizon));
}
}  // namespace

FasterCucb::FasterCucb(const Matroid& matroid, const Json& options)
    : SemiBanditPolicy(matroid, options),
      epsilon_(readNumber(options, "epsilon", defaultEpsilon(options), 0.0, 1.0, false, false)),
      eta_(epsilon_ / 3.0),
      logStep_(deterministic::log(1.0 + eta_)),
      binOfArm_(matroid.groundSetSize(), kNoBin),
      slotOfArm_(matroid.groundSetSize(), 0),
      uniform_(matroid.kind() == "uniform"),
      oracle_(this->matroid().makeOracle()) {
  require(rewardLow() >= 0.0, ErrorCode::InvalidArgument,
          "FasterCUCB rounds features multiplicatively: rewards must be non-negative (option 'a' >= 0)");
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

double FasterCucb::roundedIndex(MatroidArm arm, double lambda) const {
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

// The lambda >= representative at which `lower` (behind `upper` at the representative) overtakes
// it: the line orthogonal to dom(upper) - dom(lower) that Algorithm 6 would list.
double FasterCucb::crossing(std::uint32_t upper, std::uint32_t lower) const {
  const Bin& u = bins_[upper];
  const Bin& l = bins_[lower];
  if (l.domBeta <= u.domBeta) return kInfinity;
  return std::max(representative_, (u.domAlpha - l.domAlpha) / (l.domBeta - u.domBeta));
}

void FasterCucb::enterCell(double lambda) {
  representative_ = lambda;
  std::sort(order_.begin(), order_.end(), [&](std::uint32_t x, std::uint32_t y) { return ahead(x, y, lambda); });
  cellHigh_ = kInfinity;
  for (std::size_t i = 0; i + 1 < order_.size(); ++i) cellHigh_ = std::min(cellHigh_, crossing(order_[i], order_[i + 1]));
  ++cellsEntered_;
}

void FasterCucb::placeArm(MatroidArm arm, bool maintainOrder) {
  const auto key = std::make_pair(level(empiricalMean(arm)), level(1.0 / std::sqrt(static_cast<double>(pulls(arm)))));
  std::uint32_t bin;
  const auto found = binOfLevels_.find(key);
  if (found != binOfLevels_.end()) {
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
    binOfLevels_.emplace(key, bin);
    if (maintainOrder) {
      const auto at = std::lower_bound(order_.begin(), order_.end(), bin,
                                       [&](std::uint32_t x, std::uint32_t y) { return ahead(x, y, representative_); });
      const auto position = order_.insert(at, bin);
      if (position != order_.begin()) cellHigh_ = std::min(cellHigh_, crossing(*(position - 1), bin));
      if (position + 1 != order_.end()) cellHigh_ = std::min(cellHigh_, crossing(bin, *(position + 1)));
    } else {
      order_.push_back(bin);
    }
  }
  // A random slot keeps a bin's arms in random order, so a greedy scan inside a large bin meets
  // arms of different groups (partition) at random rather than in index order.
  auto& arms = bins_[bin].arms;
  arms.push_back(arm);
  const std::size_t slot = static_cast<std::size_t>(random().uniformInt(arms.size()));
  std::swap(arms[slot], arms.back());
  slotOfArm_[arms.back()] = static_cast<std::uint32_t>(arms.size() - 1);
  slotOfArm_[arm] = static_cast<std::uint32_t>(slot);
  binOfArm_[arm] = bin;
}

void FasterCucb::unplaceArm(MatroidArm arm) {
  const std::uint32_t bin = binOfArm_[arm];
  auto& arms = bins_[bin].arms;
  const std::uint32_t slot = slotOfArm_[arm];
  arms[slot] = arms.back();
  slotOfArm_[arms[slot]] = slot;
  arms.pop_back();
  binOfArm_[arm] = kNoBin;
  if (!arms.empty()) return;
  binOfLevels_.erase(std::make_pair(bins_[bin].alphaLevel, bins_[bin].betaLevel));
  freeBins_.push_back(bin);
  const auto position = std::find(order_.begin(), order_.end(), bin);
  if (position != order_.begin() && position + 1 != order_.end()) cellHigh_ = std::min(cellHigh_, crossing(*(position - 1), *(position + 1)));
  order_.erase(position);
}

void FasterCucb::initialPullsCompleted() {
  // INITIALIZE (Algorithm 2): every playable arm has a feature now.
  for (MatroidArm arm = 0; arm < armCount(); ++arm) {
    if (pulls(arm) > 0) placeArm(arm, false);
  }
  binsBuilt_ = true;
  cellHigh_ = -1.0;  // no representative yet: the first FIND-BASE enters the cell of its query
}

void FasterCucb::armUpdated(MatroidArm arm, double) {
  if (!binsBuilt_) return;
  // UPDATE-FEATURE (Algorithm 4), for the one live representative.
  unplaceArm(arm);
  placeArm(arm, true);
}

std::vector<MatroidArm> FasterCucb::chooseBasis(std::int64_t t) {
  // FIND-BASE (Algorithm 3) for q = (1, lambda_t).
  const double lambda = confidenceWidth(t);
  if (lambda > cellHigh_ || lambda < representative_) enterCell(lambda);
  const std::size_t rank = matroid().rank();
  std::vector<MatroidArm> basis;
  basis.reserve(rank);
  if (uniform_) {
    for (const std::uint32_t bin : order_) {
      ++binsVisited_;
      for (const MatroidArm arm : bins_[bin].arms) {
        basis.push_back(arm);
        if (basis.size() == rank) break;
      }
      if (basis.size() == rank) break;
    }
    armsScanned_ += basis.size();
    return basis;
  }
  oracle_->clear();
  for (const std::uint32_t bin : order_) {
    ++binsVisited_;
    for (const MatroidArm arm : bins_[bin].arms) {
      ++armsScanned_;
      if (oracle_->canAdd(arm)) {
        oracle_->add(arm);
        basis.push_back(arm);
        if (basis.size() == rank) break;
      }
    }
    if (basis.size() == rank) break;
  }
  oracle_->clear();
  return basis;
}

Json FasterCucb::stats() const {
  Json result = SemiBanditPolicy::stats();
  result["epsilon"] = epsilon_;
  result["bins"] = order_.size();
  result["cellsEntered"] = cellsEntered_;
  result["binsVisited"] = binsVisited_;
  return result;
}

}  // namespace sublinear
