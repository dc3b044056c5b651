#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sublinear/core/id.hpp"

namespace sublinear {

// The items of an index: caller-chosen ids and their vectors, stored as zero-padded rows in blocks
// of kBlockRows contiguous rows, so that a scan streams memory. Only the last block grows (and is
// copied when it does): a store of 10^6 lifted rows (544 MB) used to be one array whose growth
// copied all of it, 60-90 ms inside one add. Removal moves the last row into the hole, so rows stay
// dense and ids, not row numbers, are the stable handles.
class VectorStore {
 public:
  // A multiple of 4, so that the scan's four-row kernel never straddles two blocks when it starts
  // on a block's first row.
  static constexpr std::size_t kBlockRows = 4096;

  explicit VectorStore(std::size_t dim);

  std::size_t dim() const { return dim_; }
  std::size_t stride() const { return stride_; }
  std::size_t size() const { return ids_.size(); }
  bool contains(Id id) const { return rowOf_.count(id) != 0; }
  // Row number of a stored id (precondition: contains(id)).
  std::size_t rowOf(Id id) const { return rowOf_.at(id); }
  Id idAt(std::size_t row) const { return ids_[row]; }
  const float* rowData(std::size_t row) const { return blocks_[row / kBlockRows].data() + (row % kBlockRows) * stride_; }
  // How many rows from `row` on lie contiguously after rowData(row): to its block's end or the last row.
  std::size_t contiguousRows(std::size_t row) const { return std::min(size() - row, kBlockRows - row % kBlockRows); }
  const float* vectorOf(Id id) const { return rowData(rowOf(id)); }
  const std::vector<Id>& ids() const { return ids_; }

  // Room for `count` rows, so that adding up to them cannot throw.
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
  float* rowPointer(std::size_t row) { return const_cast<float*>(rowData(row)); }

  // Each holds kBlockRows rows but the last, which holds the rest. A block's capacity grows by half
  // up to kBlockRows rows, so that a small store does not take a whole block.
  std::vector<std::vector<float>> blocks_;
  std::vector<Id> ids_;
  std::unordered_map<Id, std::size_t> rowOf_;
};

}  // namespace sublinear
