#include "sublinear/mips/greedy_mips_index.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

GreedyMipsIndex::GreedyMipsIndex(std::size_t dim, const Json& options)
    : MipsIndex(dim),
      budget_(static_cast<std::size_t>(readIntegerOption(option_groups::greedy(), options, "budget", 0))),
      budgetFraction_(readOption(option_groups::greedy(), options, "budgetFraction")) {
  require(!(options.contains("budget") && options.contains("budgetFraction")), ErrorCode::InvalidArgument,
          "give either option 'budget' (candidates) or 'budgetFraction' (of the size), not both");
  // Accepted like every index's seed, and validated like it, though Greedy-MIPS draws no random numbers.
  readSeedOption(option_groups::greedy(), options);
}

void GreedyMipsIndex::makeLists() {
  if (lists_.empty()) lists_.resize(dim());
}

void GreedyMipsIndex::onAdd(const Id* ids, std::size_t count) {
  makeLists();
  // Reserve everything first so that the additions below cannot fail halfway.
  const std::size_t slots = slotId_.size() + count;
  for (auto& list : lists_) list.reserve(slots);
  slotId_.reserve(slots);
  slotAlive_.reserve(slots);
  slotOf_.reserve(slotOf_.size() + count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto slot = static_cast<std::uint32_t>(slotId_.size());
    slotId_.push_back(ids[i]);
    slotAlive_.push_back(1);
    slotOf_[ids[i]] = slot;
    const float* vector = items_.vectorOf(ids[i]);
    for (std::size_t j = 0; j < dim(); ++j) lists_[j].push_back({vector[j], slot});
  }
}

void GreedyMipsIndex::onRemove(const Id* ids, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const auto it = slotOf_.find(ids[i]);
    slotAlive_[it->second] = 0;
    slotOf_.erase(it);
    ++deadSlots_;
  }
}

void GreedyMipsIndex::mergePending() {
  const std::size_t length = slotId_.size();
  if (sortedLength_ == length) return;
  for (auto& list : lists_) {
    const auto middle = list.begin() + static_cast<std::ptrdiff_t>(sortedLength_);
    std::sort(middle, list.end());
    std::inplace_merge(list.begin(), middle, list.end());
  }
  sortedLength_ = length;
}

void GreedyMipsIndex::compact() {
  // Renumbering live slots in increasing order keeps every sorted list sorted.
  std::vector<std::uint32_t> renumbered(slotId_.size(), std::numeric_limits<std::uint32_t>::max());
  std::vector<Id> liveIds;
  liveIds.reserve(slotId_.size() - deadSlots_);
  for (std::size_t slot = 0; slot < slotId_.size(); ++slot) {
    if (!slotAlive_[slot]) continue;
    renumbered[slot] = static_cast<std::uint32_t>(liveIds.size());
    liveIds.push_back(slotId_[slot]);
  }
  for (auto& list : lists_) {
    std::size_t out = 0;
    for (const Entry& entry : list) {
      if (slotAlive_[entry.slot]) list[out++] = {entry.value, renumbered[entry.slot]};
    }
    list.resize(out);
    list.shrink_to_fit();
  }
  slotId_ = std::move(liveIds);
  slotAlive_.assign(slotId_.size(), 1);
  for (std::size_t slot = 0; slot < slotId_.size(); ++slot) slotOf_[slotId_[slot]] = static_cast<std::uint32_t>(slot);
  sortedLength_ = slotId_.size();
  deadSlots_ = 0;
}

bool GreedyMipsIndex::settled() const { return sortedLength_ == slotId_.size() && !compactionDue(); }

void GreedyMipsIndex::settle() {
  mergePending();
  if (compactionDue()) compact();
}

bool GreedyMipsIndex::searchesConcurrently(const SearchOptions& options) const { return !options.filtersAnything() || settled(); }

void GreedyMipsIndex::prepareConcurrentSearches() {
  // An empty index is never screened (search() returns first): nothing to settle, as in order.
  if (size() > 0) settle();
}

void GreedyMipsIndex::runSearchThread(const std::function<void()>& searches) {
  BatchThread mine;
  {
    const BatchScratch<BatchThread> batch(this, &mine);
    searches();
  }
  // The products counted are floor(screened / dim) differences: folded in any order, they sum to
  // what the searches one after the other counted.
  const std::lock_guard<std::mutex> lock(batchGuard_);
  countScreened(mine.steps);
}

