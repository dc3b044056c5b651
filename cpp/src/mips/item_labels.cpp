#include "sublinear/mips/item_labels.hpp"

#include <utility>

namespace sublinear {

namespace {
const std::vector<std::uint32_t> kNoRows;
}

std::size_t ItemLabels::count(Label label) const {
  const auto found = postings_.find(label);
  return found == postings_.end() ? 0 : found->second.size();
}

const std::vector<std::uint32_t>& ItemLabels::rowsOf(Label label) const {
  const auto found = postings_.find(label);
  return found == postings_.end() ? kNoRows : found->second;
}

void ItemLabels::reserve(std::size_t rows) {
  labels_.reserve(rows);
  positions_.reserve(rows);
}

void ItemLabels::append(Label label) {
  std::vector<std::uint32_t>& rows = postings_[label];
  positions_.push_back(static_cast<std::uint32_t>(rows.size()));
  rows.push_back(static_cast<std::uint32_t>(labels_.size()));
  labels_.push_back(label);
}

void ItemLabels::removeRow(std::size_t row) {
  // Out of its posting list: the list's last entry takes its place.
  const auto list = postings_.find(labels_[row]);
  std::vector<std::uint32_t>& rows = list->second;
  const std::uint32_t position = positions_[row];
  const std::uint32_t moved = rows.back();
  rows[position] = moved;
  positions_[moved] = position;
  rows.pop_back();
  if (rows.empty()) postings_.erase(list);
  // The store's last row moves into the hole.
  const std::size_t last = labels_.size() - 1;
  if (row != last) {
    labels_[row] = labels_[last];
    positions_[row] = positions_[last];
    postings_.find(labels_[row])->second[positions_[row]] = static_cast<std::uint32_t>(row);
  }
  labels_.pop_back();
  positions_.pop_back();
}

void ItemLabels::swapRows(std::size_t a, std::size_t b) {
  if (a == b) return;
  postings_.find(labels_[a])->second[positions_[a]] = static_cast<std::uint32_t>(b);
  postings_.find(labels_[b])->second[positions_[b]] = static_cast<std::uint32_t>(a);
  std::swap(labels_[a], labels_[b]);
  std::swap(positions_[a], positions_[b]);
}

}  // namespace sublinear
