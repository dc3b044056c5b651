#include "sublinear/mips/lsh_index.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

namespace {
double squaredLength(const float* vector, std::size_t dim) {
  double sum = 0.0;
  for (std::size_t i = 0; i < dim; ++i) sum += static_cast<double>(vector[i]) * vector[i];
  return sum;
}
}  // namespace

LshIndex::LshIndex(std::size_t dim, const Json& options) : MipsIndex(dim) {
  const OptionGroup& specs = option_groups::lsh();
  bits_ = static_cast<std::size_t>(readIntegerOption(specs, options, "bits"));
  tables_ = static_cast<std::size_t>(readIntegerOption(specs, options, "tables"));
  seed_ = readSeedOption(specs, options);
  liftedStride_ = paddedDimension(dim + 1);
}

void LshIndex::makeTables() {
  if (!buckets_.empty()) return;
  // Reserved before anything is set, so that running out of memory here leaves no half-made tables.
  std::vector<float> projections(tables_ * bits_ * liftedStride_, 0.0f);
  std::vector<float> lifted(liftedStride_, 0.0f);
  std::vector<std::unordered_map<std::uint64_t, Bucket>> buckets(tables_);
  // The same draws in the same order whenever they are made: a seed means the same hyperplanes.
  Random random(seed_);
  for (std::size_t row = 0; row < tables_ * bits_; ++row) {
    for (std::size_t i = 0; i <= dim(); ++i) projections[row * liftedStride_ + i] = static_cast<float>(random.normal());
  }
  projections_ = std::move(projections);
  scratch_.lifted = std::move(lifted);
  buckets_ = std::move(buckets);
}

std::uint64_t LshIndex::keyOf(const float* lifted, std::size_t table) const {
  std::uint64_t key = 0;
  const float* row = projections_.data() + table * bits_ * liftedStride_;
  for (std::size_t bit = 0; bit < bits_; ++bit, row += liftedStride_) {
    if (lanes::innerProduct(row, lifted, liftedStride_) >= 0.0f) key |= std::uint64_t{1} << bit;
  }
  return key;
}

void LshIndex::insert(Id id) {
  makeTables();
  Slot slot;
  if (freeSlots_.empty()) {
    slot = static_cast<Slot>(idOfSlot_.size());
    idOfSlot_.push_back(id);
    keys_.resize(keys_.size() + tables_);
    positions_.resize(positions_.size() + tables_);
    scratch_.seenAt.push_back(0);
  } else {
    slot = freeSlots_.back();
    freeSlots_.pop_back();
    idOfSlot_[slot] = id;
  }
  slotOf_[id] = slot;
  // x -> (x / U, sqrt(1 - |x / U|^2)).
  const float* vector = items_.vectorOf(id);
  for (std::size_t i = 0; i < dim(); ++i) scratch_.lifted[i] = static_cast<float>(vector[i] / scale_);
  const double rest = 1.0 - squaredLength(vector, dim()) / (scale_ * scale_);
  scratch_.lifted[dim()] = static_cast<float>(std::sqrt(std::max(0.0, rest)));
  for (std::size_t table = 0; table < tables_; ++table) {
    const std::uint64_t key = keyOf(scratch_.lifted.data(), table);
    Bucket& bucket = buckets_[table][key];
    keys_[slot * tables_ + table] = key;
    positions_[slot * tables_ + table] = static_cast<std::uint32_t>(bucket.size());
    bucket.push_back(slot);
  }
}

void LshIndex::rehash(double scale) {
  scale_ = scale;
  ++rehashes_;
  for (auto& table : buckets_) table.clear();
  slotOf_.clear();
  idOfSlot_.clear();
  keys_.clear();
  positions_.clear();
  freeSlots_.clear();
  scratch_.seenAt.clear();
  for (std::size_t row = 0; row < items_.size(); ++row) insert(items_.idAt(row));
}

void LshIndex::onAdd(const Id* ids, std::size_t count) {
  double batchNorm = 0.0;
  for (std::size_t i = 0; i < count; ++i) batchNorm = std::max(batchNorm, std::sqrt(squaredLength(items_.vectorOf(ids[i]), dim())));
  try {
    makeTables();
    largestNorm_ = std::max(largestNorm_, batchNorm);
    if (scale_ == 0.0 || batchNorm > scale_) {
      // The first build takes U = the largest norm exactly; growth adds headroom so that rehashes
      // stay rare when norms creep upwards. (All-zero items so far: any U > 0 will do.)
      const double scale = largestNorm_ == 0.0 ? 1.0 : (scale_ == 0.0 ? 1.0 : kNormHeadroom) * largestNorm_;
      rehash(scale);
      return;
    }
    for (std::size_t i = 0; i < count; ++i) insert(ids[i]);
  } catch (...) {
    // Out of memory part-way: take the batch back out so the tables match the store again.
    for (std::size_t i = 0; i < count; ++i) {
      if (slotOf_.count(ids[i]) != 0) onRemove(ids + i, 1);
    }
    throw;
  }
}

