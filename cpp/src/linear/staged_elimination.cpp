#include "sublinear/linear/staged_elimination.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <unordered_set>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/linear/elimination_stages.hpp"

namespace sublinear {

namespace {
// review() runs whenever the observations have grown by this factor: about 45 times in 20,000
// steps. Doubling (about 15 times) reviews too rarely: arms that should be eliminated keep being
// played, and the battery's unit-norm d = 8 problem kept several times the regret late in the run.
constexpr double kReviewGrowth = 1.25;

}  // namespace

StagedElimination::StagedElimination(std::string type, const std::string& defaultIndex, bool boundsFirst, int dim,
                                     const Json& options)
    : RidgePolicy(dim, options, dim),
      type_(std::move(type)),
      lift_(dim),
      eta_(elimination_stages::eta(options)),
      featureBound_(readOption(option_groups::elimination(), options, "featureBound")),
      shortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::elimination(), options, "shortlist"))),
      audit_(options, shortlist_, readSeedOption(option_groups::ridge(), options)),
      boundsFirst_(boundsFirst && readBoolOption(option_groups::subElimSearch(), options, "boundsFirst")) {
  refreshRadius();
  maxStage_ = elimination_stages::maxStage(eta_);
  const PolicyIndexSpec spec(options, defaultIndex);
  for (int s = 0; s <= maxStage_; ++s) {
    stages_.push_back(Stage{spec.make(lift_.liftedDim(), static_cast<std::uint64_t>(s)), {}, {}, {}});
    // A scan of a stage (every search of Linear Elim's, Sub-Elim's when its bounds run out) reads
    // d(d+1)/2 floats an arm: at 10^6 arms and d = 16, 544 MB, which two threads scan faster.
    stages_.back().index->shareScansAmongThreads(true);
  }
}

void StagedElimination::refreshRadius() { beta_ = eliminationRadius(featureBound_); }

double StagedElimination::inverseNorm(const double* x) const { return ridge_.inverseNorm(Eigen::Map<const Vector>(x, arms_.dim())); }

int StagedElimination::stageFor(double u) const { return elimination_stages::stageFor(u, maxStage_); }

double StagedElimination::acceptance(int stage) const { return std::ldexp(1.0, -stage - 2) * std::sqrt(1.0 - eta_ * eta_); }

void StagedElimination::place(int stage, const std::vector<Placement>& arms) {
  if (arms.empty()) return;
  Stage& target = stages_[static_cast<std::size_t>(stage)];
  const std::size_t lifted = lift_.liftedDim();
  std::vector<float> vectors(arms.size() * lifted);
  std::vector<Id> ids(arms.size());
  std::vector<Label> labels(arms.size());
  for (std::size_t i = 0; i < arms.size(); ++i) {
    ids[i] = arms[i].id;
    const std::size_t row = arms_.rowOf(arms[i].id);
    lift_.liftOuterProduct(arms_.rowData(row), vectors.data() + i * lifted);
    labels[i] = arms_.labelAt(row);
  }
  // The arms' labels go with their lifts, so that a stage's filtered search sees them.
  target.index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());
  const double width = std::ldexp(1.0, -stage);
  for (const Placement& arm : arms) {
    // An upper confidence bound at entry: 2^-s bounds the uncertainty in every stage but Psi_0.
    const double key = arm.mean + std::max(width, beta_ * arm.inverseNorm);
    pushEntry(target, key, arm.id);
    if (boundsFirst_) target.bounds.push(arm.inverseNorm, arm.id);
    membership_[arm.id] = Membership{stage, key};
  }
}

void StagedElimination::pushEntry(Stage& stage, double key, Id id) {
  stage.heap.emplace(key, id);
  if (reviewing()) stage.nextHeap.emplace(key, id);
}

void StagedElimination::dropStaleEntries(int stage) {
  Stage& target = stages_[static_cast<std::size_t>(stage)];
  if (target.bounds.size() > 2 * target.index->size()) {
    // Members keep every entry they have (each one bounds their value); the others' go.
    target.bounds.retain([&](const UncertaintyBounds::Entry& entry) {
      const auto it = membership_.find(entry.second);
      return it != membership_.end() && it->second.stage == stage;
    });
  }
  if (target.heap.size() <= 2 * target.index->size()) return;
  // Each member has exactly one live entry, with the key its membership records.
  std::vector<HeapEntry> entries;
  entries.reserve(target.index->size());
  for (const Id id : target.index->items().ids()) entries.emplace_back(membership_.at(id).key, id);
  target.heap = Heap(std::greater<HeapEntry>(), std::move(entries));
}

