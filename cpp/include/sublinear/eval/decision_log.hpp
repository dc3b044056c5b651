#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// Logged decisions of some logging policy: record i showed arms[i] with probability
// propensities[i] (in (0, 1]) and observed rewards[i]. What off-policy evaluation reads.
// Optional, empty or one per record: positions[i], the record's position in a logged slate (each
// position of a slate is one record; 0 for a single arm), and filters[i], the eligibility filters
// the logging policy decided under (decide()'s), which the policy evaluated decides under too.
struct DecisionLog {
  std::vector<Id> arms;
  std::vector<double> rewards;
  std::vector<double> propensities;
  std::vector<std::uint32_t> positions;
  std::vector<ArmFilter> filters;

  std::size_t size() const { return arms.size(); }
  std::uint32_t positionOf(std::size_t record) const { return positions.empty() ? 0 : positions[record]; }
  const ArmFilter& filterOf(std::size_t record) const;

  // Refuses a log that cannot be evaluated against `policy`, naming the first bad record:
  // lengths that differ (INVALID_ARGUMENT), no record (EMPTY), a propensity outside (0, 1]
  // (INVALID_ARGUMENT), a reward that is not finite or beyond 1e15 (NON_FINITE /
  // INVALID_ARGUMENT), an arm the policy does not hold (UNKNOWN_ID), an arm its own filter excludes
  // or a position at or beyond the policy's arm count, the largest slate it can show
  // (INVALID_ARGUMENT). Nothing a record's values imply is allocated before they are checked.
  void check(const LinearPolicy& policy) const;

  // The arm `policy` shows, in its state now, at `record`'s position under its filter (select, or
  // that position of selectSlate): what a replay matches against the logged arm. None when it shows
  // fewer arms there or the filter admits none (EMPTY: the arms changed since the log was written).
  std::optional<Id> choiceAt(LinearPolicy& policy, std::size_t record) const;
  // The context `record` was decided in, as a key: its position and every condition of its filter
  // (ids and labels as sets, ranges exactly). Records of one key share a policy's choice distribution.
  std::string contextKey(std::size_t record) const;
};

}  // namespace sublinear