void GreedyMipsIndex::countScreened(std::uint64_t steps) {
  countInnerProducts(static_cast<double>((screened_ + steps) / dim() - screened_ / dim()));
  screened_ += steps;
}

std::vector<Id> GreedyMipsIndex::candidates(const float* paddedQuery, std::size_t count) { return screen(paddedQuery, count, nullptr); }

std::vector<Id> GreedyMipsIndex::filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) {
  // A budget of half the eligible items or more: ranking them all costs about as much as screening
  // for them, exactly.
  const double budget = budget_ > 0 ? static_cast<double>(budget_) : budgetFraction_ * static_cast<double>(size());
  if (2.0 * std::max(budget, static_cast<double>(count)) >= static_cast<double>(eligible.count())) return scanEligible(paddedQuery, count, eligible);
  return screen(paddedQuery, count, &eligible);
}

std::vector<Id> GreedyMipsIndex::screen(const float* paddedQuery, std::size_t count, const Eligibility* eligible) {
  BatchThread* const batch = BatchScratch<BatchThread>::of(this);
  // A batch settled the lists before its threads started (prepareConcurrentSearches).
  if (batch == nullptr) settle();
  const std::size_t n = eligible ? eligible->count() : size();
  std::size_t budget = budget_ > 0 ? budget_ : static_cast<std::size_t>(std::ceil(budgetFraction_ * static_cast<double>(size())));
  budget = std::min(n, std::max(budget, count));
  const auto admits = [&](Id id) { return !eligible || eligible->admitsRow(items_.rowOf(id)); };

  // The heap holds, per coordinate, the term x_ij q_j of the next entry of its walk; larger terms
  // first, ties to the smaller coordinate so that both builds screen in the same order.
  using Head = std::pair<float, std::uint32_t>;
  const auto lower = [](const Head& a, const Head& b) { return a.first < b.first || (a.first == b.first && a.second > b.second); };
  std::priority_queue<Head, std::vector<Head>, decltype(lower)> heap(lower);
  const std::size_t length = slotId_.size();
  std::vector<std::size_t> walked(dim(), 0);  // entries consumed per coordinate
  const auto entryAt = [&](std::size_t j) -> const Entry& {
    // Descending values for q_j >= 0, ascending for q_j < 0: either way the term decreases.
    return paddedQuery[j] >= 0 ? lists_[j][length - 1 - walked[j]] : lists_[j][walked[j]];
  };
  if (length > 0) {
    for (std::size_t j = 0; j < dim(); ++j) heap.emplace(entryAt(j).value * paddedQuery[j], static_cast<std::uint32_t>(j));
  }
  std::vector<char>& seen = batch != nullptr ? batch->seen : seen_;
  seen.resize(length, 0);
  std::vector<Id> ids;
  std::vector<std::uint32_t> seenSlots;
  ids.reserve(budget);
  std::uint64_t steps = 0;
  while (ids.size() < budget && !heap.empty()) {
    const std::uint32_t j = heap.top().second;
    heap.pop();
    const std::uint32_t slot = entryAt(j).slot;
    ++steps;
    if (++walked[j] < length) heap.emplace(entryAt(j).value * paddedQuery[j], j);
    if (slotAlive_[slot] && !seen[slot]) {
      seen[slot] = 1;
      seenSlots.push_back(slot);
      if (admits(slotId_[slot])) ids.push_back(slotId_[slot]);
    }
  }
  for (const std::uint32_t slot : seenSlots) seen[slot] = 0;
  // A screening step is one multiplication: 1/dim of an inner product (fractions carried over).
  if (batch != nullptr) {
    batch->steps += steps;
  } else {
    countScreened(steps);
  }
  return ids;
}

