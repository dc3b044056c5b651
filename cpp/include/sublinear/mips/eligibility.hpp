#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/mips/item_attributes.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

// Which stored items one filtered search may return: those whose attributes pass the filter's
// conditions (AttributeFilter) and whose id is not in `exclude` (ids the store does not hold are
// ignored: a page's shown items may have left the catalogue since). Made per search from the store
// and its attributes.
//
// The eligible count (the selectivity a search plans with) is exact when the filter asks only for
// labels (any of) of a store whose rows have one label each: the allowed labels' list sizes less the
// excluded items. Otherwise the candidates are the rows of the posting lists the filter names (any of
// `labels`, or the shortest list of `allLabels`; every row when it names none): up to kExactCountRows
// of them are checked one by one (exact), beyond that kCountSample of them spread evenly are, and the
// count is their passing share times the candidates (an estimate, countIsExact() false), unless fewer
// than kLeastSampled passed: then all are checked, so that an estimate is never below a few hundred
// items and a count of 0 (nothing eligible: EMPTY) is always exact. exactCount() checks every
// candidate whenever the estimate is not exact (a decision's exploration probability needs it).
class Eligibility {
 public:
  static constexpr std::size_t kExactCountRows = 8192;
  static constexpr std::size_t kCountSample = 1024;
  static constexpr std::size_t kLeastSampled = 32;
  // Posting lists up to this many entries keep the rows that pass (forEachPostedRow): 256 KiB at most.
  static constexpr std::size_t kKeptRows = 65536;

  // Everything eligible.
  Eligibility() = default;
  // `items`: any RowStore (an index's float items, a policy's double arms) whose rows `attributes`
  // follows. A `where` name the store does not hold admits nothing (callers that face a user refuse it
  // first: checkValueNames).
  template <class Store>
  Eligibility(const Store& items, const ItemAttributes& attributes, const std::vector<Id>& exclude, const AttributeFilter& filter)
      : attributes_(&attributes), filter_(filter), size_(items.size()) {
    prepare(filter);
    for (const Id id : exclude) {
      if (!items.contains(id)) continue;
      const std::size_t row = items.rowOf(id);
      if (admitsAttributes(row)) excludedRows_.push_back(static_cast<std::uint32_t>(row));
    }
    std::sort(excludedRows_.begin(), excludedRows_.end());
    excludedRows_.erase(std::unique(excludedRows_.begin(), excludedRows_.end()), excludedRows_.end());
    excludedIds_.reserve(excludedRows_.size());
    for (const std::uint32_t row : excludedRows_) excludedIds_.push_back(items.idAt(row));
    finish();
  }

  // INVALID_ARGUMENT naming the first `where` name that `attributes` does not hold.
  static void checkValueNames(const ItemAttributes& attributes, const AttributeFilter& filter);

  // The attribute conditions as given (an index that searches copies of itself passes them on).
  const AttributeFilter& conditions() const { return filter_; }
  // Whether anything stored is ineligible: when not, a search runs unfiltered.
  bool filters() const { return filters_; }
  // The eligible count (see above: exact or estimated).
  std::size_t count() const { return count_; }
  bool countIsExact() const { return exact_; }
  std::size_t exactCount() const;
  std::size_t size() const { return size_; }
  // count() / size(): the selectivity a search plans with.
  double fraction() const { return size_ == 0 ? 0.0 : static_cast<double>(count_) / static_cast<double>(size_); }

  // Whether the candidates come from posting lists (postingLabels()), and how many entries those lists
  // hold (a row with several of the labels counted once per label): what a walk over them costs.
  bool walksPostings() const { return !postingLabels_.empty(); }
  const std::vector<Label>& postingLabels() const { return postingLabels_; }
  std::size_t postedRows() const { return postedRows_; }

  // Whether a row passes the attribute conditions (exclusions aside). Inline: scans and graph
  // searches ask this of many rows.
  bool admitsAttributes(std::size_t row) const {
    if (byOneLabel_) return allowsLabel(attributes_->singleLabel(row));
    return attributes_ == nullptr || admitsInGeneral(row);
  }
  // Every condition, exclusions included (true for everything when nothing is filtered).
  bool admitsRow(std::size_t row) const { return !filters_ || (admitsAttributes(row) && !excludesRow(row)); }
  // Whether the conditions read only a row's one label (then admitsAttributes(row) is
  // allowsLabel(singleLabel(row)), and a graph may keep each node's label beside it).
  bool byOneLabel() const { return byOneLabel_ || attributes_ == nullptr; }
  bool allowsLabel(Label label) const {
    if (anyOf_.empty()) return true;
    if (!labelBits_.empty()) return label / 64 < labelBits_.size() && ((labelBits_[label / 64] >> (label % 64)) & 1) != 0;
    // A page's filter names a few categories: a linear pass beats a search over so few.
    if (anyOf_.size() <= 8) {
      for (const Label allowed : anyOf_) {
        if (allowed == label) return true;
      }
      return false;
    }
    return std::binary_search(anyOf_.begin(), anyOf_.end(), label);
  }

