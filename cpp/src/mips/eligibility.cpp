#include "sublinear/mips/eligibility.hpp"

#include <algorithm>

namespace sublinear {

Eligibility::Eligibility(const VectorStore& items, const ItemLabels& labels, const std::vector<Id>& exclude,
                         const std::vector<Label>& allowedLabels)
    : size_(items.size()), labels_(allowedLabels) {
  std::sort(labels_.begin(), labels_.end());
  labels_.erase(std::unique(labels_.begin(), labels_.end()), labels_.end());
  constexpr Label kLargestBitLabel = 1u << 20;
  if (labels_.size() > 8 && labels_.back() < kLargestBitLabel) {
    labelBits_.assign(labels_.back() / 64 + 1, 0);
    for (const Label label : labels_) labelBits_[label / 64] |= std::uint64_t{1} << (label % 64);
  }
  if (labels_.empty()) {
    labelledCount_ = size_;
  } else {
    for (const Label label : labels_) labelledCount_ += labels.count(label);
  }
  for (const Id id : exclude) {
    if (!items.contains(id)) continue;
    const std::size_t row = items.rowOf(id);
    if (allowsLabel(labels.labelAt(row))) excludedRows_.push_back(static_cast<std::uint32_t>(row));
  }
  std::sort(excludedRows_.begin(), excludedRows_.end());
  excludedRows_.erase(std::unique(excludedRows_.begin(), excludedRows_.end()), excludedRows_.end());
  excludedIds_.reserve(excludedRows_.size());
  for (const std::uint32_t row : excludedRows_) excludedIds_.push_back(items.idAt(row));
  std::sort(excludedIds_.begin(), excludedIds_.end());
  count_ = labelledCount_ - excludedRows_.size();
  filters_ = count_ < size_;
}

bool Eligibility::searchLabels(Label label) const { return std::binary_search(labels_.begin(), labels_.end(), label); }

bool Eligibility::searchExcludedRows(std::size_t row) const {
  return std::binary_search(excludedRows_.begin(), excludedRows_.end(), static_cast<std::uint32_t>(row));
}

bool Eligibility::excludesId(Id id) const {
  return !excludedIds_.empty() && std::binary_search(excludedIds_.begin(), excludedIds_.end(), id);
}

}  // namespace sublinear
