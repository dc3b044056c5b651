#include "sublinear/mips/eligibility.hpp"

#include <algorithm>

namespace sublinear {

void Eligibility::prepareLabels(const ItemLabels& labels) {
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
}

void Eligibility::finish() {
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