  // Whether a row met in `label`'s posting list is a candidate met there: it passes the conditions and
  // `label` is the first of its labels among the posting labels (so a row is met once).
  bool postedUnder(std::size_t row, Label label) const;
  // Calls visit(row) once for every row of the posting lists (precondition: walksPostings()) from
  // firstRow on that passes the attribute conditions (exclusions aside). The first complete walk of
  // lists of at most kKeptRows entries keeps the rows that pass, in the walk's order, and later walks
  // visit those, the same rows in the same order, without reading any row's attributes again (a
  // decision walks its page filter's list for its choice and again for its propensities; the rows
  // lie far apart and each read is a cache miss). So an Eligibility is used by one thread at a time.
  template <class Visit>
  void forEachPostedRow(std::size_t firstRow, const Visit& visit) const {
    if (keepsPassing_) {
      for (const std::uint32_t row : passingRows_) {
        if (row >= firstRow) visit(row);
      }
      return;
    }
    const bool keep = firstRow == 0 && postedRows_ <= kKeptRows;
    if (keep) passingRows_.clear();
    std::uint8_t passes[kWalkBlock];
    std::uint32_t block[kWalkBlock];
    for (const Label label : postingLabels_) {
      const std::vector<std::uint32_t>& rows = attributes_->rowsOf(label);
      // The lists are unordered: the rows from firstRow on are gathered first, so that no value of
      // a row the caller does not want is read.
      std::size_t next = 0;
      while (next < rows.size()) {
        std::size_t count = 0;
        for (; next < rows.size() && count < kWalkBlock; ++next) {
          block[count] = rows[next];
          count += rows[next] >= firstRow ? 1 : 0;
        }
        checkPosted(block, count, label, passes);
        for (std::size_t i = 0; i < count; ++i) {
          if (passes[i] == 0) continue;
          if (keep) passingRows_.push_back(block[i]);
          visit(block[i]);
        }
      }
    }
    keepsPassing_ = keep;
  }

  // The rows and ids of the excluded items that pass the attribute conditions (the others are
  // ineligible anyway), each sorted.
  const std::vector<std::uint32_t>& excludedRows() const { return excludedRows_; }
  const std::vector<Id>& excludedIds() const { return excludedIds_; }
  bool excludesRow(std::size_t row) const {
    return !excludedRows_.empty() && std::binary_search(excludedRows_.begin(), excludedRows_.end(), static_cast<std::uint32_t>(row));
  }
  bool excludesId(Id id) const {
    return !excludedIds_.empty() && std::binary_search(excludedIds_.begin(), excludedIds_.end(), id);
  }

 private:
  struct Range {
    int column;  // -1: a name the store does not hold
    double low;
    double high;
  };
  // The conditions sorted and resolved, the posting lists chosen (constructor, before the exclusions).
  void prepare(const AttributeFilter& filter);
  // The counts, once the excluded rows and ids are known.
  void finish();
  bool admitsInGeneral(std::size_t row) const;
  // Every attribute condition but `labels` (any of).
  bool admitsBesidesAnyOf(std::size_t row) const;
  // passes[i]: postedUnder(rows[i], label), for `count` rows of label's posting list.
  static constexpr std::size_t kWalkBlock = 128;
  void checkPosted(const std::uint32_t* rows, std::size_t count, Label label, std::uint8_t* passes) const;
  // The candidates that pass, all of them checked.
  std::size_t countByWalk() const;

  const ItemAttributes* attributes_ = nullptr;
  AttributeFilter filter_;
  bool filters_ = false;
  bool byOneLabel_ = false;
  bool exact_ = true;
  bool asksAnything_ = false;
  std::size_t size_ = 0;
  std::size_t count_ = 0;
  // The candidates' count and how many of them pass (before the exclusions).
  std::size_t candidates_ = 0;
  std::size_t passing_ = 0;
  // The conditions, sorted and distinct.
  std::vector<Label> anyOf_;
  std::vector<Label> allOf_;
  std::vector<Label> noneOf_;
  std::vector<Range> ranges_;
  std::vector<Label> postingLabels_;
  std::size_t postedRows_ = 0;
  // Many allowed labels of small values (categories numbered from 0): one bit each, so that a scan
  // that checks every row's label pays a bit test rather than a binary search.
  std::vector<std::uint64_t> labelBits_;
  std::vector<std::uint32_t> excludedRows_;
  std::vector<Id> excludedIds_;
  // The rows a complete walk found passing, once keepsPassing_ (forEachPostedRow).
  mutable std::vector<std::uint32_t> passingRows_;
  mutable bool keepsPassing_ = false;
};

}  // namespace sublinear
