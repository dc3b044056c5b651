#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/core/id.hpp"
#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

// The nonzero part of one arm's feature vector: `width` values placed at columns
// [offset, offset + width) of a `dim`-dimensional vector; every other entry is zero.
struct ArmSlice {
  const double* values;
  std::size_t offset;
  std::size_t width;
};

// A read-only view of a round's feature matrix. Dense rows are the general case (the JavaScript
// API's `features: N*dim`); block rows are the promotion problem of Takemura and Ito
// (arXiv:1909.02251, section VII-A2), where arm jN + i is user i's d features placed in promotion
// j's block of a dM-dimensional vector. Keeping the blocks implicit spares an N x dM matrix that is
// M times larger and mostly zeros, and lets scoring cost O(d^2) per arm instead of O((dM)^2).
class ArmFeatures {
 public:
  // `count` rows of `dim` values, row-major.
  static ArmFeatures dense(const double* values, std::size_t count, std::size_t dim) {
    return ArmFeatures(values, count, 1, dim);
  }
  // `users` rows of `width` values, each repeated in each of `blocks` blocks: count = users * blocks,
  // dim = width * blocks, arm (block * users + user).
  static ArmFeatures blocks(const double* userValues, std::size_t users, std::size_t blocks, std::size_t width) {
    return ArmFeatures(userValues, users, blocks, width);
  }

  std::size_t count() const { return users_ * blocks_; }
  std::size_t dim() const { return width_ * blocks_; }
  std::size_t blockCount() const { return blocks_; }

  ArmSlice slice(std::size_t row) const {
    const std::size_t block = row / users_;
    const std::size_t user = row - block * users_;
    return ArmSlice{values_ + user * width_, block * width_, width_};
  }

  // The full dim-dimensional feature vector of a row.
  Vector vector(std::size_t row) const {
    const ArmSlice part = slice(row);
    Vector x = Vector::Zero(static_cast<Eigen::Index>(dim()));
    for (std::size_t j = 0; j < part.width; ++j) x[static_cast<Eigen::Index>(part.offset + j)] = part.values[j];
    return x;
  }

 private:
  ArmFeatures(const double* values, std::size_t users, std::size_t blocks, std::size_t width)
      : values_(values), users_(users), blocks_(blocks), width_(width) {}
  const double* values_;
  std::size_t users_;
  std::size_t blocks_;
  std::size_t width_;
};

}  // namespace sublinear
