#include "sublinear/linear/staged_elimination.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "sublinear/core/parallelism.hpp"

// The review of every arm in play by StagedElimination, a slice per call, and the examination of
// arms on threads that the reviews and re-partitions spend most of their time in.

namespace sublinear {

namespace {
// review() runs whenever the observations have grown by this factor: about 45 times in 20,000
// steps. Doubling (about 15 times) reviews too rarely: arms that should be eliminated keep being
// played, and the battery's unit-norm d = 8 problem kept several times the regret late in the run.
constexpr double kReviewGrowth = 1.25;

}  // namespace

std::vector<StagedElimination::Examined> StagedElimination::examine(const Id* ids, std::size_t count) {
  std::vector<Examined> examined(count);
  const Vector& theta = ridge_.theta();
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    Vector product(arms_.dim());
    for (std::size_t first = next.fetch_add(kExamineGrain); first < count; first = next.fetch_add(kExamineGrain)) {
      for (std::size_t i = first; i < std::min(count, first + kExamineGrain); ++i) {
        Examined& arm = examined[i];
        arm.id = ids[i];
        const auto found = membership_.find(arm.id);
        arm.where = found != membership_.end() && found->second.stage >= 0 ? &found->second : nullptr;
        if (arm.where == nullptr) continue;
        const Eigen::Map<const Vector> x(arms_.featuresOf(arm.id), arms_.dim());
        arm.inverseNorm = ridge_.inverseNorm(x, product);
        arm.mean = x.dot(theta);
      }
    }
  };
  if (count > kExamineGrain && parallelism() > 1) {
    runInParallel(parallelism(), work);
  } else {
    work();
  }
  return examined;
}

void StagedElimination::review(std::size_t& work) {
  std::vector<std::vector<Placement>> arriving(static_cast<std::size_t>(maxStage_) + 1);
  std::vector<std::vector<Id>> leaving(static_cast<std::size_t>(maxStage_) + 1);
  double bestLower = -INFINITY;
  Id lowerWitness = 0;
  std::size_t examined = 0;
  // The arms ahead of the cursor are examined a block at a time (examine: on every thread), at most
  // as many as the work left can reach.
  std::vector<Examined> block;
  std::size_t blockFirst = reviewCursor_;
  while (reviewCursor_ < arms_.size() && work >= kMoveWork) {
    if (reviewCursor_ - blockFirst == block.size()) {
      blockFirst = reviewCursor_;
      const std::size_t count = std::min({kReviewBlock, arms_.size() - reviewCursor_, work - kMoveWork + 1});
      block = examine(arms_.ids().data() + blockFirst, count);
    }
    const Examined& arm = block[reviewCursor_++ - blockFirst];
    --work;
    if (arm.where == nullptr) continue;
    const Id id = arm.id;
    Membership& where = *arm.where;
    const double norm = arm.inverseNorm, u = beta_ * norm, mean = arm.mean;
    ++examined;
    if (mean - u > bestLower) bestLower = mean - u, lowerWitness = id;
    const int target = std::max(where.stage, stageFor(u));
    if (target != where.stage) {
      leaving[static_cast<std::size_t>(where.stage)].push_back(id);
      arriving[static_cast<std::size_t>(target)].push_back({id, mean, norm});
      work -= kMoveWork - 1;
      continue;
    }
    // A fresh key for every arm that stays: its old entry would otherwise keep it above the
    // threshold until it leaves the stage.
    Stage& stage = stages_[static_cast<std::size_t>(where.stage)];
    const double key = mean + std::max(std::ldexp(1.0, -where.stage), u);
    if (key != where.key) stage.heap.emplace(key, id);
    stage.nextHeap.emplace(key, id);
    where.key = key;
  }
  countInnerProducts(examined);
  for (int s = 0; s <= maxStage_; ++s) {
    auto& gone = leaving[static_cast<std::size_t>(s)];
    if (!gone.empty()) stages_[static_cast<std::size_t>(s)].index->remove(gone.data(), gone.size());
  }
  for (int s = 0; s <= maxStage_; ++s) place(s, arriving[static_cast<std::size_t>(s)]);
  if (examined > 0) raiseThreshold(bestLower, lowerWitness, work);
  if (reviewCursor_ < arms_.size()) return;
  // Every arm in play has its entry in the next heaps: the old ones, stale entries and all, go.
  for (Stage& stage : stages_) {
    stage.heap = std::move(stage.nextHeap);
    stage.nextHeap = Heap();
  }
  reviewCursor_ = kNotReviewing;
}

void StagedElimination::upkeep(std::size_t& work) {
  // Arms a spent budget left below the threshold first: they should not be played.
  eliminate(work);
  if (!theoreticalRadius() && !reviewing() && ridge_.observations() >= nextReview_) {
    ++reviews_;
    reviewCursor_ = 0;
    nextReview_ = std::max<long>(ridge_.observations() + 1, static_cast<long>(kReviewGrowth * static_cast<double>(ridge_.observations())));
  }
  if (reviewing()) review(work);
}

void StagedElimination::keepReviewWhole(const Id* leaving, std::size_t count) {
  // Replays ArmSet::remove (each hole takes the last row, in batch order) on the rows that change.
  std::unordered_map<Id, std::size_t> rowOf;
  std::unordered_map<std::size_t, Id> idAt;
  const auto currentRow = [&](Id id) { const auto it = rowOf.find(id); return it != rowOf.end() ? it->second : arms_.rowOf(id); };
  const auto currentId = [&](std::size_t row) { const auto it = idAt.find(row); return it != idAt.end() ? it->second : arms_.idAt(row); };
  std::size_t size = arms_.size();
  for (std::size_t i = 0; i < count; ++i, --size) {
    const std::size_t row = currentRow(leaving[i]);
    const std::size_t last = size - 1;
    if (row == last) continue;
    const Id moved = currentId(last);
    idAt[row] = moved;
    rowOf[moved] = row;
    if (row < reviewCursor_ && last >= reviewCursor_) {
      // An arm removed later in the batch leaves a stale entry here, skipped when popped.
      const Membership& where = membership_.at(moved);
      if (where.stage >= 0) stages_[static_cast<std::size_t>(where.stage)].nextHeap.emplace(where.key, moved);
    }
  }
  reviewCursor_ = std::min(reviewCursor_, size);
}

}  // namespace sublinear
