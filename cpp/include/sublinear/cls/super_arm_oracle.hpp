#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sublinear/cls/arm_features.hpp"

namespace sublinear {

// The feasible super arms of a round. Without groups: every set of exactly k rows (Takemura and
// Ito's (arXiv:1909.02251) S_t = {I : |I| = k}, a uniform matroid). With groups: every set of
// exactly k rows holding at most perGroup rows of each group (a truncated partition matroid; the
// promotion problem is k = M * perGroup with one group per promotion, which forces exactly perGroup
// per promotion).
struct SuperArmConstraint {
  std::size_t k = 0;
  std::vector<std::uint32_t> groups;  // empty, or one group label per row
  std::size_t perGroup = 0;           // used only with groups

  bool grouped() const { return !groups.empty(); }
};

// The exact oracle for those constraints: the maximum-score feasible super arm, found greedily
// (optimal on any matroid). Ties go to the smaller row, so the result is a function of the scores.
class SuperArmOracle {
 public:
  // INVALID_ARGUMENT unless k in [1, rows], groups has `rows` entries (or none), perGroup >= 1 with
  // groups, and the quotas admit k rows (sum over groups of min(perGroup, group size) >= k).
  static void validate(const SuperArmConstraint& constraint, std::size_t rows);
  // The chosen rows, best score first. `scores` has one entry per row; the constraint is valid.
  static std::vector<Id> select(const std::vector<double>& scores, const SuperArmConstraint& constraint);
  // The same over a subset of rows (`rows[i]` has score `scores[i]`, ties still go to the smaller
  // row); with groups, labels are constraint.groups[rows[i]]. Returns POSITIONS i into `rows`, best
  // first, as many as the subset allows up to k.
  static std::vector<std::size_t> selectAmong(const std::vector<Id>& rows, const std::vector<double>& scores,
                                              const SuperArmConstraint& constraint);
};

}  // namespace sublinear