// Per slot its liveness, then a live slot's id (its values are the stored item's) or a dead slot's
// values (the removed item's, which still order the lists until a compaction). Of every list only
// the sorted prefix is written: the tail holds slot i at position i, as onAdd appends it.
void GreedyMipsIndex::saveStructure(StateWriter& out) const {
  // A dead slot's values are only in the lists.
  std::vector<std::size_t> deadIndex(slotId_.size(), 0);
  std::size_t dead = 0;
  for (std::size_t slot = 0; slot < slotId_.size(); ++slot) {
    if (!slotAlive_[slot]) deadIndex[slot] = dead++;
  }
  std::vector<float> deadValues(dead * dim());
  for (std::size_t j = 0; j < lists_.size(); ++j) {
    for (const Entry& entry : lists_[j]) {
      if (!slotAlive_[entry.slot]) deadValues[deadIndex[entry.slot] * dim() + j] = entry.value;
    }
  }
  out.u64(slotId_.size());
  for (std::size_t slot = 0; slot < slotId_.size(); ++slot) {
    out.u8(slotAlive_[slot] ? 1 : 0);
    if (slotAlive_[slot]) {
      out.u32(slotId_[slot]);
      continue;
    }
    for (std::size_t j = 0; j < dim(); ++j) out.f32(deadValues[deadIndex[slot] * dim() + j]);
  }
  out.u64(sortedLength_);
  for (const auto& list : lists_) {
    for (std::size_t i = 0; i < sortedLength_; ++i) out.u32(list[i].slot);
  }
  out.u64(screened_);
}

void GreedyMipsIndex::loadStructure(StateReader& in) {
  // A live slot takes a flag and an id here, a dead one a flag and its values; the lists allocated
  // below take 8 dim bytes per slot, covered by the slot's values here or its item's in the store.
  const std::size_t slots = in.count(1 + sizeof(Id));
  in.check(slots <= std::numeric_limits<std::uint32_t>::max(), "greedy: too many slots");
  // Each slot's values: a stored row for a live slot, the saved values for a dead one.
  std::vector<const float*> valuesOf(slots);
  std::vector<float> deadValues;
  std::vector<std::size_t> deadSlots;
  slotId_.assign(slots, 0);
  slotAlive_.assign(slots, 0);
  for (std::size_t slot = 0; slot < slots; ++slot) {
    const std::uint8_t alive = in.u8();
    in.check(alive <= 1, "greedy: bad slot flag");
    slotAlive_[slot] = static_cast<char>(alive);
    if (alive) {
      const Id id = in.u32();
      in.check(items_.contains(id), "greedy: slot of item " + std::to_string(id) + ", which is not stored");
      in.check(slotOf_.emplace(id, static_cast<std::uint32_t>(slot)).second, "greedy: item " + std::to_string(id) + " has two slots");
      slotId_[slot] = id;
      valuesOf[slot] = items_.vectorOf(id);
      continue;
    }
    deadSlots.push_back(slot);
    for (std::size_t j = 0; j < dim(); ++j) {
      const float value = in.f32();
      in.check(std::isfinite(value) && std::fabs(value) <= kMaxMagnitude, "greedy: a removed item's value is not finite or exceeds 1e15");
      deadValues.push_back(value);
    }
  }
  in.check(slotOf_.size() == items_.size(), "greedy: a stored item has no slot");
  for (std::size_t d = 0; d < deadSlots.size(); ++d) valuesOf[deadSlots[d]] = deadValues.data() + d * dim();
  deadSlots_ = deadSlots.size();

  const std::uint64_t sorted = in.u64();
  in.check(sorted <= slots, "greedy: the sorted prefix is longer than the lists");
  sortedLength_ = static_cast<std::size_t>(sorted);
  // Which list last placed each slot: a slot placed twice in one list is a repeat.
  std::vector<std::uint32_t> placedIn(slots, 0);
  // Slots paid for the lists with their bytes (see above); without slots none are made.
  if (slots > 0) makeLists();
  for (std::size_t j = 0; j < lists_.size(); ++j) {
    auto& list = lists_[j];
    list.resize(slots);
    for (std::size_t i = 0; i < sortedLength_; ++i) {
      const std::uint32_t slot = in.u32();
      in.check(slot < sortedLength_ && placedIn[slot] != j + 1, "greedy: a sorted list holds a slot out of range or twice");
      placedIn[slot] = static_cast<std::uint32_t>(j + 1);
      list[i] = {valuesOf[slot][j], slot};
      in.check(i == 0 || list[i - 1] < list[i], "greedy: a list's prefix is not sorted");
    }
    for (std::size_t slot = sortedLength_; slot < slots; ++slot) list[slot] = {valuesOf[slot][j], static_cast<std::uint32_t>(slot)};
  }
  screened_ = in.u64();
}

Json GreedyMipsIndex::stats() const {
  Json stats = MipsIndex::stats();
  stats["screened"] = screened_;
  stats["budget"] = budget_;
  stats["budgetFraction"] = budgetFraction_;
  return stats;
}

}  // namespace sublinear
