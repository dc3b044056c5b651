#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/core/options.hpp"

namespace sublinear {

class StateReader;
class StateWriter;

// The decisions a policy made (decide(), API v2) and has not yet been rewarded for: per event id the
// arms shown and their features at the time, so that a reward that comes back late updates the model
// also after an arm left the set (or the catalogue), or came back with other features.
//
// Memory is bounded: at most `maxPending` decisions wait; the oldest is dropped (counted as expired)
// to make room. A reward for an event that never was, or that expired, is UNKNOWN_ID; a second reward
// for one event is INVALID_ARGUMENT. The expired ids are kept as runs of consecutive ids (expiry takes
// the oldest pending decision, so every id below an expired one that is not pending was rewarded or
// expired): exact while the expired ids form at most maxPending runs, as they do when rewards stop
// coming back (one run) whatever the number of calls; beyond that the oldest runs are dropped and a
// reward for an id they covered is UNKNOWN_ID naming both possibilities.
class DecisionLedger {
 public:
  struct Pending {
    std::vector<Id> arms;
    std::vector<double> features;  // arms.size() rows of dim doubles
  };

  DecisionLedger(std::size_t maxPending, int dim);

  // Records a decision and returns its event id (1, 2, ...). features: arms.size() * dim doubles.
  std::uint64_t record(std::vector<Id> arms, std::vector<double> features);
  // The pending decision of `eventId`, after checking that `rewardCount` rewards fit it; throws as the
  // class comment says. Nothing changes: take() removes it once the rewards are applied.
  const Pending& pending(std::uint64_t eventId, std::size_t rewardCount) const;
  void take(std::uint64_t eventId);

  std::size_t maxPending() const { return maxPending_; }
  std::size_t size() const { return pending_.size(); }
  // { decisions, pending, rewarded, expired, maxPending, pendingBytes }
  Json stats() const;

  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  std::size_t maxPending_;
  int dim_;
  std::uint64_t nextEventId_ = 1;
  std::uint64_t rewarded_ = 0;
  std::uint64_t expired_ = 0;
  // The largest event id that expired (0: none). Pending ids are all above the ones that expired
  // before them, since the oldest pending decision is the one that expires.
  std::uint64_t lastExpired_ = 0;
  std::map<std::uint64_t, Pending> pending_;
  // The expired event ids as runs [first, last] of consecutive ids, increasing (at most maxPending_
  // runs), and the largest id whose run was dropped to keep them so (0: none).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> expiredRuns_;
  std::uint64_t forgottenThrough_ = 0;

  bool expired(std::uint64_t eventId) const;
};

}  // namespace sublinear
