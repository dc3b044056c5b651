#include "sublinear/linear/staged_elimination.hpp"

#include <unordered_set>

// Arm additions and removals of StagedElimination, and the readmission of eliminated arms when
// the threshold's witness leaves.

namespace sublinear {

void StagedElimination::onAddArms(const Id* ids, std::size_t count) {
  refreshRadius();
  std::vector<std::vector<Placement>> byStage(static_cast<std::size_t>(maxStage_) + 1);
  double best = -INFINITY;
  Id bestId = 0;
  const Vector& theta = ridge_.theta();
  for (std::size_t i = 0; i < count; ++i) {
    const double* x = arms_.featuresOf(ids[i]);
    const double norm = inverseNorm(x), u = beta_ * norm;
    const double mean = Eigen::Map<const Vector>(x, arms_.dim()).dot(theta);
    byStage[static_cast<std::size_t>(stageFor(u))].push_back({ids[i], mean, norm});
    if (mean - u > best) best = mean - u, bestId = ids[i];
  }
  countInnerProducts(count);
  int placed = 0;
  try {
    for (; placed <= maxStage_; ++placed) place(placed, byStage[static_cast<std::size_t>(placed)]);
  } catch (...) {
    // Undo the stages already filled so that the policy is unchanged (their heap entries go stale).
    for (int s = 0; s < placed; ++s) {
      std::vector<Id> undo;
      for (const Placement& arm : byStage[static_cast<std::size_t>(s)]) undo.push_back(arm.id), membership_.erase(arm.id);
      if (!undo.empty()) stages_[static_cast<std::size_t>(s)].index->remove(undo.data(), undo.size());
      dropStaleEntries(s);
    }
    throw;
  }
  std::size_t work = kUpkeepWork;
  if (count > 0) raiseThreshold(best, bestId, work);
}

void StagedElimination::onRemoveArms(const Id* ids, std::size_t count) {
  if (reviewing()) keepReviewWhole(ids, count);
  bool witnessLeaves = false;
  std::vector<std::vector<Id>> byStage(static_cast<std::size_t>(maxStage_) + 1);
  for (std::size_t i = 0; i < count; ++i) {
    if (hasWitness_ && ids[i] == witness_) witnessLeaves = true;
    const int stage = membership_.at(ids[i]).stage;
    if (stage >= 0) byStage[static_cast<std::size_t>(stage)].push_back(ids[i]);
  }
  for (int s = 0; s <= maxStage_; ++s) {
    auto& batch = byStage[static_cast<std::size_t>(s)];
    if (!batch.empty()) stages_[static_cast<std::size_t>(s)].index->remove(batch.data(), batch.size());
  }
  for (std::size_t i = 0; i < count; ++i) membership_.erase(ids[i]);
  for (int s = 0; s <= maxStage_; ++s) {
    if (!byStage[static_cast<std::size_t>(s)].empty()) dropStaleEntries(s);
  }
  if (witnessLeaves) readmitEliminated(ids, count);
}

void StagedElimination::readmitEliminated(const Id* leaving, std::size_t count) {
  // Arms were eliminated because their upper bound fell below the witness's lower bound; without
  // the witness that comparison no longer holds, so every eliminated arm comes back and the
  // threshold is derived afresh from the arms that remain. O(K), and only when a witness leaves.
  ++readmissions_;
  threshold_ = -INFINITY;
  hasWitness_ = false;
  const std::unordered_set<Id> gone(leaving, leaving + count);
  std::vector<std::vector<Placement>> byStage(static_cast<std::size_t>(maxStage_) + 1);
  const Vector& theta = ridge_.theta();
  double best = -INFINITY;
  Id bestId = 0;
  for (std::size_t i = 0; i < arms_.size(); ++i) {
    const Id id = arms_.idAt(i);
    if (gone.count(id) != 0) continue;
    const double* x = arms_.featuresOf(id);
    const double norm = inverseNorm(x), u = beta_ * norm;
    const double mean = Eigen::Map<const Vector>(x, arms_.dim()).dot(theta);
    if (mean - u > best) best = mean - u, bestId = id;
    if (membership_.at(id).stage < 0) byStage[static_cast<std::size_t>(stageFor(u))].push_back({id, mean, norm});
  }
  countInnerProducts(arms_.size());
  for (int s = 0; s <= maxStage_; ++s) place(s, byStage[static_cast<std::size_t>(s)]);
  std::size_t work = kUpkeepWork;
  if (best > -INFINITY) raiseThreshold(best, bestId, work);
}

}  // namespace sublinear
