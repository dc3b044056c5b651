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
    if (!expiredRuns_.empty() && expiredRuns_.back().second + 1 == lastExpired_) {
      expiredRuns_.back().second = lastExpired_;
    } else {
      expiredRuns_.emplace_back(lastExpired_, lastExpired_);
      if (expiredRuns_.size() > maxPending_) {
        forgottenThrough_ = expiredRuns_.front().second;
        expiredRuns_.erase(expiredRuns_.begin());
      }
    }
  }
  const std::uint64_t eventId = nextEventId_++;
  pending_.emplace(eventId, Pending{std::move(arms), std::move(features)});
  return eventId;
}

bool DecisionLedger::expired(std::uint64_t eventId) const {
  const auto after = std::upper_bound(expiredRuns_.begin(), expiredRuns_.end(), eventId,
                                      [](std::uint64_t id, const auto& run) { return id < run.first; });
  return after != expiredRuns_.begin() && eventId <= std::prev(after)->second;
}

const DecisionLedger::Pending& DecisionLedger::pending(std::uint64_t eventId, std::size_t rewardCount) const {
  const std::string event = "event " + std::to_string(eventId);
  const auto found = pending_.find(eventId);
  if (found == pending_.end()) {
    if (eventId == 0 || eventId >= nextEventId_) fail(ErrorCode::UnknownId, event + " was not decided by this policy");
    if (eventId <= forgottenThrough_) {
      fail(ErrorCode::UnknownId, event + " is no longer pending: it was rewarded, or it expired, too long ago to tell which");
    }
    if (expired(eventId)) {
      fail(ErrorCode::UnknownId, event + " has expired: more than maxPending (" + std::to_string(maxPending_) +
                                     ") decisions waited for their rewards");
    }
    // Not pending, decided, not expired: rewarded.
    fail(ErrorCode::InvalidArgument, event + " was already rewarded");
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
  out.u64(expiredRuns_.size());
  for (const auto& [first, last] : expiredRuns_) {
    out.u64(first);
    out.u64(last);
  }
  out.u64(forgottenThrough_);
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
  const std::uint64_t runCount = in.u64();
  in.check(runCount <= maxPending_, "the expired events' runs are more than maxPending");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  const std::uint64_t forgotten = [&] {
    std::uint64_t end = 0, covered = 0;
    for (std::uint64_t i = 0; i < runCount; ++i) {
      const std::uint64_t first = in.u64(), last = in.u64();
      in.check(first >= 1 && first <= last && last <= lastExpired_ && (runs.empty() || first > end + 1),
               "the expired events' runs are not increasing and apart");
      covered += last - first + 1;
      end = last;
      runs.emplace_back(first, last);
    }
    const std::uint64_t through = in.u64();
    in.check(covered <= expired_ && (runs.empty() ? expired_ == 0 && through == 0 : runs.back().second == lastExpired_) &&
                 through <= lastExpired_ && (runs.empty() || through < runs.front().first),
             "the expired events' runs do not match the counters");
    return through;
  }();
  pending_ = std::move(pending);
  expiredRuns_ = std::move(runs);
  forgottenThrough_ = forgotten;
}

}  // namespace sublinear
