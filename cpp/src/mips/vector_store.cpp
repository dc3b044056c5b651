#include "sublinear/mips/vector_store.hpp"

#include <algorithm>

#include "sublinear/core/memory_budget.hpp"
#include "sublinear/mips/inner_product.hpp"

namespace sublinear {

VectorStore::VectorStore(std::size_t dim) : dim_(dim), stride_(paddedDimension(dim)) {}

void VectorStore::reserve(std::size_t count) {
  requireAddressable(count, stride_ * sizeof(float) + sizeof(Id), std::to_string(count) + " items of dimension " + std::to_string(dim_));
  reserveGrowing(data_, count * stride_);
  reserveGrowing(ids_, count);
  if (static_cast<double>(count) > static_cast<double>(rowOf_.bucket_count()) * rowOf_.max_load_factor()) {
    rowOf_.reserve(std::max(count, rowOf_.size() + rowOf_.size() / 2));
  }
}

void VectorStore::add(Id id, const float* vector) {
  const std::size_t row = ids_.size();
  data_.resize(data_.size() + stride_, 0.0f);
  std::copy(vector, vector + dim_, data_.begin() + static_cast<std::ptrdiff_t>(row * stride_));
  ids_.push_back(id);
  rowOf_.emplace(id, row);
}

void VectorStore::remove(Id id) {
  const std::size_t row = rowOf_.at(id);
  const std::size_t last = ids_.size() - 1;
  if (row != last) {
    std::copy(data_.begin() + static_cast<std::ptrdiff_t>(last * stride_),
              data_.begin() + static_cast<std::ptrdiff_t>((last + 1) * stride_),
              data_.begin() + static_cast<std::ptrdiff_t>(row * stride_));
    ids_[row] = ids_[last];
    rowOf_[ids_[row]] = row;
  }
  ids_.pop_back();
  data_.resize(last * stride_);
  rowOf_.erase(id);
}

void VectorStore::swapRows(std::size_t a, std::size_t b) {
  if (a == b) return;
  std::swap_ranges(data_.begin() + static_cast<std::ptrdiff_t>(a * stride_),
                   data_.begin() + static_cast<std::ptrdiff_t>((a + 1) * stride_),
                   data_.begin() + static_cast<std::ptrdiff_t>(b * stride_));
  std::swap(ids_[a], ids_[b]);
  rowOf_[ids_[a]] = a;
  rowOf_[ids_[b]] = b;
}

void VectorStore::pad(const float* vector, float* out) const {
  std::copy(vector, vector + dim_, out);
  std::fill(out + dim_, out + stride_, 0.0f);
}

}  // namespace sublinear
