#include "sublinear/cls/super_arm_oracle.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

#include "sublinear/core/error.hpp"

namespace sublinear {

void SuperArmOracle::validate(const SuperArmConstraint& constraint, std::size_t rows) {
  if (constraint.k < 1 || constraint.k > rows) {
    fail(ErrorCode::InvalidArgument,
         "k must be an integer in [1, " + std::to_string(rows) + "] (the number of arms), got " + std::to_string(constraint.k));
  }
  if (!constraint.grouped()) return;
  if (constraint.groups.size() != rows) {
    fail(ErrorCode::DimensionMismatch, "groups must have one entry per arm: expected " + std::to_string(rows) +
                                           ", got " + std::to_string(constraint.groups.size()));
  }
  require(constraint.perGroup >= 1, ErrorCode::InvalidArgument, "perGroup must be a positive integer when groups are given");
  // Ordered map: the capacity does not depend on hashing.
  std::map<std::uint32_t, std::size_t> sizes;
  for (const std::uint32_t group : constraint.groups) ++sizes[group];
  std::size_t capacity = 0;
  for (const auto& entry : sizes) capacity += std::min(entry.second, constraint.perGroup);
  if (capacity < constraint.k) {
    fail(ErrorCode::InvalidArgument, "the quotas admit at most " + std::to_string(capacity) + " arms (perGroup " +
                                         std::to_string(constraint.perGroup) + "), fewer than k = " +
                                         std::to_string(constraint.k));
  }
}

std::vector<Id> SuperArmOracle::select(const std::vector<double>& scores, const SuperArmConstraint& constraint) {
  std::vector<Id> rows(scores.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<Id>(i);
  const std::vector<std::size_t> positions = selectAmong(rows, scores, constraint);
  return std::vector<Id>(positions.begin(), positions.end());
}

std::vector<std::size_t> SuperArmOracle::selectAmong(const std::vector<Id>& rows, const std::vector<double>& scores,
                                                const SuperArmConstraint& constraint) {
  // Positions into `rows`, ordered by the scores of the subset.
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Higher score first, then the smaller row: a total order, so the selection is a function of the scores.
  auto better = [&](std::size_t a, std::size_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && rows[a] < rows[b]);
  };
  std::vector<std::size_t> chosen;
  const std::size_t k = std::min(constraint.k, rows.size());
  if (!constraint.grouped()) {
    // Uniform matroid: the k best, found in O(n + k log k).
    if (k < order.size()) std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), better);
    order.resize(k);
    std::sort(order.begin(), order.end(), better);
    return order;
  }
  // Truncated partition matroid: the greedy algorithm over all arms, best first.
  std::sort(order.begin(), order.end(), better);
  std::map<std::uint32_t, std::size_t> taken;
  for (const std::size_t position : order) {
    if (chosen.size() == constraint.k) break;
    std::size_t& count = taken[constraint.groups[rows[position]]];
    if (count < constraint.perGroup) {
      ++count;
      chosen.push_back(position);
    }
  }
  return chosen;
}

}  // namespace sublinear
