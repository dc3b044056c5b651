#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace sublinear {

using Label = std::uint32_t;

// One label per row of an index's store (a category, a shop, a language: whatever the caller's
// filters ask about), kept beside the rows and moved with them, and per label the rows that carry it.
// The posting lists make a filter's eligible count a sum of a few list sizes, and an exact search of
// only the eligible items a walk over their rows, whatever the store's size. Rows follow the store:
// removal moves the last row into the hole (RowStore::remove), swapRows exchanges two.
class ItemLabels {
 public:
  std::size_t size() const { return labels_.size(); }
  Label labelAt(std::size_t row) const { return labels_[row]; }
  const std::vector<Label>& labels() const { return labels_; }
  // Rows carrying `label`, in no particular order.
  std::size_t count(Label label) const;
  const std::vector<std::uint32_t>& rowsOf(Label label) const;
  std::size_t distinctLabels() const { return postings_.size(); }

  void reserve(std::size_t rows);
  // The label of the next row (row size()).
  void append(Label label);
  // As RowStore::remove: the last row's label moves into `row`.
  void removeRow(std::size_t row);
  void swapRows(std::size_t a, std::size_t b);

 private:
  std::vector<Label> labels_;
  // Where each row sits in its label's posting list, so that moves and removals cost O(1).
  std::vector<std::uint32_t> positions_;
  std::unordered_map<Label, std::vector<std::uint32_t>> postings_;
};

}  // namespace sublinear
