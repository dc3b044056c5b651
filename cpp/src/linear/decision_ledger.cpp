#include "sublinear/linear/decision_ledger.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

DecisionLedger::DecisionLedger(std::size_t maxPending, int dim) : maxPending_(maxPending), dim_(dim) {}

std::uint64_t DecisionLedger::record(std::vector<Id> arms, std::vector<double> features) {
  if (pending_.size() >= maxPending_) {
    // The oldest decision makes room: a reward that never came should not hold memory forever.
    lastExpired_ = pending_.begin()->first;
    pending_.erase(pending_.begin());
    ++expired_;
  }
  const std::uint64_t eventId = nextEventId_++;
  pending_.emplace(eventId, Pending{std::move(arms), std::move(features)});
  return eventId;
}

bool DecisionLedger::recentlyRewarded(std::uint64_t eventId) const {
  return std::find(rewardedRing_.begin(), rewardedRing_.end(), eventId) != rewardedRing_.end();
}

const DecisionLedger::Pending& DecisionLedger::pending(std::uint64_t eventId, std::size_t rewardCount) const {
  const std::string event = "event " + std::to_string(eventId);
  const auto found = pending_.find(eventId);
  if (found == pending_.end()) {
    if (eventId == 0 || eventId >= nextEventId_) fail(ErrorCode::UnknownId, event + " was not decided by this policy");
    // Expiry removes the oldest pending decision, so an id above the last expired one that is not
    // pending was rewarded.
    if (eventId > lastExpired_ || recentlyRewarded(eventId)) {
      fail(ErrorCode::InvalidArgument, event + " was already rewarded");
    }
    fail(ErrorCode::UnknownId, event + " has expired: more than maxPending (" + std::to_string(maxPending_) +
                                   ") decisions waited for their rewards");
  }
  const std::size_t shown = found->second.arms.size();
  if (rewardCount != shown) {
    fail(ErrorCode::InvalidArgument, event + " showed " + std::to_string(shown) + (shown == 1 ? " arm" : " arms") +
                                         ": give one reward per position, not " + std::to_string(rewardCount));
  }
  return found->second;
}

void DecisionLedger::take(std::uint64_t eventId) {
  pending_.erase(eventId);
  ++rewarded_;
  if (rewardedRing_.size() < maxPending_) {
    rewardedRing_.push_back(eventId);
  } else {
    rewardedRing_[ringNext_] = eventId;
    ringNext_ = (ringNext_ + 1) % maxPending_;
  }
}

Json DecisionLedger::stats() const {
  std::size_t bytes = 0;
  for (const auto& [id, decision] : pending_) {
    bytes += decision.arms.size() * sizeof(Id) + decision.features.size() * sizeof(double) + sizeof(id);
  }
  return Json{{"decisions", nextEventId_ - 1}, {"pending", pending_.size()}, {"rewarded", rewarded_},
              {"expired", expired_}, {"maxPending", maxPending_}, {"pendingBytes", bytes}};
}

void DecisionLedger::save(StateWriter& out) const {
  out.u64(nextEventId_);
  out.u64(rewarded_);
  out.u64(expired_);
  out.u64(lastExpired_);
  out.u64(pending_.size());
  for (const auto& [id, decision] : pending_) {
    out.u64(id);
    out.u32s(decision.arms.data(), decision.arms.size());
    out.f64s(decision.features.data(), decision.features.size());
  }
  out.u64s(rewardedRing_.data(), rewardedRing_.size());
  out.u64(ringNext_);
}

void DecisionLedger::load(StateReader& in) {
  const auto d = static_cast<std::size_t>(dim_);
  nextEventId_ = in.u64();
  rewarded_ = in.u64();
  expired_ = in.u64();
  lastExpired_ = in.u64();
  in.check(nextEventId_ >= 1 && lastExpired_ < nextEventId_ && rewarded_ + expired_ < nextEventId_,
           "the decision counters do not add up");
  const std::uint64_t count = in.u64();
  in.check(count <= maxPending_ && count == nextEventId_ - 1 - rewarded_ - expired_,
           "the pending decisions do not match the counters");
  std::map<std::uint64_t, Pending> pending;
  std::uint64_t previous = lastExpired_;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t id = in.u64();
    in.check(id > previous && id < nextEventId_, "pending event ids are not increasing and above the expired ones");
    previous = id;
    Pending decision;
    decision.arms = in.u32s();
    decision.features = in.f64s();
    in.check(!decision.arms.empty() && decision.features.size() == decision.arms.size() * d,
             "a pending decision does not hold one feature row per arm");
    for (const double value : decision.features) in.check(std::isfinite(value), "a pending decision's features are not finite");
    pending.emplace(id, std::move(decision));
  }
  std::vector<std::uint64_t> ring = in.u64s();
  const std::uint64_t ringNext = in.u64();
  in.check(ring.size() <= maxPending_ && ring.size() <= rewarded_ && (ringNext == 0 || ringNext < ring.size()),
           "the rewarded events' ring is out of range");
  for (const std::uint64_t id : ring) in.check(id >= 1 && id < nextEventId_ && pending.count(id) == 0, "a rewarded event id is out of range");
  pending_ = std::move(pending);
  rewardedRing_ = std::move(ring);
  ringNext_ = static_cast<std::size_t>(ringNext);
}

}  // namespace sublinear
