#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sublinear/core/id.hpp"

namespace sublinear {

// The items of an index: caller-chosen ids and their vectors, stored contiguously as zero-padded
// rows so that a scan streams memory. Removal moves the last row into the hole, so rows stay dense
// and ids, not row numbers, are the stable handles.
class VectorStore {
 public:
  explicit VectorStore(std::size_t dim);

  std::size_t dim() const { return dim_; }
  std::size_t stride() const { return stride_; }
  std::size_t size() const { return ids_.size(); }
  bool contains(Id id) const { return rowOf_.count(id) != 0; }
  // Row number of a stored id (precondition: contains(id)).
  std::size_t rowOf(Id id) const { return rowOf_.at(id); }
  Id idAt(std::size_t row) const { return ids_[row]; }
  const float* rowData(std::size_t row) const { return data_.data() + row * stride_; }
  const float* vectorOf(Id id) const { return rowData(rowOf(id)); }
  const std::vector<Id>& ids() const { return ids_; }

  void reserve(std::size_t count);
  void add(Id id, const float* vector);
  void remove(Id id);
  // Exchanges two rows (vectors and ids); ids keep their vectors. Lets an index keep the items its
  // structure holds in a prefix of the rows, so that the rest can be scanned contiguously.
  void swapRows(std::size_t a, std::size_t b);
  // Copies `vector` (dim floats) into `out` padded to stride() floats.
  void pad(const float* vector, float* out) const;

 private:
  std::size_t dim_;
  std::size_t stride_;
  std::vector<float> data_;
  std::vector<Id> ids_;
  std::unordered_map<Id, std::size_t> rowOf_;
};

}  // namespace sublinear
