#include "sublinear/linear/arm_set.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/id.hpp"

namespace sublinear {

namespace {
int checkedDimension(int dim) {
  require(dim >= 1, ErrorCode::InvalidArgument, "dim must be a positive integer");
  return dim;
}

// DIMENSION_MISMATCH unless `expected` entries.
void checkFeatureLength(std::size_t count, int dim, std::size_t featureLength) {
  const std::size_t expected = count * static_cast<std::size_t>(dim);
  if (featureLength != expected) {
    fail(ErrorCode::DimensionMismatch, "expected " + std::to_string(count) + " x " + std::to_string(dim) + " = " +
                                           std::to_string(expected) + " feature entries, got " +
                                           std::to_string(featureLength));
  }
}

void checkFeatureValues(std::size_t count, int dim, const double* features, std::size_t featureLength) {
  checkFeatureLength(count, dim, featureLength);
  ArmSet::checkFeatureEntries(features, featureLength, 0);
}
}  // namespace

void ArmSet::checkFeatureEntries(const double* features, std::size_t length, std::size_t first) {
  for (std::size_t i = 0; i < length; ++i) {
    if (!std::isfinite(features[i])) {
      fail(ErrorCode::NonFinite, "features have a non-finite entry at position " + std::to_string(first + i));
    }
    if (std::fabs(features[i]) > kMaxMagnitude) {
      fail(ErrorCode::InvalidArgument, "feature entry at position " + std::to_string(first + i) +
                                           " exceeds 1e15 in magnitude (indexes store float32 products of features)");
    }
  }
}

ArmSet::ArmSet(int dim) : dim_(checkedDimension(dim)), rows_(static_cast<std::size_t>(dim_), static_cast<std::size_t>(dim_)) {}

void ArmSet::checkAdd(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes) const {
  if (attributes != nullptr) {
    if (attributes->size() != count) {
      fail(ErrorCode::InvalidArgument, "labels: expected one per arm (" + std::to_string(count) + "), got " + std::to_string(attributes->size()));
    }
    attributes_.checkColumns(*attributes);
  }
  checkFeatureLength(count, dim_, features.length());
  forEachPiece(features, static_cast<std::size_t>(dim_),
               [](const double* piece, std::size_t first, std::size_t length) { checkFeatureEntries(piece, length, first); });
  const std::size_t repeat = firstRepeatedId(ids, count);
  for (std::size_t i = 0; i < count; ++i) {
    if (contains(ids[i])) fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[i]) + " is already in the set");
    if (i == repeat) fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[i]) + " appears twice in the batch");
  }
}

void ArmSet::checkRemove(const Id* ids, std::size_t count) const {
  checkStored(ids, count);
}

void ArmSet::checkFeatures(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) const {
  checkStored(ids, count);
  checkFeatureValues(count, dim_, features, featureLength);
}

void ArmSet::checkStored(const Id* ids, std::size_t count) const {
  const std::size_t repeat = firstRepeatedId(ids, count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!contains(ids[i])) fail(ErrorCode::UnknownId, "arm " + std::to_string(ids[i]) + " is not in the set");
    if (i == repeat) fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[i]) + " appears twice in the batch");
  }
}

void ArmSet::checkChanges(const Id* ids, std::size_t count, const ItemAttributes& batch) const {
  if (batch.size() != count) {
    fail(ErrorCode::DimensionMismatch, "expected the attributes of " + std::to_string(count) + " arms, got " + std::to_string(batch.size()));
  }
  checkStored(ids, count);
  attributes_.checkColumns(batch);
}

void ArmSet::setLabels(const Id* ids, std::size_t count, const ItemAttributes& labels) {
  for (std::size_t i = 0; i < count; ++i) attributes_.setLabels(rows_.rowOf(ids[i]), labels, i);
}

void ArmSet::setValues(const Id* ids, std::size_t count, const ItemAttributes& values) {
  for (std::size_t i = 0; i < count; ++i) attributes_.setValues(rows_.rowOf(ids[i]), values, i);
}

void ArmSet::setFeatures(const Id* ids, std::size_t count, const double* features) {
  const auto d = static_cast<std::size_t>(dim_);
  ++revision_;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = rows_.rowOf(ids[i]);
    rows_.setRow(row, features + i * d);
    if (keepsFloats_) {
      auto* copy = const_cast<float*>(floatRowData(row));
      for (std::size_t j = 0; j < d; ++j) copy[j] = static_cast<float>(features[i * d + j]);
    }
    stamps_[row] = revision_;
  }
}