void StagedElimination::raiseThreshold(double candidate, Id witness, std::size_t& work) {
  if (candidate > threshold_) {
    threshold_ = candidate;
    hasWitness_ = true;
    witness_ = witness;
  }
  // Eliminate even when the threshold stayed: arms just placed (new, or re-keyed by a
  // re-partition) may already lie below it. Algorithm 3 only eliminates when r rises, which would
  // keep such arms -- and play them at random in the last stage -- until the next rise.
  eliminate(work);
}

void StagedElimination::eliminate(std::size_t& work) {
  for (int s = 0; s <= maxStage_; ++s) {
    Stage& stage = stages_[static_cast<std::size_t>(s)];
    std::vector<Id> doomed;
    std::vector<HeapEntry> retained;
    while (!stage.heap.empty() && stage.heap.top().first < threshold_) {
      const auto [key, id] = stage.heap.top();
      // Entries of arms that moved on, were re-keyed, removed or eliminated are stale: skipped, at
      // kStaleWork (a review's end can leave hundreds of thousands below the threshold).
      const auto it = membership_.find(id);
      const bool stale = it == membership_.end() || it->second.stage != s || it->second.key != key;
      if (work < (stale ? kStaleWork : kMoveWork)) break;
      stage.heap.pop();
      if (stale) {
        work -= kStaleWork;
        continue;
      }
      if (hasWitness_ && id == witness_) {
        // The witness's lower bound is the threshold, so with valid confidence intervals its upper
        // bound never falls below it; re-keyed by a re-partition with a fresh, lower mean estimate
        // (as happens with a radius below the theoretical one) it could, and eliminating it could
        // empty every stage. It stays until a higher threshold names another witness.
        retained.emplace_back(threshold_, id);
        it->second.key = threshold_;
        continue;
      }
      it->second.stage = -1;
      doomed.push_back(id);
      work -= kMoveWork;
    }
    for (const auto& [key, id] : retained) pushEntry(stage, key, id);
    if (!doomed.empty()) {
      stage.index->remove(doomed.data(), doomed.size());
      eliminated_ += doomed.size();
    }
  }
}

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

