#include "sublinear/mips/item_attributes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "sublinear/core/error.hpp"
#include "sublinear/core/limits.hpp"

namespace sublinear {

namespace {
const std::vector<std::uint32_t> kNoPostedRows;
constexpr double kMissingValue = std::numeric_limits<double>::quiet_NaN();

void checkValueName(const std::string& name) {
  if (name.empty() || name.size() > kMaxValueNameBytes) {
    fail(ErrorCode::InvalidArgument, "a value name must have 1 to " + std::to_string(kMaxValueNameBytes) + " bytes, got " + std::to_string(name.size()));
  }
}
}  // namespace

void AttributeFilter::check() const {
  const auto checkLabels = [](const std::vector<Label>& list, const char* key) {
    if (list.size() > kMaxFilterLabels) {
      fail(ErrorCode::InvalidArgument, std::string("a filter's ") + key + " may list at most " + std::to_string(kMaxFilterLabels) + " labels");
    }
  };
  checkLabels(labels, "labels");
  checkLabels(allLabels, "allLabels");
  checkLabels(noLabels, "noLabels");
  if (where.size() > kMaxValueNames) {
    fail(ErrorCode::InvalidArgument, "a filter's where may name at most " + std::to_string(kMaxValueNames) + " values");
  }
  for (std::size_t i = 0; i < where.size(); ++i) {
    const ValueRange& range = where[i];
    checkValueName(range.name);
    if (std::isnan(range.low) || std::isnan(range.high)) fail(ErrorCode::InvalidArgument, "where." + range.name + " has a bound that is not a number");
    if (range.low > range.high) fail(ErrorCode::InvalidArgument, "where." + range.name + " is empty: its low bound is above its high bound");
    for (std::size_t j = 0; j < i; ++j) {
      if (where[j].name == range.name) fail(ErrorCode::InvalidArgument, "where names " + range.name + " twice");
    }
  }
}

void AttributeFilter::save(StateWriter& out) const {
  for (const auto* list : {&labels, &allLabels, &noLabels}) out.u32s(list->data(), list->size());
  out.u64(where.size());
  for (const ValueRange& range : where) {
    out.string(range.name);
    out.f64(range.low);
    out.f64(range.high);
  }
}

AttributeFilter AttributeFilter::load(StateReader& in) {
  AttributeFilter filter;
  for (auto* list : {&filter.labels, &filter.allLabels, &filter.noLabels}) *list = in.u32s();
  // A range takes at least its name's length and two bounds.
  const std::size_t ranges = in.count(8 + 2 * 8);
  for (std::size_t i = 0; i < ranges; ++i) {
    ValueRange range;
    range.name = in.string();
    range.low = in.f64();
    range.high = in.f64();
    filter.where.push_back(std::move(range));
  }
  try {
    filter.check();
  } catch (const Error& error) {
    in.check(false, std::string("a saved filter: ") + error.what());
  }
  return filter;
}

bool ItemAttributes::hasLabel(std::size_t row, Label label) const {
  const Label* labels = labelsAt(row);
  return std::binary_search(labels, labels + counts_[row], label);
}

std::size_t ItemAttributes::count(Label label) const {
  const auto found = postings_.find(label);
  return found == postings_.end() ? 0 : found->second.size();
}

const std::vector<std::uint32_t>& ItemAttributes::rowsOf(Label label) const {
  const auto found = postings_.find(label);
  return found == postings_.end() ? kNoPostedRows : found->second;
}

int ItemAttributes::valueColumn(const std::string& name) const {
  const auto found = std::find(names_.begin(), names_.end(), name);
  return found == names_.end() ? -1 : static_cast<int>(found - names_.begin());
}

ItemAttributes ItemAttributes::withLabels(const Label* labels, std::size_t count) {
  ItemAttributes batch;
  batch.reserve(count);
  for (std::size_t i = 0; i < count; ++i) batch.append(labels != nullptr ? labels[i] : 0);
  return batch;
}

void ItemAttributes::reserve(std::size_t rows) {
  counts_.reserve(rows);
  single_.reserve(rows);
  positions_.reserve(rows);
  for (auto& column : values_) column.reserve(rows);
}

std::uint32_t& ItemAttributes::positionOf(std::size_t row, Label label) {
  if (counts_[row] == 1) return positions_[row];
  Several& several = several_[single_[row]];
  const auto at = std::lower_bound(several.labels.begin(), several.labels.end(), label) - several.labels.begin();
  return several.positions[static_cast<std::size_t>(at)];
}

void ItemAttributes::link(std::size_t row) {
  const Label* labels = labelsAt(row);
  for (std::size_t i = 0; i < counts_[row]; ++i) {
    std::vector<std::uint32_t>& rows = postings_[labels[i]];
    positionOf(row, labels[i]) = static_cast<std::uint32_t>(rows.size());
    rows.push_back(static_cast<std::uint32_t>(row));
  }
}

void ItemAttributes::unlink(std::size_t row) {
  // Out of each posting list: the list's last entry takes its place.
  const Label* labels = labelsAt(row);
  for (std::size_t i = 0; i < counts_[row]; ++i) {
    const auto list = postings_.find(labels[i]);
    std::vector<std::uint32_t>& rows = list->second;
    const std::uint32_t position = positionOf(row, labels[i]);
    const std::uint32_t moved = rows.back();
    rows[position] = moved;
    positionOf(moved, labels[i]) = position;
    rows.pop_back();
    if (rows.empty()) postings_.erase(list);
  }
}

void ItemAttributes::relink(std::size_t row) {
  const Label* labels = labelsAt(row);
  for (std::size_t i = 0; i < counts_[row]; ++i) postings_.find(labels[i])->second[positionOf(row, labels[i])] = static_cast<std::uint32_t>(row);
}

void ItemAttributes::assignLabels(std::size_t row, const Label* labels, std::size_t count) {
  if (counts_[row] >= 2) releaseSlot(single_[row]);
  if (counts_[row] == 0) --unlabelledRows_;
  if (count == 0) ++unlabelledRows_;
  counts_[row] = static_cast<std::uint32_t>(count);
  single_[row] = count == 1 ? labels[0] : 0;
  if (count >= 2) single_[row] = takeSlot(Several{std::vector<Label>(labels, labels + count), std::vector<std::uint32_t>(count, 0)});
}

std::uint32_t ItemAttributes::takeSlot(Several several) {
  if (freeSlots_.empty()) {
    several_.push_back(std::move(several));
    return static_cast<std::uint32_t>(several_.size() - 1);
  }
  const std::uint32_t slot = freeSlots_.back();
  freeSlots_.pop_back();
  several_[slot] = std::move(several);
  return slot;
}

void ItemAttributes::releaseSlot(std::uint32_t slot) {
  several_[slot] = Several{};
  freeSlots_.push_back(slot);
}

void ItemAttributes::append(Label label) { append(&label, 1); }

void ItemAttributes::append(const Label* labels, std::size_t count) {
  // Before anything is copied: 10^6 labels on one item cost nothing to refuse.
  if (count > kMaxLabelsPerItem) {
    fail(ErrorCode::InvalidArgument, "an item may carry at most " + std::to_string(kMaxLabelsPerItem) + " labels, got " + std::to_string(count));
  }
  std::vector<Label> sorted(labels, labels + count);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const std::size_t row = size();
  // One label until assignLabels counts the row's own.
  counts_.push_back(1);
  single_.push_back(0);
  positions_.push_back(0);
  for (auto& column : values_) column.push_back(kMissingValue);
  assignLabels(row, sorted.data(), sorted.size());
  link(row);
}

std::size_t ItemAttributes::addValueColumn(const std::string& name) {
  checkValueName(name);
  if (valueColumn(name) >= 0) fail(ErrorCode::InvalidArgument, "the value " + name + " is given twice");
  if (names_.size() >= kMaxValueNames) fail(ErrorCode::InvalidArgument, "a store holds at most " + std::to_string(kMaxValueNames) + " named values");
  names_.push_back(name);
  values_.emplace_back(size(), kMissingValue);
  return names_.size() - 1;
}

void ItemAttributes::setValue(std::size_t column, std::size_t row, double value) {
  if (!std::isfinite(value)) fail(ErrorCode::NonFinite, "the value " + names_[column] + " of item " + std::to_string(row) + " is not finite");
  values_[column][row] = value;
}

void ItemAttributes::checkColumns(const ItemAttributes& batch) const {
  std::size_t columns = names_.size();
  for (const std::string& name : batch.names_) columns += valueColumn(name) < 0 ? 1 : 0;
  if (columns > kMaxValueNames) fail(ErrorCode::InvalidArgument, "a store holds at most " + std::to_string(kMaxValueNames) + " named values");
}

void ItemAttributes::appendRows(const ItemAttributes& batch, std::size_t first, std::size_t count) {
  reserve(size() + count);
  for (std::size_t i = 0; i < count; ++i) appendRowOf(batch, first + i);
}

void ItemAttributes::appendRowOf(const ItemAttributes& from, std::size_t row) {
  append(from.labelsAt(row), from.labelCount(row));
  setValues(size() - 1, from, row);
}

void ItemAttributes::setLabels(std::size_t row, const ItemAttributes& batch, std::size_t batchRow) {
  unlink(row);
  assignLabels(row, batch.labelsAt(batchRow), batch.labelCount(batchRow));
  link(row);
}

void ItemAttributes::setValues(std::size_t row, const ItemAttributes& batch, std::size_t batchRow) {
  for (std::size_t c = 0; c < batch.names_.size(); ++c) {
    const double value = batch.values_[c][batchRow];
    if (std::isnan(value)) continue;
    int column = valueColumn(batch.names_[c]);
    if (column < 0) column = static_cast<int>(addValueColumn(batch.names_[c]));
    values_[static_cast<std::size_t>(column)][row] = value;
  }
}

void ItemAttributes::removeRow(std::size_t row) {
  unlink(row);
  if (counts_[row] == 0) --unlabelledRows_;
  if (counts_[row] >= 2) releaseSlot(single_[row]);
  const std::size_t last = size() - 1;
  if (row != last) {
    // The last row's attributes (and its labels' slot, named by single_) move into the hole, and its
    // posting entries follow.
    counts_[row] = counts_[last];
    single_[row] = single_[last];
    positions_[row] = positions_[last];
    for (auto& column : values_) column[row] = column[last];
    relink(row);
  }
  counts_.pop_back();
  single_.pop_back();
  positions_.pop_back();
  for (auto& column : values_) column.pop_back();
}

void ItemAttributes::swapRows(std::size_t a, std::size_t b) {
  if (a == b) return;
  std::swap(counts_[a], counts_[b]);
  std::swap(single_[a], single_[b]);
  std::swap(positions_[a], positions_[b]);
  for (auto& column : values_) std::swap(column[a], column[b]);
  relink(a);
  relink(b);
}

bool ItemAttributes::sameRow(std::size_t a, const ItemAttributes& other, std::size_t b) const {
  if (counts_[a] != other.counts_[b] || !std::equal(labelsAt(a), labelsAt(a) + counts_[a], other.labelsAt(b))) return false;
  for (std::size_t c = 0; c < names_.size(); ++c) {
    const int theirs = other.valueColumn(names_[c]);
    const double mine = values_[c][a];
    const double value = theirs < 0 ? kMissingValue : other.values_[static_cast<std::size_t>(theirs)][b];
    if (!(mine == value || (std::isnan(mine) && std::isnan(value)))) return false;
  }
  // A value only the other holds differs too (a column this store lacks is NaN here).
  for (std::size_t c = 0; c < other.names_.size(); ++c) {
    if (valueColumn(other.names_[c]) < 0 && !std::isnan(other.values_[c][b])) return false;
  }
  return true;
}

void ItemAttributes::save(StateWriter& out) const {
  // One label per row (every row of a store given single labels, format 4's layout) or, per row, a
  // count then the labels.
  out.u8(severalLabels() ? 1 : 0);
  if (!severalLabels()) {
    out.u32s(single_.data(), single_.size());
  } else {
    out.u32s(counts_.data(), counts_.size());
    std::vector<Label> flat;
    for (std::size_t row = 0; row < size(); ++row) flat.insert(flat.end(), labelsAt(row), labelsAt(row) + counts_[row]);
    out.u32s(flat.data(), flat.size());
  }
  out.u64(names_.size());
  for (std::size_t c = 0; c < names_.size(); ++c) {
    out.string(names_[c]);
    out.f64s(values_[c].data(), values_[c].size());
  }
}

void ItemAttributes::load(StateReader& in, std::size_t rows) {
  in.check(size() == 0, "attributes can only be restored into an empty store");
  const std::uint8_t several = in.u8();
  in.check(several <= 1, "the labels' layout is unknown");
  std::vector<std::uint32_t> counts;
  std::vector<Label> flat = in.u32s();
  if (several == 1) {
    counts = std::move(flat);
    flat = in.u32s();
  } else {
    counts.assign(flat.size(), 1);
  }
  in.check(counts.size() == rows, "the store holds " + std::to_string(rows) + " items but labels for " + std::to_string(counts.size()));
  reserve(rows);
  std::size_t at = 0;
  for (const std::uint32_t count : counts) {
    in.check(count <= kMaxLabelsPerItem && count <= flat.size() - at, "an item's label list is out of range");
    // Saved sorted and distinct: anything else is damage.
    for (std::size_t i = at + 1; i < at + count; ++i) in.check(flat[i - 1] < flat[i], "an item's labels are not sorted and distinct");
    append(flat.data() + at, count);
    at += count;
  }
  in.check(at == flat.size(), "the label lists hold more labels than their counts");
  const std::size_t columns = in.count(8);
  in.check(columns <= kMaxValueNames, "more named values than a store holds");
  for (std::size_t c = 0; c < columns; ++c) {
    const std::string name = in.string();
    in.check(!name.empty() && name.size() <= kMaxValueNameBytes && valueColumn(name) < 0, "a value name is invalid or repeated");
    std::vector<double> column = in.f64s();
    in.check(column.size() == rows, "a named value does not have one entry per item");
    for (const double value : column) in.check(std::isnan(value) || std::isfinite(value), "a named value is infinite");
    names_.push_back(name);
    values_.push_back(std::move(column));
  }
}

}  // namespace sublinear
