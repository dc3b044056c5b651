#include "sublinear/linear/staged_elimination.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/elimination_stages.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

// The stages of StagedElimination: placing arms, the threshold and the eliminations it brings,
// re-partitions, the selection loops and the statistics. Elsewhere: arm additions and removals
// (elimination_arm_changes.cpp), the review of every arm and its threads (elimination_review.cpp),
// the search through the bounds (elimination_bounds_search.cpp), what a stage search does when the
// bounds' budget runs out, with the audits (elimination_budget.cpp), and the state
// (elimination_state.cpp).

namespace sublinear {

StagedElimination::StagedElimination(std::string type, const std::string& defaultIndex, bool boundsFirst, int dim,
                                     const Json& options)
    : RidgePolicy(dim, options, dim, RidgeRegression::Form::InverseOnly),
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
  ItemAttributes attributes;
  attributes.reserve(arms.size());
  for (std::size_t i = 0; i < arms.size(); ++i) {
    ids[i] = arms[i].id;
    const std::size_t row = arms_.rowOf(arms[i].id);
    lift_.liftOuterProduct(arms_.rowData(row), vectors.data() + i * lifted);
    attributes.appendRowOf(arms_.attributes(), row);
  }
  // The arms' attributes go with their lifts, so that a stage's filtered search sees them.
  target.index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), attributes);
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

std::size_t StagedElimination::buildIndex(std::size_t maxItems) {
  std::size_t waiting = 0;
  for (auto& stage : stages_) waiting += stage.index->build(maxItems);
  return waiting;
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

Id StagedElimination::randomArmOf(int stage) {
  const VectorStore& items = stages_[static_cast<std::size_t>(stage)].index->items();
  return items.idAt(static_cast<std::size_t>(random_.uniformInt(items.size())));
}

Id StagedElimination::chooseArm() {
  refreshRadius();
  std::size_t work = kUpkeepWork;
  upkeep(work);
  advanceAudit();
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
    if (const std::optional<Id> answer = answerStage(stage, query, searchOptions)) return *answer;
    ++emptyAnswers_;
    // No arm of this stage is uncertain enough (or the index missed it): re-partition exactly.
    const auto [mostUncertain, u] = repartition(stage, work);
    const auto it = membership_.find(mostUncertain);
    if (u >= acceptance(stage) && it != membership_.end() && it->second.stage == stage) return mostUncertain;
  }
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
  // The filter's posting lists when it names labels, every row otherwise: O(eligible) or O(K).
  if (eligible.walksPostings()) {
    eligible.forEachPostedRow(0, consider);
  } else {
    for (std::size_t row = 0; row < arms_.size(); ++row) consider(row);
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
  advanceAudit();
  std::vector<float> query(lift_.liftedDim());
  lift_.liftSymmetric(ridge_.inverseGram(), query.data());
  SearchOptions filters;
  filters.exclude = filter.exclude;
  static_cast<AttributeFilter&>(filters) = filter;
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

}  // namespace sublinear
