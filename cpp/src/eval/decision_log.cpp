#include "sublinear/eval/decision_log.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

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
  if (!prefixPropensities.empty() && prefixPropensities.size() != arms.size()) {
    fail(ErrorCode::InvalidArgument,
         "log: prefixPropensities must have one entry per decision (or none), not " + std::to_string(prefixPropensities.size()));
  }
  if (!policyArms.empty() && policyArms.size() != arms.size()) {
    fail(ErrorCode::InvalidArgument, "log: policyArms must have one entry per decision (or none), not " + std::to_string(policyArms.size()));
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
    // The logger's own arm, where it is logged: one the target holds too (page-pi counts it among
    // the arms the logger's uniform page is drawn from).
    if (!policyArms.empty() && !policy.hasArm(policyArms[i])) {
      fail(ErrorCode::UnknownId, record() + "policy arm " + std::to_string(policyArms[i]) + " is not among the policy's arms");
    }
    const std::vector<Id>& excluded = filterOf(i).exclude;
    if (std::find(excluded.begin(), excluded.end(), arms[i]) != excluded.end()) {
      fail(ErrorCode::InvalidArgument, record() + "arm " + std::to_string(arms[i]) + " is excluded by the record's own filter");
    }
  }
  if (!pages.empty()) pageBounds();
}

std::vector<std::size_t> DecisionLog::pageBounds() const {
  const std::size_t n = arms.size();
  if (!pages.empty() && positions.empty()) fail(ErrorCode::InvalidArgument, "log: pages need positions (a page's position of each record)");
  if (!pages.empty() && pages.size() != n) {
    fail(ErrorCode::InvalidArgument, "log: pages must have one entry per decision (or none), not " + std::to_string(pages.size()));
  }
  std::vector<std::size_t> bounds;
  for (std::size_t i = 0; i < n; ++i) {
    const bool starts = pages.empty() ? positionOf(i) == 0 || i == 0 : i == 0 || pages[i] != pages[i - 1];
    if (pages.empty() && i == 0 && positionOf(0) != 0) {
      fail(ErrorCode::InvalidArgument, "log record 0: position " + std::to_string(positionOf(0)) +
                                           " begins the log: without pages, a page starts at position 0");
    }
    if (starts) bounds.push_back(i);
  }
  bounds.push_back(n);
  // A page's positions are distinct; a page id seen before (an earlier page) is no new page. Both are
  // checked on sorted copies, of at most n entries.
  std::vector<std::uint32_t> sorted;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    sorted.assign(positions.begin() + static_cast<std::ptrdiff_t>(bounds[k]), positions.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]));
    std::sort(sorted.begin(), sorted.end());
    const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
    if (repeated != sorted.end()) {
      std::size_t record = bounds[k];
      while (positions[record] != *repeated) ++record;
      fail(ErrorCode::InvalidArgument, "log record " + std::to_string(record) + ": position " + std::to_string(*repeated) +
                                           " appears twice on its page (records " + std::to_string(bounds[k]) + " to " +
                                           std::to_string(bounds[k + 1] - 1) + ")");
    }
  }
  if (!pages.empty()) {
    std::vector<std::pair<std::uint32_t, std::size_t>> firsts;
    firsts.reserve(bounds.size() - 1);
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k) firsts.emplace_back(pages[bounds[k]], bounds[k]);
    std::sort(firsts.begin(), firsts.end());
    for (std::size_t k = 1; k < firsts.size(); ++k) {
      if (firsts[k].first == firsts[k - 1].first) {
        fail(ErrorCode::InvalidArgument, "log record " + std::to_string(firsts[k].second) + ": page " + std::to_string(firsts[k].first) +
                                             " comes back after another page (a page's records must be consecutive)");
      }
    }
  }
  return bounds;
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
