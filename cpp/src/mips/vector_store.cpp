#include "sublinear/mips/vector_store.hpp"

#include <algorithm>

#include "sublinear/core/memory_budget.hpp"
#include "sublinear/mips/inner_product.hpp"

namespace sublinear {

VectorStore::VectorStore(std::size_t dim) : dim_(dim), stride_(paddedDimension(dim)) {}

void VectorStore::reserve(std::size_t count) {
  requireAddressable(count, stride_ * sizeof(float) + sizeof(Id), std::to_string(count) + " items of dimension " + std::to_string(dim_));
  if (count > 0) {
    const std::size_t blocks = (count - 1) / kBlockRows + 1;
    if (blocks > blocks_.size()) blocks_.resize(blocks);
    // Full blocks before the last one asked for get exactly one block's room; the last one grows.
    for (std::size_t block = size() / kBlockRows; block < blocks; ++block) {
      const std::size_t rows = std::min(kBlockRows, count - block * kBlockRows);
      std::vector<float>& data = blocks_[block];
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

void VectorStore::add(Id id, const float* vector) {
  const std::size_t row = ids_.size();
  if (row / kBlockRows >= blocks_.size()) blocks_.emplace_back();
  std::vector<float>& data = blocks_[row / kBlockRows];
  data.resize(data.size() + stride_, 0.0f);
  std::copy(vector, vector + dim_, rowPointer(row));
  ids_.push_back(id);
  rowOf_.emplace(id, row);
}

void VectorStore::remove(Id id) {
  const std::size_t row = rowOf_.at(id);
  const std::size_t last = ids_.size() - 1;
  if (row != last) {
    std::copy(rowData(last), rowData(last) + stride_, rowPointer(row));
    ids_[row] = ids_[last];
    rowOf_[ids_[row]] = row;
  }
  ids_.pop_back();
  std::vector<float>& data = blocks_[last / kBlockRows];
  data.resize(data.size() - stride_);
  rowOf_.erase(id);
}

void VectorStore::swapRows(std::size_t a, std::size_t b) {
  if (a == b) return;
  std::swap_ranges(rowPointer(a), rowPointer(a) + stride_, rowPointer(b));
  std::swap(ids_[a], ids_[b]);
  rowOf_[ids_[a]] = a;
  rowOf_[ids_[b]] = b;
}

void VectorStore::pad(const float* vector, float* out) const {
  std::copy(vector, vector + dim_, out);
  std::fill(out + dim_, out + stride_, 0.0f);
}

}  // namespace sublinear
