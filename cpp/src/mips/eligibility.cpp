#include "sublinear/mips/eligibility.hpp"

#include <algorithm>

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
std::vector<Label> sortedDistinct(std::vector<Label> labels) {
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

bool sharesAny(const Label* labels, std::size_t count, const std::vector<Label>& sorted) {
  for (std::size_t i = 0; i < count; ++i) {
    if (std::binary_search(sorted.begin(), sorted.end(), labels[i])) return true;
  }
  return false;
}
}  // namespace

void Eligibility::checkValueNames(const ItemAttributes& attributes, const AttributeFilter& filter) {
  for (const ValueRange& range : filter.where) {
    if (attributes.valueColumn(range.name) >= 0) continue;
    std::string known;
    for (const std::string& name : attributes.valueNames()) known += (known.empty() ? "" : ", ") + name;
    fail(ErrorCode::InvalidArgument, "where names the value '" + range.name + "', which no item was given (known: " +
                                         (known.empty() ? "none" : known) + ")");
  }
}

void Eligibility::prepare(const AttributeFilter& filter) {
  anyOf_ = sortedDistinct(filter.labels);
  allOf_ = sortedDistinct(filter.allLabels);
  noneOf_ = sortedDistinct(filter.noLabels);
  for (const ValueRange& range : filter.where) ranges_.push_back(Range{attributes_->valueColumn(range.name), range.low, range.high});
  asksAnything_ = !filter.empty();
  byOneLabel_ = allOf_.empty() && noneOf_.empty() && ranges_.empty() && !attributes_->severalLabels();
  constexpr Label kLargestBitLabel = 1u << 20;
  if (anyOf_.size() > 8 && anyOf_.back() < kLargestBitLabel) {
    labelBits_.assign(anyOf_.back() / 64 + 1, 0);
    for (const Label label : anyOf_) labelBits_[label / 64] |= std::uint64_t{1} << (label % 64);
  }
  if (!anyOf_.empty()) {
    postingLabels_ = anyOf_;
  } else if (!allOf_.empty()) {
    // Every eligible row is in each of these lists: the shortest bounds them.
    const auto shortest = std::min_element(allOf_.begin(), allOf_.end(), [&](Label a, Label b) {
      return attributes_->count(a) < attributes_->count(b);
    });
    postingLabels_ = {*shortest};
  }
  for (const Label label : postingLabels_) postedRows_ += attributes_->count(label);
}

bool Eligibility::admitsInGeneral(std::size_t row) const {
  if (!anyOf_.empty()) {
    const Label* labels = attributes_->labelsAt(row);
    const std::size_t count = attributes_->labelCount(row);
    bool any = false;
    for (std::size_t i = 0; i < count && !any; ++i) any = allowsLabel(labels[i]);
    if (!any) return false;
  }
  return admitsBesidesAnyOf(row);
}

bool Eligibility::admitsBesidesAnyOf(std::size_t row) const {
  // A row's labels are read only when a condition asks about them: a walk over posting lists checks
  // rows spread over the store, and each array read there is a cache miss.
  if (!allOf_.empty() || !noneOf_.empty()) {
    const Label* labels = attributes_->labelsAt(row);
    const std::size_t count = attributes_->labelCount(row);
    for (const Label label : allOf_) {
      if (!std::binary_search(labels, labels + count, label)) return false;
    }
    if (!noneOf_.empty() && sharesAny(labels, count, noneOf_)) return false;
  }
  for (const Range& range : ranges_) {
    if (range.column < 0) return false;
    const double value = attributes_->valueAt(static_cast<std::size_t>(range.column), row);
    // NaN (no value) fails both comparisons.
    if (!(value >= range.low && value <= range.high)) return false;
  }
  return true;
}

