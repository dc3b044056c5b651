#include "sublinear/linear/staged_elimination.hpp"

#include <algorithm>
#include <queue>

// A stage's most uncertain arms through its bounds (StagedElimination's boundsFirst), within the
// recomputations boundsBudget allows.

namespace sublinear {

std::size_t StagedElimination::boundsBudget(std::size_t stageSize) {
  return std::clamp(stageSize / kScanRowsPerRecomputation, kMinimumSearchWork, kSearchWork);
}

StagedElimination::BoundAnswer StagedElimination::searchBounds(int stage) {
  bool certified = false;
  const std::vector<UncertaintyBounds::Entry> found = searchBounds(stage, 1, Eligibility(), certified);
  if (found.empty()) return BoundAnswer{};
  return BoundAnswer{true, certified, found.front().second, found.front().first};
}

std::vector<UncertaintyBounds::Entry> StagedElimination::searchBounds(int stage, std::size_t count, const Eligibility& eligible,
                                                            bool& certified) {
  UncertaintyBounds& bounds = stages_[static_cast<std::size_t>(stage)].bounds;
  std::vector<UncertaintyBounds::Entry> recomputed, skipped;
  // The `count` largest values recomputed so far, smallest on top: the last of the answer.
  std::priority_queue<double, std::vector<double>, std::greater<double>> largest;
  const std::size_t budget = boundsBudget(stages_[static_cast<std::size_t>(stage)].index->size());
  std::size_t work = 0;
  while (!bounds.empty()) {
    if (largest.size() == count && largest.top() >= bounds.largestBound()) break;
    if (work == budget) break;
    ++work;
    const auto [bound, id] = bounds.pop();
    const auto it = membership_.find(id);
    if (it == membership_.end() || it->second.stage != stage) continue;  // the arm has left the stage
    if (eligible.filters()) {
      const std::size_t row = arms_.rowOf(id);
      if (!eligible.admitsRow(row)) {
        skipped.emplace_back(bound, id);
        continue;
      }
    }
    const double norm = inverseNorm(arms_.featuresOf(id));
    recomputed.emplace_back(norm, id);
    if (largest.size() < count) {
      largest.push(norm);
    } else if (norm > largest.top()) {
      largest.pop();
      largest.push(norm);
    }
  }
  // Every eligible member left in the buckets has a bound no larger than the last value kept: none
  // is more uncertain.
  certified = !recomputed.empty() && (bounds.empty() || (largest.size() == count && largest.top() >= bounds.largestBound()));
  for (const auto& [norm, id] : recomputed) bounds.push(norm, id);
  for (const auto& [bound, id] : skipped) bounds.push(bound, id);
  countInnerProducts(recomputed.size());
  boundRecomputations_ += recomputed.size();
  // Largest first, ties in the order recomputed (the first of equals wins, as one search's did).
  std::stable_sort(recomputed.begin(), recomputed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (recomputed.size() > count) recomputed.resize(count);
  return recomputed;
}

}  // namespace sublinear
