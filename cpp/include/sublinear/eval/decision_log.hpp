#pragma once

#include <cstddef>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// Logged decisions of some logging policy: record i played arms[i] with probability
// propensities[i] (in (0, 1]) and observed rewards[i]. What off-policy evaluation reads.
struct DecisionLog {
  std::vector<Id> arms;
  std::vector<double> rewards;
  std::vector<double> propensities;

  std::size_t size() const { return arms.size(); }

  // Refuses a log that cannot be evaluated against `policy`, naming the first bad record:
  // lengths that differ (INVALID_ARGUMENT), no record (EMPTY), a propensity outside (0, 1]
  // (INVALID_ARGUMENT), a reward that is not finite or beyond 1e15 (NON_FINITE /
  // INVALID_ARGUMENT), an arm the policy does not hold (UNKNOWN_ID).
  void check(const LinearPolicy& policy) const;
};

}  // namespace sublinear