void LshIndex::onRemove(const Id* ids, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const auto found = slotOf_.find(ids[i]);
    const Slot slot = found->second;
    for (std::size_t table = 0; table < tables_; ++table) {
      const std::uint64_t key = keys_[slot * tables_ + table];
      const auto bucketEntry = buckets_[table].find(key);
      Bucket& bucket = bucketEntry->second;
      const std::uint32_t position = positions_[slot * tables_ + table];
      const Slot moved = bucket.back();
      bucket[position] = moved;
      positions_[moved * tables_ + table] = position;
      bucket.pop_back();
      if (bucket.empty()) buckets_[table].erase(bucketEntry);
    }
    slotOf_.erase(found);
    freeSlots_.push_back(slot);
  }
}

void LshIndex::collect(std::size_t table, std::uint64_t key, QueryScratch& scratch, std::vector<Id>& out) const {
  const auto found = buckets_[table].find(key);
  if (found == buckets_[table].end()) return;
  for (const Slot slot : found->second) {
    if (scratch.seenAt[slot] == scratch.queries) continue;
    scratch.seenAt[slot] = scratch.queries;
    out.push_back(idOfSlot_[slot]);
  }
}

void LshIndex::prepareConcurrentSearches() {
  // An empty index is never searched (search() returns first): nothing made, as in order.
  if (size() > 0) makeTables();
}

void LshIndex::runSearchThread(const std::function<void()>& searches) {
  QueryScratch mine;
  mine.seenAt.assign(scratch_.seenAt.size(), 0);
  mine.lifted.assign(liftedStride_, 0.0f);
  const BatchScratch<QueryScratch> batch(this, &mine);
  searches();
}

std::vector<Id> LshIndex::candidates(const float* paddedQuery, std::size_t count) {
  QueryScratch* const batch = BatchScratch<QueryScratch>::of(this);
  // A batch made the tables before its threads started (prepareConcurrentSearches).
  if (batch == nullptr) makeTables();
  QueryScratch& scratch = batch != nullptr ? *batch : scratch_;
  ++scratch.queries;
  // q -> (q / |q|, 0): the signs do not depend on the positive factor 1 / |q|, so it is skipped.
  std::copy(paddedQuery, paddedQuery + dim(), scratch.lifted.begin());
  std::fill(scratch.lifted.begin() + static_cast<std::ptrdiff_t>(dim()), scratch.lifted.end(), 0.0f);
  std::vector<std::uint64_t> queryKeys(tables_);
  for (std::size_t table = 0; table < tables_; ++table) queryKeys[table] = keyOf(scratch.lifted.data(), table);
  countInnerProducts(static_cast<double>(tables_ * bits_) * static_cast<double>(liftedStride_) / static_cast<double>(dim()));
  std::vector<Id> out;
  for (std::size_t table = 0; table < tables_; ++table) collect(table, queryKeys[table], scratch, out);
  // Too few collisions: multi-probe the neighbouring buckets (one sign flipped).
  for (std::size_t bit = 0; bit < bits_ && out.size() < count; ++bit) {
    for (std::size_t table = 0; table < tables_ && out.size() < count; ++table) {
      collect(table, queryKeys[table] ^ (std::uint64_t{1} << bit), scratch, out);
    }
  }
  return out;
}

// Slots in slot order, the free ones as zeros: their old keys and positions are never read again,
// and writing them keeps the state as large as the arrays it restores (so a hostile slot count
// cannot allocate more than its bytes). The searches' stamps (scratch_.seenAt, scratch_.queries) are
// not saved: between searches no slot is marked with the current search number, which is all that
// deduplication needs.
void LshIndex::saveStructure(StateWriter& out) const {
  out.f64(scale_);
  out.f64(largestNorm_);
  out.u64(rehashes_);
  out.u64(idOfSlot_.size());
  out.u32s(freeSlots_.data(), freeSlots_.size());
  std::vector<char> free(idOfSlot_.size(), 0);
  for (const Slot slot : freeSlots_) free[slot] = 1;
  for (std::size_t slot = 0; slot < idOfSlot_.size(); ++slot) {
    out.u32(free[slot] ? 0 : idOfSlot_[slot]);
    for (std::size_t table = 0; table < tables_; ++table) out.u64(free[slot] ? 0 : keys_[slot * tables_ + table]);
    for (std::size_t table = 0; table < tables_; ++table) out.u32(free[slot] ? 0 : positions_[slot * tables_ + table]);
  }
}

