#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace sublinear {

using ItemId = std::uint32_t;

// The items of an index: caller-chosen ids and their vectors, stored contiguously as zero-padded
// rows so that a scan streams memory. Removal moves the last row into the hole, so rows stay dense
// and ids, not row numbers, are the stable handles.
class VectorStore {
 public:
  explicit VectorStore(std::size_t dim);

  std::size_t dim() const { return dim_; }
  std::size_t stride() const { return stride_; }
  std::size_t size() const { return ids_.size(); }
  bool contains(ItemId id) const { return rowOf_.count(id) != 0; }
  // Row number of a stored id (precondition: contains(id)).
  std::size_t rowOf(ItemId id) const { return rowOf_.at(id); }
  ItemId idAt(std::size_t row) const { return ids_[row]; }
  const float* rowData(std::size_t row) const { return data_.data() + row * stride_; }
  const float* vectorOf(ItemId id) const { return rowData(rowOf(id)); }
  const std::vector<ItemId>& ids() const { return ids_; }

  void reserve(std::size_t count);
  void add(ItemId id, const float* vector);
  void remove(ItemId id);
  // Copies `vector` (dim floats) into `out` padded to stride() floats.
  void pad(const float* vector, float* out) const;

 private:
  std::size_t dim_;
  std::size_t stride_;
  std::vector<float> data_;
  std::vector<ItemId> ids_;
  std::unordered_map<ItemId, std::size_t> rowOf_;
};

}  // namespace sublinear
