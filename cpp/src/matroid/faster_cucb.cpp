#include "sublinear/matroid/faster_cucb.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/matroid/matroid_option_tables.hpp"
#include "sublinear/matroid/partition_matroid.hpp"

namespace sublinear {

namespace {
double defaultEpsilon(const Json& options) {
  const double horizon = static_cast<double>(readIntegerOption(option_groups::semiBandit(), options, "horizon"));
  const double logHorizon = deterministic::log(std::max(horizon, 3.0));
  return std::min(0.5, std::max(0.01, 1.0 / logHorizon));
}

// A partition matroid is the direct sum of its groups: each group is a component of the bins.
std::vector<std::uint32_t> componentOfArms(const Matroid& matroid) {
  std::vector<std::uint32_t> components(matroid.groundSetSize(), 0);
  if (matroid.kind() == "partition") {
    const auto& partition = static_cast<const PartitionMatroid&>(matroid);
    for (Id arm = 0; arm < components.size(); ++arm) components[arm] = partition.groupOf(arm);
  }
  return components;
}

std::size_t componentCount(const Matroid& matroid) { return matroid.kind() == "partition" ? matroid.rank() : 1; }
}  // namespace

FasterCucb::FasterCucb(const Matroid& matroid, const Json& options)
    : SemiBanditPolicy(matroid, options),
      epsilon_(readOption(option_groups::fasterCucb(), options, "epsilon", defaultEpsilon(options))),
      eta_(epsilon_ / 3.0),
      bins_(eta_, componentOfArms(this->matroid()), componentCount(this->matroid()), this->matroid().armClasses()),
      walk_(this->matroid().kind() == "partition" ? Walk::OneArmPerComponent
            : this->matroid().kind() == "uniform" ? Walk::TopArms
                                                  : Walk::Oracle),
      basis_(this->matroid(), walk_ == Walk::Oracle) {
  require(rewardLow() >= 0.0, ErrorCode::InvalidArgument,
          "FasterCUCB rounds features multiplicatively: rewards must be non-negative (option 'a' >= 0)");
}

double FasterCucb::roundedIndex(Id arm, double lambda) const {
  require(bins_.built() && bins_.binOf(arm) != RoundedFeatureBins::kNoBin, ErrorCode::InvalidArgument, "the arm has no feature yet");
  return bins_.weight(bins_.binOf(arm), lambda / std::sqrt(countScale()));
}

RoundedFeatureBins FasterCucb::emptyBins() const {
  return RoundedFeatureBins(eta_, componentOfArms(matroid()), componentCount(matroid()), matroid().armClasses());
}

void FasterCucb::initialPullsCompleted() {
  // INITIALIZE (Algorithm 2): every playable arm has a feature now.
  for (Id arm = 0; arm < armCount(); ++arm) {
    if (weight(arm) > 0.0) bins_.place(arm, empiricalMean(arm), weight(arm), random(), false);
  }
  bins_.completeInitialization();
}

void FasterCucb::countsWeighed(double factor) {
  // forget(f) scales G alone, which the query absorbs; a restart empties every bin.
  if (factor > 0.0) return;
  bins_ = emptyBins();
  basis_.invalidate();
}

void FasterCucb::weightsRenormalised() {
  // Every feature's beta moved by the same factor, off the rounding grid: INITIALIZE again.
  if (!bins_.built()) return;
  bins_ = emptyBins();
  basis_.invalidate();
  initialPullsCompleted();
}

void FasterCucb::observationLeft(Id arm, double, bool emptied) {
  if (!bins_.built()) return;
  // The arm's beta grew (or it has no feature left): it may belong in a maintained basis it is not
  // in, which the repair after a demotion does not see. The next FIND-BASE rebuilds it.
  basis_.invalidate();
  bins_.remove(arm);
  if (!emptied) bins_.place(arm, empiricalMean(arm), weight(arm), random(), true);
}

void FasterCucb::armUpdated(Id arm, double) {
  if (!bins_.built()) return;
  if (bins_.binOf(arm) == RoundedFeatureBins::kNoBin) {
    // Pulled again after its window emptied: a new feature, outside any maintained basis.
    basis_.invalidate();
    bins_.place(arm, empiricalMean(arm), weight(arm), random(), true);
    return;
  }
  const bool maintained = basis_.repairsAfterUpdate(arm);
  const RoundedFeatureBins::Component& component = bins_.componentOf(arm);
  // The old bin's position and rank, kept apart: the bin may empty and be reused by place().
  std::size_t oldPosition = 0;
  double oldAlpha = 0.0, oldBeta = 0.0;
  int oldAlphaLevel = 0;
  if (maintained) {
    const std::uint32_t bin = bins_.binOf(arm);
    oldPosition = bins_.positionOf(component, bin);
    oldAlpha = bins_.bin(bin).domAlpha;
    oldBeta = bins_.bin(bin).domBeta;
    oldAlphaLevel = bins_.bin(bin).alphaLevel;
  }
  // UPDATE-FEATURE (Algorithm 4), for the one live representative.
  bins_.remove(arm);
  bins_.place(arm, empiricalMean(arm), weight(arm), random(), true);
  if (!maintained) return;
  // Compared as RoundedFeatureBins::ahead compares bins.
  const RoundedFeatureBins::Bin& now = bins_.bin(bins_.binOf(arm));
  const double lambda = component.representative;
  const double oldWeight = oldAlpha + lambda * oldBeta;
  const double newWeight = now.domAlpha + lambda * now.domBeta;
  const bool demoted = newWeight != oldWeight ? newWeight < oldWeight
                       : now.domBeta != oldBeta ? now.domBeta < oldBeta
                                                : now.alphaLevel < oldAlphaLevel;
  if (demoted) basis_.exchangeAfterDemotion(arm, oldPosition, bins_, binsVisited_, armsScanned_);
}

std::vector<Id> FasterCucb::chooseBasis(std::int64_t t) {
  // FIND-BASE (Algorithm 3) for q = (1, lambda_t / sqrt(G)): the bins hold beta = 1 / sqrt(M_k) and
  // N_k = G M_k, so the order is the UCB indices' with the same (1 + eta) rounding, and as G only
  // falls between restarts and renormalisations (which rebuild the bins) the query still only grows.
  const std::size_t entered = bins_.followQuery(confidenceWidth(t) / std::sqrt(countScale()));
  cellsEntered_ += entered;
  // A new order: the maintained basis is rebuilt by this FIND-BASE.
  if (entered > 0) basis_.invalidate();
  const std::size_t rank = matroid().rank();
  std::vector<Id> basis;
  basis.reserve(rank);
  if (walk_ == Walk::OneArmPerComponent) {
    for (const auto& component : bins_.components()) {
      ++binsVisited_;
      basis.push_back(bins_.bin(component.order.front()).groups.front().front());
    }
    armsScanned_ += basis.size();
    return basis;
  }
  if (walk_ == Walk::TopArms) {
    for (const std::uint32_t bin : bins_.components().front().order) {
      ++binsVisited_;
      for (const auto& group : bins_.bin(bin).groups) {
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
  return basis_.basis(t, bins_, binsVisited_, armsScanned_);
}

Json FasterCucb::stats() const {
  Json result = SemiBanditPolicy::stats();
  result["epsilon"] = epsilon_;
  result["bins"] = bins_.binCount();
  result["cellsEntered"] = cellsEntered_;
  result["binsVisited"] = binsVisited_;
  if (basis_.maintained()) basis_.addStats(result);
  return result;
}

void FasterCucb::save(StateWriter& out) const {
  SemiBanditPolicy::save(out);
  bins_.save(out);
  basis_.save(out, {cellsEntered_, binsVisited_});
}

void FasterCucb::load(StateReader& in) {
  SemiBanditPolicy::load(in);
  bins_.load(in, *this);
  const auto counters = basis_.load(in, bins_, rounds());
  cellsEntered_ = counters[0];
  binsVisited_ = counters[1];
}

}  // namespace sublinear
