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
// pages[i], optional too: the page (a decideSlate()'s event) record i was shown on; the records of a
// page are consecutive and share it. Without pages, a record at position 0 starts a new page.
// prefixPropensities[i], optional too: the logging policy's probability of the page's whole prefix
// up to and including record i (decideSlate()'s prefixPropensities), what a cascade estimator reads.
// policyArms[i], optional too: the arm the logging policy itself would have shown at record i's
// position had it not explored (decideSlate()'s policyArms; arms[i] on a page it did not explore):
// the page the exploration mix draws around, what page-pi reads of the mix.
struct DecisionLog {
  std::vector<Id> arms;
  std::vector<double> rewards;
  std::vector<double> propensities;
  std::vector<std::uint32_t> positions;
  std::vector<ArmFilter> filters;
  std::vector<std::uint32_t> pages;
  std::vector<double> prefixPropensities;
  std::vector<Id> policyArms;

  std::size_t size() const { return arms.size(); }
  std::uint32_t positionOf(std::size_t record) const { return positions.empty() ? 0 : positions[record]; }
  const ArmFilter& filterOf(std::size_t record) const;

  // Refuses a log that cannot be evaluated against `policy`, naming the first bad record:
  // lengths that differ (INVALID_ARGUMENT), no record (EMPTY), a propensity outside (0, 1]
  // (INVALID_ARGUMENT), a reward that is not finite or beyond 1e15 (NON_FINITE /
  // INVALID_ARGUMENT), an arm or policy arm the policy does not hold (UNKNOWN_ID), an arm its own filter excludes
  // or a position at or beyond the policy's arm count, the largest slate it can show
  // (INVALID_ARGUMENT), prefix propensities or policy arms neither none nor one per record (INVALID_ARGUMENT).
  // Nothing a record's values imply is allocated before they are checked.
  // Given pages are checked too (pageBounds).
  void check(const LinearPolicy& policy) const;

  // The pages of the log, as the index of each page's first record followed by size(): page k is
  // records bounds[k] to bounds[k + 1] - 1. From `pages` when given (they need positions; a page's
  // records must be consecutive: a page id that comes back after another page is refused), else
  // each record at position 0 starts a page (and the first record must be at position 0). A position
  // repeated within a page is refused. INVALID_ARGUMENT naming the record; the bounds are the only
  // allocation, at most one per record.
  std::vector<std::size_t> pageBounds() const;

  // The arm `policy` shows, in its state now, at `record`'s position under its filter (select, or
  // that position of selectSlate): what a replay matches against the logged arm. None when it shows
  // fewer arms there or the filter admits none (EMPTY: the arms changed since the log was written).
  std::optional<Id> choiceAt(LinearPolicy& policy, std::size_t record) const;
  // The context `record` was decided in, as a key: its position and every condition of its filter
  // (ids and labels as sets, ranges exactly). Records of one key share a policy's choice distribution.
  std::string contextKey(std::size_t record) const;
};

}  // namespace sublinear
