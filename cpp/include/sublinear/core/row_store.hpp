#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/core/memory_budget.hpp"

namespace sublinear {

// Caller-chosen ids and their vectors, stored as zero-padded rows of `stride` scalars in blocks of
// kBlockRows contiguous rows, so that a scan streams memory. Only the last block grows (and is
// copied when it does), so no add copies a whole store of 10^6 rows (which one array did; figures in
// bench/results/design-measurements.md). Removal moves the last row into the hole, so rows stay dense
// and ids, not row numbers, are the stable handles. The arms of a policy (double) and the items of an
// index (float, padded for the SIMD kernels) are both kept here.
template <class Scalar>
class RowStore {
 public:
  // A multiple of 4, so that the scan's four-row kernel never straddles two blocks when it starts
  // on a block's first row.
  static constexpr std::size_t kBlockRows = 4096;

  RowStore(std::size_t dim, std::size_t stride) : dim_(dim), stride_(stride) {}

  std::size_t dim() const { return dim_; }
  std::size_t stride() const { return stride_; }
  std::size_t size() const { return ids_.size(); }
  bool contains(Id id) const { return rowOf_.count(id) != 0; }
  // Row number of a stored id (precondition: contains(id)).
  std::size_t rowOf(Id id) const { return rowOf_.at(id); }
  Id idAt(std::size_t row) const { return ids_[row]; }
  const Scalar* rowData(std::size_t row) const { return blocks_[row / kBlockRows].data() + (row % kBlockRows) * stride_; }
  // How many rows from `row` on lie contiguously after rowData(row): to its block's end or the last row.
  std::size_t contiguousRows(std::size_t row) const { return std::min(size() - row, kBlockRows - row % kBlockRows); }
  const Scalar* vectorOf(Id id) const { return rowData(rowOf(id)); }
  // The ids in row order (valid until the next add or remove).
  const std::vector<Id>& ids() const { return ids_; }

  // Room for `count` rows, so that adding up to them cannot throw.
  void reserve(std::size_t count) {
    requireAddressable(count, stride_ * sizeof(Scalar) + sizeof(Id), std::to_string(count) + " items of dimension " + std::to_string(dim_));
    if (count > 0) {
      const std::size_t blocks = (count - 1) / kBlockRows + 1;
      if (blocks > blocks_.size()) blocks_.resize(blocks);
      // Full blocks before the last one asked for get exactly one block's room; the last one grows
      // by half up to kBlockRows rows, so that a small store does not take a whole block.
      for (std::size_t block = size() / kBlockRows; block < blocks; ++block) {
        const std::size_t rows = std::min(kBlockRows, count - block * kBlockRows);
        std::vector<Scalar>& data = blocks_[block];
        if (rows * stride_ <= data.capacity()) continue;
        const std::size_t grown = rows == kBlockRows ? rows : std::min(kBlockRows, std::max(rows, data.capacity() / stride_ * 3 / 2));
        data.reserve(grown * stride_);
      }
    }
    reserveGrowing(ids_, count);
    if (static_cast<double>(count) > static_cast<double>(rowOf_.bucket_count()) * rowOf_.max_load_factor()) {
      rowOf_.reserve(std::max(count, rowOf_.size() + rowOf_.size() / 2));
    }
  }

  // Appends `vector` (dim scalars) as the last row, zero-padded to the stride.
  void add(Id id, const Scalar* vector) {
    const std::size_t row = ids_.size();
    if (row / kBlockRows >= blocks_.size()) blocks_.emplace_back();
    std::vector<Scalar>& data = blocks_[row / kBlockRows];
    data.resize(data.size() + stride_, Scalar(0));
    std::copy(vector, vector + dim_, rowPointer(row));
    ids_.push_back(id);
    rowOf_.emplace(id, row);
  }

  // Overwrites row `row`'s vector (dim scalars; the padding stays zero).
  void setRow(std::size_t row, const Scalar* vector) { std::copy(vector, vector + dim_, rowPointer(row)); }

  void remove(Id id) {
    const std::size_t row = rowOf_.at(id);
    const std::size_t last = ids_.size() - 1;
    if (row != last) {
      std::copy(rowData(last), rowData(last) + stride_, rowPointer(row));
      ids_[row] = ids_[last];
      rowOf_[ids_[row]] = row;
    }
    ids_.pop_back();
    std::vector<Scalar>& data = blocks_[last / kBlockRows];
    data.resize(data.size() - stride_);
    rowOf_.erase(id);
  }

  // Exchanges two rows (vectors and ids); ids keep their vectors. Lets an index keep the items its
  // structure holds in a prefix of the rows, so that the rest can be scanned contiguously.
  void swapRows(std::size_t a, std::size_t b) {
    if (a == b) return;
    std::swap_ranges(rowPointer(a), rowPointer(a) + stride_, rowPointer(b));
    std::swap(ids_[a], ids_[b]);
    rowOf_[ids_[a]] = a;
    rowOf_[ids_[b]] = b;
  }

 private:
  Scalar* rowPointer(std::size_t row) { return const_cast<Scalar*>(rowData(row)); }

  std::size_t dim_;
  std::size_t stride_;
  // Each holds kBlockRows rows but the last, which holds the rest.
  std::vector<std::vector<Scalar>> blocks_;
  std::vector<Id> ids_;
  std::unordered_map<Id, std::size_t> rowOf_;
};

}  // namespace sublinear
