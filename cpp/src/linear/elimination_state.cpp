#include "sublinear/linear/staged_elimination.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

// StagedElimination's own fields in a saved state (docs/state-format.md), and their checks on load.

namespace sublinear {

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
  audit_.load(in, lift_.liftedDim());
  in.check(!audit_.pending() || audit_.pendingSource() < stages_.size(), "a pending audit of a stage that does not exist");
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