std::size_t StagedElimination::buildIndex(std::size_t maxItems) {
  std::size_t waiting = 0;
  for (auto& stage : stages_) waiting += stage.index->build(maxItems);
  return waiting;
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

std::pair<Id, double> StagedElimination::repartition(int stage, std::size_t& work) {
  ++repartitions_;
  Stage& source = stages_[static_cast<std::size_t>(stage)];
  const std::vector<Id> members = source.index->items().ids();
  std::vector<std::vector<Placement>> moves(static_cast<std::size_t>(maxStage_) + 1);
  std::vector<Id> leaving;
  double bestLower = -INFINITY, bestUncertainty = -INFINITY;
  Id lowerWitness = 0, mostUncertain = 0;
  for (const Examined& arm : examine(members.data(), members.size())) {
    const Id id = arm.id;
    const double norm = arm.inverseNorm, u = beta_ * norm, mean = arm.mean;
    if (mean - u > bestLower) bestLower = mean - u, lowerWitness = id;
    if (u > bestUncertainty) bestUncertainty = u, mostUncertain = id;
    const int target = stageFor(u);
    if (target > stage) {
      moves[static_cast<std::size_t>(target)].push_back({id, mean, norm});
      leaving.push_back(id);
    }
  }
  countInnerProducts(members.size());
  if (!leaving.empty()) source.index->remove(leaving.data(), leaving.size());
  for (int s = stage + 1; s <= maxStage_; ++s) place(s, moves[static_cast<std::size_t>(s)]);
  dropStaleEntries(stage);
  if (!members.empty()) raiseThreshold(bestLower, lowerWitness, work);
  return {mostUncertain, bestUncertainty};
}

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

Id StagedElimination::randomArmOf(int stage) {
  const VectorStore& items = stages_[static_cast<std::size_t>(stage)].index->items();
  return items.idAt(static_cast<std::size_t>(random_.uniformInt(items.size())));
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

Id StagedElimination::chooseArm() {
  refreshRadius();
  std::size_t work = kUpkeepWork;
  upkeep(work);
  std::vector<float> query(lift_.liftedDim());
  lift_.liftSymmetric(ridge_.inverseGram(), query.data());
  SearchOptions searchOptions;
  searchOptions.shortlist = shortlist_;
  for (;;) {
    int stage = 0;
    while (stage <= maxStage_ && stages_[static_cast<std::size_t>(stage)].index->size() == 0) ++stage;
    if (stage > maxStage_) {
      // Unreachable: raiseThreshold never eliminates the witness, so some stage holds an arm; kept as a guard.
      ++randomPlays_;
      return arms_.idAt(static_cast<std::size_t>(random_.uniformInt(arms_.size())));
    }
    if (stage == maxStage_) {
      ++randomPlays_;
      return randomArmOf(stage);
    }
    ++queries_;
    // The bounds' answer settles the search when it is the stage's most uncertain arm (played if it
    // passes the acceptance test, the stage re-partitioned if not) or passes the test anyway.
    const BoundAnswer bound = boundsFirst_ ? searchBounds(stage) : BoundAnswer{};
    const bool accepted = bound.found && beta_ * bound.inverseNorm >= acceptance(stage);
    if (bound.certified) ++certifiedAnswers_;
    MipsIndex& index = *stages_[static_cast<std::size_t>(stage)].index;
    // A search that ran out over a stage small enough scans it (exactly, and at most about the
    // bounds search's own cost: boundsBudget). Over a larger stage it plays its best arm when it
    // passes the acceptance test, and also when the index would scan (or build) more than a call may
    // spend: the search goes on from tighter bounds at the next call. Any arm is a valid play (the
    // confidence bounds hold whatever is played); an arm below the test only explores less.
    if (bound.certified && accepted) return bound.id;
    const bool ranOut = bound.found && !bound.certified;
    const bool scanStage = ranOut && index.size() <= kLargestScannedStage;
    if (ranOut && !scanStage && (accepted || !graphOverEveryItem(index))) {
      ++uncertifiedPlays_;
      return bound.id;
    }
    if (!bound.certified) {
      if (boundsFirst_) ++boundFallbacks_;
      SearchResult answer;
      if (scanStage) {
        answer = index.searchExactly(query.data(), query.size(), 1);
      } else {
        const std::uint64_t workBefore = index.approximateInnerProducts();
        answer = index.search(query.data(), query.size(), 1, searchOptions);
        if (audit_.due(index, workBefore)) {
          audit(index, query, answer);
          searchOptions.shortlist = shortlist_;
        }
      }
      if (!answer.ids.empty()) {
        const Id candidate = answer.ids.front();
        countInnerProducts(1);
        if (uncertainty(arms_.featuresOf(candidate)) >= acceptance(stage)) return candidate;
      }
    }
    ++emptyAnswers_;
    // No arm of this stage is uncertain enough (or the index missed it): re-partition exactly.
    const auto [mostUncertain, u] = repartition(stage, work);
    const auto it = membership_.find(mostUncertain);
    if (u >= acceptance(stage) && it != membership_.end() && it->second.stage == stage) return mostUncertain;
  }
}

bool StagedElimination::graphOverEveryItem(MipsIndex& index) {
  return index.approximates() && index.build(0) == 0;
}

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
      if (!eligible.allowsLabel(arms_.labelAt(row)) || eligible.excludesRow(row)) {
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

std::vector<Id> StagedElimination::mostUncertain(int stage, std::size_t count, const std::vector<float>& query, const SearchOptions& filters,
                                       const Eligibility& eligible) {
  MipsIndex& index = *stages_[static_cast<std::size_t>(stage)].index;
  ++queries_;
  std::vector<Id> ids;
  if (boundsFirst_) {
    bool certified = false;
    const std::vector<UncertaintyBounds::Entry> found = searchBounds(stage, count, eligible, certified);
    for (const auto& entry : found) ids.push_back(entry.second);
    if (certified) {
      ++certifiedAnswers_;
      return ids;
    }
    // As one arm's search: a stage too large to scan plays what its bounds found, unless a graph
    // over every item answers cheaply.
    if (ids.size() == count && index.size() > kLargestScannedStage && !graphOverEveryItem(index)) {
      ++uncertifiedPlays_;
      return ids;
    }
    ++boundFallbacks_;
  }
  // The stage index under the filters: an exact scan of the eligible members for Linear Elim (or
  // for a stage small enough), the index's filtered search otherwise. Its answer holds
  // min(count, eligible members) arms.
  const bool scan = !boundsFirst_ || index.size() <= kLargestScannedStage;
  const SearchResult answer = scan && boundsFirst_ ? index.searchExactly(query.data(), query.size(), count, filters)
                                                   : index.search(query.data(), query.size(), count, filters);
  return answer.ids;
}

void StagedElimination::fillFromEliminated(std::size_t count, const Eligibility& eligible, std::vector<Id>& chosen) {
  using Scored = std::pair<double, Id>;
  std::vector<Scored> scored;
  const Vector& theta = ridge_.theta();
  const auto consider = [&](std::size_t row) {
    if (!arms_.admits(eligible, row)) return;
    const Id id = arms_.idAt(row);
    // Arms in play are either chosen already or not eligible (every stage was searched).
    if (membership_.at(id).stage >= 0) return;
    const double* x = arms_.rowData(row);
    scored.emplace_back(Eigen::Map<const Vector>(x, arms_.dim()).dot(theta) + uncertainty(x), id);
  };
  // The allowed labels' rows when a label filter is given, every row otherwise: O(eligible) or O(K).
  if (eligible.labels().empty()) {
    for (std::size_t row = 0; row < arms_.size(); ++row) consider(row);
  } else {
    for (const Label label : eligible.labels()) {
      for (const std::uint32_t row : arms_.labels().rowsOf(label)) consider(row);
    }
  }
  countInnerProducts(scored.size());
  const std::size_t taken = std::min(count, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(taken), scored.end(),
                    [](const Scored& a, const Scored& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  for (std::size_t i = 0; i < taken; ++i) chosen.push_back(scored[i].second);
  eliminatedPlays_ += taken;
}

// The cost beyond one arm's search: a stage's eligible count comes from its index's label counts;
// the bounds search pops ineligible members too (a selective filter exhausts its budget sooner and
// falls back to the stage index, whose filtered search scans just the eligible members when they are
// few); Linear Elim scans each stage it visits. Eliminated arms are walked only when the arms in play
// cannot fill the slate: the allowed labels' posting lists, or every arm when only ids are excluded.
std::vector<Id> StagedElimination::chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) {
  refreshRadius();
  std::size_t work = kUpkeepWork;
  upkeep(work);
  std::vector<float> query(lift_.liftedDim());
  lift_.liftSymmetric(ridge_.inverseGram(), query.data());
  SearchOptions filters;
  filters.exclude = filter.exclude;
  filters.labels = filter.labels;
  // As Sub-TS's slates: k - 1 candidates more than one arm's search ranks.
  filters.shortlist = shortlist_ + count - 1;
  std::vector<Id> chosen;
  bool repartitioned = false;
  for (int stage = 0; stage <= maxStage_ && chosen.size() < count; ++stage) {
    MipsIndex& index = *stages_[static_cast<std::size_t>(stage)].index;
    if (index.size() == 0) continue;
    // The stage's eligible members, from its labels' counts and the excluded ids it holds.
    const std::size_t members = index.eligibility(filters).count();
    if (members == 0) continue;
    const std::vector<Id> found = mostUncertain(stage, std::min(count - chosen.size(), members), query, filters, eligible);
    if (found.empty()) continue;
    // Algorithm 2's test on the first stage that answers: when its most uncertain eligible arm is
    // not uncertain enough, the stage is re-partitioned exactly (once a call; amortised, as an arm
    // rises at most maxStage times) and the search starts again.
    if (chosen.empty() && stage < maxStage_ && !repartitioned) {
      countInnerProducts(1);
      if (uncertainty(arms_.featuresOf(found.front())) < acceptance(stage)) {
        ++emptyAnswers_;
        repartition(stage, work);
        repartitioned = true;
        stage = -1;
        continue;
      }
    }
    chosen.insert(chosen.end(), found.begin(), found.end());
  }
  if (chosen.size() < count) fillFromEliminated(count - chosen.size(), eligible, chosen);
  return chosen;
}

void StagedElimination::audit(MipsIndex& index, const std::vector<float>& query, const SearchResult& answer) {
  const std::uint64_t workBefore = index.innerProducts();
  const SearchResult exact = index.searchExactly(query.data(), query.size(), 1);
  if (exact.ids.empty()) return;
  // A miss is a stage arm of larger uncertainty than the answer: the lifted scores are
  // ||x||^2_{V^-1} / d^2, computed by the same kernel for both.
  shortlist_ = audit_.record(answer.ids.empty() ? -INFINITY : answer.scores.front(), exact.scores.front(),
                             index.innerProducts() - workBefore, shortlist_);
}

bool StagedElimination::heapsCoverEveryArm() const {
  const auto sorted = [](const Heap& heap) {
    std::vector<HeapEntry> entries = heap.entries();
    std::sort(entries.begin(), entries.end());
    return entries;
  };
  for (const Stage& stage : stages_) {
    const std::vector<HeapEntry> live = sorted(stage.heap), next = sorted(stage.nextHeap);
    std::vector<Id> bounded;
    for (const auto& entry : stage.bounds.entries()) bounded.push_back(entry.second);
    std::sort(bounded.begin(), bounded.end());
    for (const Id id : stage.index->items().ids()) {
      const HeapEntry entry{membership_.at(id).key, id};
      if (!std::binary_search(live.begin(), live.end(), entry)) return false;
      if (reviewing() && arms_.rowOf(id) < reviewCursor_ && !std::binary_search(next.begin(), next.end(), entry)) return false;
      if (boundsFirst_ && !std::binary_search(bounded.begin(), bounded.end(), id)) return false;
    }
  }
  return true;
}

std::uint64_t StagedElimination::indexInnerProducts() const {
  std::uint64_t total = 0;
  for (const Stage& stage : stages_) total += stage.index->innerProducts();
  return total;
}

Json StagedElimination::extraStats() const {
  Json sizes = Json::array();
  for (const Stage& stage : stages_) sizes.push_back(stage.index->size());
  return Json{{"stageSizes", sizes},
              {"maxStage", maxStage_},
              {"radius", beta_},
              {"eta", eta_},
              {"threshold", std::isfinite(threshold_) ? Json(threshold_) : Json(nullptr)},
              {"searches", queries_},
              {"emptyAnswers", emptyAnswers_},
              {"repartitions", repartitions_},
              {"reviews", reviews_},
              {"reviewing", reviewing()},
              {"readmissions", readmissions_},
              {"eliminated", eliminated_},
              {"randomPlays", randomPlays_},
              {"boundsFirst", boundsFirst_},
              {"boundRecomputations", boundRecomputations_},
              {"certifiedAnswers", certifiedAnswers_},
              {"boundFallbacks", boundFallbacks_},
              {"uncertifiedPlays", uncertifiedPlays_},
              {"eliminatedPlays", eliminatedPlays_},
              {"shortlist", shortlist_},
              {"indexType", stages_.front().index->type()},
              {"approximation", audit_.stats(audit_.active(*stages_.front().index), selections())}};
}

void StagedElimination::saveFields(StateWriter& out) const {
  out.f64(beta_);
  out.f64(threshold_);
  out.u8(hasWitness_ ? 1 : 0);
  out.u32(witness_);
  out.u64(static_cast<std::uint64_t>(nextReview_));
  out.u64(reviewing() ? static_cast<std::uint64_t>(reviewCursor_) : ~std::uint64_t{0});
  for (const std::uint64_t counter : {queries_, emptyAnswers_, repartitions_, reviews_, readmissions_, eliminated_, randomPlays_,
                                       boundRecomputations_, certifiedAnswers_, boundFallbacks_, uncertifiedPlays_, eliminatedPlays_}) {
    out.u64(counter);
  }
  out.u64(shortlist_);
  audit_.save(out);
  std::vector<double> keys;
  for (const Stage& stage : stages_) {
    stage.index->save(out);
    keys.clear();
    for (const Id id : stage.index->items().ids()) keys.push_back(membership_.at(id).key);
    out.f64s(keys.data(), keys.size());
    saveEntries(stage.heap.entries(), out);
    saveEntries(stage.nextHeap.entries(), out);
    saveEntries(stage.bounds.entries(), out);
  }
}

void StagedElimination::saveEntries(const std::vector<HeapEntry>& entries, StateWriter& out) {
  std::vector<double> keys;
  std::vector<std::uint32_t> ids;
  for (const auto& [key, id] : entries) keys.push_back(key), ids.push_back(id);
  out.f64s(keys.data(), keys.size());
  out.u32s(ids.data(), ids.size());
}

std::vector<StagedElimination::HeapEntry> StagedElimination::loadEntries(StateReader& in) {
  const std::vector<double> keys = in.f64s();
  const std::vector<std::uint32_t> ids = in.u32s();
  in.check(keys.size() == ids.size(), "a heap's keys and ids differ in number");
  std::vector<HeapEntry> entries;
  entries.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    in.check(std::isfinite(keys[i]), "a heap key is not finite");
    entries.emplace_back(keys[i], ids[i]);
  }
  return entries;
}

void StagedElimination::loadHeap(Heap& heap, StateReader& in) const {
  std::vector<HeapEntry> entries = loadEntries(in);
  // Entries of any id are safe (stale ones are skipped when popped), but out of heap order they
  // would be popped in another order than saved.
  in.check(std::is_heap(entries.begin(), entries.end(), std::greater<HeapEntry>()), "a heap's entries are not in heap order");
  heap.restore(std::move(entries));
}

void StagedElimination::loadFields(StateReader& in) {
  beta_ = in.f64();
  threshold_ = in.f64();
  const std::uint8_t hasWitness = in.u8();
  witness_ = in.u32();
  const std::uint64_t nextReview = in.u64();
  const std::uint64_t reviewCursor = in.u64();
  for (std::uint64_t* counter : {&queries_, &emptyAnswers_, &repartitions_, &reviews_, &readmissions_, &eliminated_, &randomPlays_,
                                  &boundRecomputations_, &certifiedAnswers_, &boundFallbacks_, &uncertifiedPlays_, &eliminatedPlays_}) {
    *counter = in.u64();
  }
  const std::uint64_t shortlist = in.u64();
  // The shortlist only grows, from the option's value (what the constructor set) up to maxShortlist.
  in.check(shortlist >= shortlist_ && shortlist <= audit_.maxShortlist(), "shortlist is out of range");
  shortlist_ = static_cast<std::size_t>(shortlist);
  audit_.load(in);
  in.check(std::isfinite(beta_) && beta_ >= 0.0, "radius is not a finite non-negative number");
  in.check(hasWitness <= 1, "bad witness flag");
  hasWitness_ = hasWitness == 1;
  // raiseThreshold sets the threshold together with its witness, readmitEliminated resets both.
  in.check(hasWitness_ ? std::isfinite(threshold_) : threshold_ == -INFINITY, "threshold does not match its witness");
  in.check(nextReview >= 1 && nextReview <= static_cast<std::uint64_t>(std::numeric_limits<long>::max()), "review schedule is out of range");
  nextReview_ = static_cast<long>(nextReview);
  // A review under way examines the rows from its cursor on; those before it are done.
  in.check(reviewCursor == ~std::uint64_t{0} || reviewCursor <= arms_.size(), "review cursor is out of range");
  reviewCursor_ = reviewCursor == ~std::uint64_t{0} ? kNotReviewing : static_cast<std::size_t>(reviewCursor);
  std::vector<float> lifted(lift_.liftedDim());
  for (int s = 0; s <= maxStage_; ++s) {
    Stage& stage = stages_[static_cast<std::size_t>(s)];
    stage.index->load(in);
    const std::vector<double> keys = in.f64s();
    const std::vector<Id>& ids = stage.index->items().ids();
    in.check(keys.size() == ids.size(), "a stage's heap does not match its index");
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const Id id = ids[i];
      in.check(arms_.contains(id), "a stage holds arm " + std::to_string(id) + ", which is not in the set");
      in.check(stage.index->labelOf(id) == arms_.labelOf(id), "a stage's index holds another label for arm " + std::to_string(id));
      in.check(std::isfinite(keys[i]), "a heap key is not finite");
      in.check(membership_.emplace(id, Membership{s, keys[i]}).second, "arm " + std::to_string(id) + " is in two stages");
      lift_.liftOuterProduct(arms_.featuresOf(id), lifted.data());
      in.check(stage.index->items().holds(stage.index->items().rowOf(id), lifted.data()),
               "a stage's index holds another vector for arm " + std::to_string(id));
    }
    loadHeap(stage.heap, in);
    loadHeap(stage.nextHeap, in);
    in.check(reviewing() || stage.nextHeap.empty(), "a next heap without a review under way");
    const std::vector<HeapEntry> bounds = loadEntries(in);
    in.check(boundsFirst_ || bounds.empty(), "bounds of a policy that scans");
    for (const auto& [norm, id] : bounds) in.check(norm >= 0.0, "a bound is negative");
    stage.bounds.restore(bounds);
  }
  // The arms in no stage are the eliminated ones.
  for (std::size_t row = 0; row < arms_.size(); ++row) membership_.emplace(arms_.idAt(row), Membership{-1, 0.0});
  in.check(heapsCoverEveryArm(), "an arm in play has no entry with its key in its stage's heap");
  if (hasWitness_) {
    // The witness is never eliminated (raiseThreshold keeps it).
    const auto it = membership_.find(witness_);
    in.check(it != membership_.end() && it->second.stage >= 0, "the threshold's witness is not an arm in play");
  }
}

}  // namespace sublinear
