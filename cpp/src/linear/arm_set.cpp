#include "sublinear/linear/arm_set.hpp"

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
}  // namespace

ArmSet::ArmSet(int dim) : dim_(checkedDimension(dim)), rows_(static_cast<std::size_t>(dim_), static_cast<std::size_t>(dim_)) {}

void ArmSet::checkAdd(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
                      const Label* labels, std::size_t labelCount) const {
  if (labels != nullptr && labelCount != count) {
    fail(ErrorCode::InvalidArgument, "labels: expected one per arm (" + std::to_string(count) + "), got " + std::to_string(labelCount));
  }
  const std::size_t expected = count * static_cast<std::size_t>(dim_);
  if (featureLength != expected) {
    fail(ErrorCode::DimensionMismatch, "expected " + std::to_string(count) + " x " + std::to_string(dim_) + " = " +
                                           std::to_string(expected) + " feature entries, got " +
                                           std::to_string(featureLength));
  }
  for (std::size_t i = 0; i < featureLength; ++i) {
    if (!std::isfinite(features[i])) {
      fail(ErrorCode::NonFinite, "features have a non-finite entry at position " + std::to_string(i));
    }
    if (std::fabs(features[i]) > kMaxMagnitude) {
      fail(ErrorCode::InvalidArgument, "feature entry at position " + std::to_string(i) +
                                           " exceeds 1e15 in magnitude (indexes store float32 products of features)");
    }
  }
  const std::size_t repeat = firstRepeatedId(ids, count);
  for (std::size_t i = 0; i < count; ++i) {
    if (contains(ids[i])) fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[i]) + " is already in the set");
    if (i == repeat) fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[i]) + " appears twice in the batch");
  }
}

void ArmSet::checkRemove(const Id* ids, std::size_t count) const {
  const std::size_t repeat = firstRepeatedId(ids, count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!contains(ids[i])) fail(ErrorCode::UnknownId, "arm " + std::to_string(ids[i]) + " is not in the set");
    if (i == repeat) fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[i]) + " appears twice in the batch");
  }
}

void ArmSet::add(const Id* ids, std::size_t count, const double* features, const Label* labels) {
  const auto d = static_cast<std::size_t>(dim_);
  rows_.reserve(rows_.size() + count);
  labels_.reserve(rows_.size() + count);
  for (std::size_t i = 0; i < count; ++i) {
    rows_.add(ids[i], features + i * d);
    labels_.append(labels != nullptr ? labels[i] : 0);
  }
}

void ArmSet::remove(const Id* ids, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    // RowStore moves the last row into the hole; the label follows.
    labels_.removeRow(rows_.rowOf(ids[i]));
    rows_.remove(ids[i]);
  }
}

}  // namespace sublinear