void LshIndex::loadStructure(StateReader& in) {
  scale_ = in.f64();
  largestNorm_ = in.f64();
  in.check(std::isfinite(scale_) && scale_ >= 0.0, "lsh: the scale U is not a finite non-negative number");
  in.check(std::isfinite(largestNorm_) && largestNorm_ >= 0.0 && largestNorm_ <= scale_, "lsh: the largest norm is not in [0, U]");
  for (std::size_t row = 0; row < items_.size(); ++row) {
    in.check(std::sqrt(squaredLength(items_.rowData(row), dim())) <= largestNorm_, "lsh: an item is longer than the largest norm");
  }
  rehashes_ = in.u64();

  const std::size_t slots = in.count(sizeof(Id) + tables_ * (sizeof(std::uint64_t) + sizeof(std::uint32_t)));
  in.check(slots < std::numeric_limits<Slot>::max(), "lsh: too many slots");
  in.check(scale_ > 0.0 || slots == 0, "lsh: slots before the first build");
  freeSlots_ = in.u32s();
  in.check(freeSlots_.size() <= slots && slots - freeSlots_.size() == items_.size(), "lsh: the slots do not hold the stored items");
  std::vector<char> free(slots, 0);
  for (const Slot slot : freeSlots_) {
    in.check(slot < slots && !free[slot], "lsh: a free slot is out of range or listed twice");
    free[slot] = 1;
  }
  idOfSlot_.assign(slots, 0);
  keys_.assign(slots * tables_, 0);
  positions_.assign(slots * tables_, 0);
  scratch_.seenAt.assign(slots, 0);
  slotOf_.reserve(items_.size());
  const std::uint64_t keyLimit = bits_ == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << bits_) - 1;
  for (std::size_t slot = 0; slot < slots; ++slot) {
    idOfSlot_[slot] = in.u32();
    for (std::size_t table = 0; table < tables_; ++table) keys_[slot * tables_ + table] = in.u64();
    for (std::size_t table = 0; table < tables_; ++table) positions_[slot * tables_ + table] = in.u32();
    if (free[slot]) {
      bool blank = idOfSlot_[slot] == 0;
      for (std::size_t table = 0; table < tables_; ++table) {
        blank = blank && keys_[slot * tables_ + table] == 0 && positions_[slot * tables_ + table] == 0;
      }
      in.check(blank, "lsh: a free slot holds an item");
      continue;
    }
    const Id id = idOfSlot_[slot];
    in.check(items_.contains(id), "lsh: slot of item " + std::to_string(id) + ", which is not stored");
    in.check(slotOf_.emplace(id, static_cast<Slot>(slot)).second, "lsh: item " + std::to_string(id) + " has two slots");
    for (std::size_t table = 0; table < tables_; ++table) {
      in.check(keys_[slot * tables_ + table] <= keyLimit, "lsh: a key has more bits than the tables");
    }
  }

  // The buckets follow from the keys and positions: each must hold its slots at positions 0..size-1.
  // The tables are made only for stored slots, which paid for them with their bytes (tables_ keys
  // each); an index restored empty makes them when its first item or query arrives.
  if (slots > 0) makeTables();
  constexpr Slot kUnset = std::numeric_limits<Slot>::max();
  for (std::size_t slot = 0; slot < slots; ++slot) {
    if (free[slot]) continue;
    for (std::size_t table = 0; table < tables_; ++table) buckets_[table][keys_[slot * tables_ + table]].push_back(kUnset);
  }
  for (std::size_t slot = 0; slot < slots; ++slot) {
    if (free[slot]) continue;
    for (std::size_t table = 0; table < tables_; ++table) {
      Bucket& bucket = buckets_[table][keys_[slot * tables_ + table]];
      const std::uint32_t position = positions_[slot * tables_ + table];
      in.check(position < bucket.size() && bucket[position] == kUnset, "lsh: a bucket position is out of range or taken twice");
      bucket[position] = static_cast<Slot>(slot);
    }
  }
}

Json LshIndex::stats() const {
  Json result = MipsIndex::stats();
  result["bits"] = bits_;
  result["tables"] = tables_;
  result["scale"] = scale_;
  result["rehashes"] = rehashes_;
  std::size_t buckets = 0;
  for (const auto& table : buckets_) buckets += table.size();
  result["buckets"] = buckets;
  result["slots"] = idOfSlot_.size();
  return result;
}

}  // namespace sublinear