bool Eligibility::postedUnder(std::size_t row, Label label) const {
  // A row of an allowed label's list passes `labels` (any of): only the other conditions are checked.
  if (!(anyOf_.empty() ? admitsAttributes(row) : admitsBesidesAnyOf(row))) return false;
  if (postingLabels_.size() == 1 || attributes_->labelCount(row) <= 1) return true;
  // The row's labels are sorted: the first one among the posting labels.
  const Label* labels = attributes_->labelsAt(row);
  for (std::size_t i = 0; i < attributes_->labelCount(row); ++i) {
    if (std::binary_search(postingLabels_.begin(), postingLabels_.end(), labels[i])) return labels[i] == label;
  }
  return false;
}

void Eligibility::checkPosted(const std::uint32_t* rows, std::size_t count, Label label, std::uint8_t* passes) const {
  const bool rangesOnly = !anyOf_.empty() && allOf_.empty() && noneOf_.empty() &&
                          (postingLabels_.size() == 1 || !attributes_->severalLabels());
  if (!rangesOnly) {
    for (std::size_t i = 0; i < count; ++i) passes[i] = postedUnder(rows[i], label) ? 1 : 0;
    return;
  }
  // A row of an allowed label's list, met once (one list, or one label a row): only the value ranges
  // remain. Each range over the whole block, with no branch between the reads, so that their cache
  // misses overlap: rows of one list lie far apart, and checked one after another they made a walk
  // over 20,000 rows of a 10^6-item store take milliseconds.
  std::fill_n(passes, count, std::uint8_t{1});
  for (const Range& range : ranges_) {
    if (range.column < 0) {
      std::fill_n(passes, count, std::uint8_t{0});
      return;
    }
    const auto column = static_cast<std::size_t>(range.column);
    for (std::size_t i = 0; i < count; ++i) {
      const double value = attributes_->valueAt(column, rows[i]);
      // NaN (no value) fails both comparisons.
      const auto aboveLow = static_cast<std::uint8_t>(value >= range.low);
      const auto belowHigh = static_cast<std::uint8_t>(value <= range.high);
      passes[i] &= static_cast<std::uint8_t>(aboveLow & belowHigh);
    }
  }
}

std::size_t Eligibility::countByWalk() const {
  std::size_t passing = 0;
  if (walksPostings()) {
    forEachPostedRow(0, [&](std::size_t) { ++passing; });
  } else {
    for (std::size_t row = 0; row < size_; ++row) passing += admitsAttributes(row) ? 1 : 0;
  }
  return passing;
}

void Eligibility::finish() {
  std::sort(excludedIds_.begin(), excludedIds_.end());
  candidates_ = walksPostings() ? postedRows_ : size_;
  if (!asksAnything_) {
    passing_ = size_;
  } else if (byOneLabel_ && walksPostings()) {
    // One label a row: each allowed label's rows pass, and no row is in two lists.
    passing_ = postedRows_;
  } else if (candidates_ <= kExactCountRows) {
    passing_ = countByWalk();
  } else {
    // Candidates spread evenly over the lists (or the rows), in their order: no random draw, so the
    // estimate (and the search it plans) is the same in every build and after a restore.
    std::size_t passed = 0;
    for (std::size_t i = 0; i < kCountSample; ++i) {
      std::size_t at = i * candidates_ / kCountSample;
      if (!walksPostings()) {
        passed += admitsAttributes(at) ? 1 : 0;
        continue;
      }
      for (const Label label : postingLabels_) {
        const std::vector<std::uint32_t>& rows = attributes_->rowsOf(label);
        if (at < rows.size()) {
          passed += postedUnder(rows[at], label) ? 1 : 0;
          break;
        }
        at -= rows.size();
      }
    }
    if (passed < kLeastSampled || passed * candidates_ / kCountSample < 2 * excludedRows_.size()) {
      passing_ = countByWalk();
    } else {
      passing_ = std::min(size_, passed * candidates_ / kCountSample);
      exact_ = false;
    }
  }
  count_ = passing_ - std::min(passing_, excludedRows_.size());
  // An estimate never lifts the filter: some item may be ineligible whatever it says.
  filters_ = !exact_ || count_ < size_;
}

std::size_t Eligibility::exactCount() const {
  if (exact_) return count_;
  return countByWalk() - excludedRows_.size();
}

}  // namespace sublinear
