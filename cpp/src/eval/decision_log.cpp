#include "sublinear/eval/decision_log.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/linear/arm_set.hpp"

namespace sublinear {

const ArmFilter& DecisionLog::filterOf(std::size_t record) const {
  static const ArmFilter none;
  return filters.empty() ? none : filters[record];
}

void DecisionLog::check(const LinearPolicy& policy) const {
  if (rewards.size() != arms.size() || propensities.size() != arms.size()) {
    fail(ErrorCode::InvalidArgument, "log: arms, rewards and propensities must have one entry per decision (lengths " +
                                         std::to_string(arms.size()) + ", " + std::to_string(rewards.size()) + ", " +
                                         std::to_string(propensities.size()) + ")");
  }
  if (!positions.empty() && positions.size() != arms.size()) {
    fail(ErrorCode::InvalidArgument, "log: positions must have one entry per decision (or none), not " + std::to_string(positions.size()));
  }
  if (!filters.empty() && filters.size() != arms.size()) {
    fail(ErrorCode::InvalidArgument, "log: filters must have one entry per decision (or none), not " + std::to_string(filters.size()));
  }
  require(!arms.empty(), ErrorCode::Empty, "log: no decision to evaluate");
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const auto record = [i] { return "log record " + std::to_string(i) + ": "; };
    const double p = propensities[i];
    if (!(std::isfinite(p) && p > 0.0 && p <= 1.0)) {
      fail(ErrorCode::InvalidArgument, record() + "propensity " + std::to_string(p) + " is not in (0, 1]");
    }
    if (!std::isfinite(rewards[i])) fail(ErrorCode::NonFinite, record() + "reward is not finite");
    if (std::abs(rewards[i]) > ArmSet::kMaxMagnitude) fail(ErrorCode::InvalidArgument, record() + "|reward| exceeds 1e15");
    if (!policy.hasArm(arms[i])) {
      fail(ErrorCode::UnknownId, record() + "arm " + std::to_string(arms[i]) + " is not among the policy's arms");
    }
    // A slate shows distinct arms, so position j needs j + 1 of them: a position at or beyond the
    // policy's arm count is no slate it can show, and its size is refused before anything is sized by it.
    if (positionOf(i) >= policy.armCount()) {
      fail(ErrorCode::InvalidArgument, record() + "position " + std::to_string(positionOf(i)) +
                                           " is beyond the largest slate the policy can show (" +
                                           std::to_string(policy.armCount()) + " arms, positions 0 to " +
                                           std::to_string(policy.armCount() - 1) + ")");
    }
    const std::vector<Id>& excluded = filterOf(i).exclude;
    if (std::find(excluded.begin(), excluded.end(), arms[i]) != excluded.end()) {
      fail(ErrorCode::InvalidArgument, record() + "arm " + std::to_string(arms[i]) + " is excluded by the record's own filter");
    }
  }
}

std::optional<Id> DecisionLog::choiceAt(LinearPolicy& policy, std::size_t record) const {
  const std::uint32_t position = positionOf(record);
  const ArmFilter& filter = filterOf(record);
  try {
    if (position == 0) return policy.select(filter);
    const std::vector<Id> slate = policy.selectSlate(position + 1, filter);
    if (slate.size() <= position) return std::nullopt;
    return slate[position];
  } catch (const Error& error) {
    if (error.code() != ErrorCode::Empty) throw;
    return std::nullopt;
  }
}

std::string DecisionLog::contextKey(std::size_t record) const {
  const std::uint32_t position = positionOf(record);
  const ArmFilter& filter = filterOf(record);
  std::vector<Id> exclude = filter.exclude;
  std::vector<Label> labels = filter.labels;
  std::sort(exclude.begin(), exclude.end());
  exclude.erase(std::unique(exclude.begin(), exclude.end()), exclude.end());
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  std::string key = std::to_string(position) + "|";
  for (const Id id : exclude) key += std::to_string(id) + ",";
  key += "|";
  for (const Label label : labels) key += std::to_string(label) + ",";
  // The other attribute conditions as given: contexts that differ in them differ.
  for (const auto* list : {&filter.allLabels, &filter.noLabels}) {
    key += "|";
    for (const Label label : *list) key += std::to_string(label) + ",";
  }
  // Bounds exactly (JSON's shortest round trip; it writes infinities as null).
  const auto bound = [](double value) { return std::isinf(value) ? std::string(value > 0 ? "inf" : "-inf") : Json(value).dump(); };
  for (const ValueRange& range : filter.where) key += "|" + Json(range.name).dump() + ":" + bound(range.low) + ":" + bound(range.high);
  return key;
}

}  // namespace sublinear