void ArmSet::keepStamps() {
  if (keepsStamps_) return;
  stamps_.assign(rows_.size(), 0);
  keepsStamps_ = true;
}

void ArmSet::copyStamps(const ArmSet& aligned) {
  stamps_ = aligned.stamps_;
  revision_ = aligned.revision_;
  keepsStamps_ = aligned.keepsStamps_;
}

void ArmSet::restoreStamps(std::vector<std::uint64_t> stamps, std::uint64_t revision) {
  stamps_ = std::move(stamps);
  revision_ = revision;
  keepsStamps_ = true;
}

ItemAttributes ArmSet::attributesOfRows(std::size_t first, std::size_t count) const {
  ItemAttributes batch;
  batch.reserve(count);
  for (std::size_t i = 0; i < count; ++i) batch.appendRowOf(attributes_, first + i);
  return batch;
}

void ArmSet::add(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes) {
  const auto d = static_cast<std::size_t>(dim_);
  rows_.reserve(rows_.size() + count);
  attributes_.reserve(rows_.size() + count);
  if (keepsStamps_) {
    stamps_.reserve(rows_.size() + count);
    ++revision_;
  }
  if (keepsFloats_) {
    // Room first, so that appending cannot throw half way (the rows and their copies stay in step).
    const std::size_t total = rows_.size() + count;
    floatBlocks_.resize((total + RowStore<double>::kBlockRows - 1) / RowStore<double>::kBlockRows);
    for (std::size_t block = rows_.size() / RowStore<double>::kBlockRows; block < floatBlocks_.size(); ++block) {
      floatBlocks_[block].reserve(std::min(RowStore<double>::kBlockRows, total - block * RowStore<double>::kBlockRows) * d);
    }
  }
  // Every piece holds whole rows (forEachPiece; d >= 1).
  std::size_t i = 0;
  forEachPiece(features, d, [&](const double* piece, std::size_t, std::size_t length) {
    for (std::size_t at = 0; at < length; at += d, ++i) {
      if (keepsFloats_) appendFloatRow(piece + at);
      rows_.add(ids[i], piece + at);
      if (keepsStamps_) stamps_.push_back(revision_);
      if (attributes != nullptr) {
        attributes_.appendRowOf(*attributes, i);
      } else {
        attributes_.append(0);
      }
    }
  });
}

void ArmSet::appendFloatRow(const double* features) {
  const std::size_t row = rows_.size();
  std::vector<float>& block = floatBlocks_[row / RowStore<double>::kBlockRows];
  for (int j = 0; j < dim_; ++j) block.push_back(static_cast<float>(features[j]));
}

void ArmSet::keepFloatRows() {
  if (keepsFloats_) return;
  const auto d = static_cast<std::size_t>(dim_);
  floatBlocks_.assign((rows_.size() + RowStore<double>::kBlockRows - 1) / RowStore<double>::kBlockRows, std::vector<float>());
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    std::vector<float>& block = floatBlocks_[row / RowStore<double>::kBlockRows];
    if (block.empty()) block.reserve(rows_.contiguousRows(row) * d);
    const double* x = rows_.rowData(row);
    for (std::size_t j = 0; j < d; ++j) block.push_back(static_cast<float>(x[j]));
  }
  keepsFloats_ = true;
}

void ArmSet::remove(const Id* ids, std::size_t count) {
  const auto d = static_cast<std::size_t>(dim_);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = rows_.rowOf(ids[i]);
    // RowStore moves the last row into the hole; the attributes and the float copy follow.
    if (keepsFloats_) {
      const std::size_t last = rows_.size() - 1;
      std::vector<float>& lastBlock = floatBlocks_[last / RowStore<double>::kBlockRows];
      if (row != last) std::copy_n(floatRowData(last), d, const_cast<float*>(floatRowData(row)));
      lastBlock.resize(lastBlock.size() - d);
    }
    attributes_.removeRow(row);
    if (keepsStamps_) {
      stamps_[row] = stamps_.back();
      stamps_.pop_back();
    }
    rows_.remove(ids[i]);
  }
}

}  // namespace sublinear
