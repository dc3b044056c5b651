#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/mips/item_labels.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

// Which stored items one filtered search may return: those whose label is among `labels` (every
// label when empty) and whose id is not in `exclude` (ids the index does not hold are ignored: a
// page's shown items may have left the catalogue since). Made per search from the store and its
// labels; the exact eligible count costs the allowed labels' list sizes plus one lookup per excluded id.
class Eligibility {
 public:
  // Everything eligible.
  Eligibility() = default;
  // `items`: any RowStore (an index's float items, a policy's double arms) whose rows `labels` follows.
  template <class Store>
  Eligibility(const Store& items, const ItemLabels& labels, const std::vector<Id>& exclude,
              const std::vector<Label>& allowedLabels)
      : size_(items.size()), labels_(allowedLabels) {
    prepareLabels(labels);
    for (const Id id : exclude) {
      if (!items.contains(id)) continue;
      const std::size_t row = items.rowOf(id);
      if (allowsLabel(labels.labelAt(row))) excludedRows_.push_back(static_cast<std::uint32_t>(row));
    }
    std::sort(excludedRows_.begin(), excludedRows_.end());
    excludedRows_.erase(std::unique(excludedRows_.begin(), excludedRows_.end()), excludedRows_.end());
    excludedIds_.reserve(excludedRows_.size());
    for (const std::uint32_t row : excludedRows_) excludedIds_.push_back(items.idAt(row));
    finish();
  }

  // Whether anything stored is ineligible: when not, a search runs unfiltered.
  bool filters() const { return filters_; }
  std::size_t count() const { return count_; }
  std::size_t size() const { return size_; }
  // count() / size(): the selectivity a search plans with.
  double fraction() const { return size_ == 0 ? 0.0 : static_cast<double>(count_) / static_cast<double>(size_); }
  // Items whose label is allowed (excluded ones included).
  std::size_t labelledCount() const { return labelledCount_; }

  // Inline: scans and graph searches ask this of many rows.
  bool allowsLabel(Label label) const {
    if (labels_.empty()) return true;
    if (!labelBits_.empty()) return label / 64 < labelBits_.size() && ((labelBits_[label / 64] >> (label % 64)) & 1) != 0;
    // A page's filter names a few categories: a linear pass beats a search over so few.
    if (labels_.size() <= 8) {
      for (const Label allowed : labels_) {
        if (allowed == label) return true;
      }
      return false;
    }
    return searchLabels(label);
  }
  // The allowed labels, sorted and distinct; empty when every label is.
  const std::vector<Label>& labels() const { return labels_; }
  // The rows and ids of the excluded items whose label is allowed (the others are ineligible
  // anyway), each sorted.
  const std::vector<std::uint32_t>& excludedRows() const { return excludedRows_; }
  const std::vector<Id>& excludedIds() const { return excludedIds_; }
  bool excludesRow(std::size_t row) const { return !excludedRows_.empty() && searchExcludedRows(row); }
  bool excludesId(Id id) const;

 private:
  // The allowed labels sorted, their bit set and labelled count (constructor, before the exclusions).
  void prepareLabels(const ItemLabels& labels);
  // The counts, once the excluded rows and ids are known.
  void finish();
  bool searchLabels(Label label) const;
  bool searchExcludedRows(std::size_t row) const;

  bool filters_ = false;
  std::size_t size_ = 0;
  std::size_t count_ = 0;
  std::size_t labelledCount_ = 0;
  std::vector<Label> labels_;
  // Many allowed labels of small values (categories numbered from 0): one bit each, so that a scan
  // that checks every row's label pays a bit test rather than a binary search.
  std::vector<std::uint64_t> labelBits_;
  std::vector<std::uint32_t> excludedRows_;
  std::vector<Id> excludedIds_;
};

}  // namespace sublinear
