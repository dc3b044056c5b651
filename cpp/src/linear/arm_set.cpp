#include "sublinear/linear/arm_set.hpp"

#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/id.hpp"
#include "sublinear/core/memory_budget.hpp"

namespace sublinear {

ArmSet::ArmSet(int dim) : dim_(dim) {
  require(dim >= 1, ErrorCode::InvalidArgument, "dim must be a positive integer");
}

void ArmSet::checkAdd(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) const {
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

void ArmSet::add(const Id* ids, std::size_t count, const double* features) {
  const auto d = static_cast<std::size_t>(dim_);
  reserveGrowing(features_, features_.size() + count * d);
  reserveGrowing(ids_, ids_.size() + count);
  for (std::size_t i = 0; i < count; ++i) {
    rowOf_.emplace(ids[i], ids_.size());
    ids_.push_back(ids[i]);
    features_.insert(features_.end(), features + i * d, features + (i + 1) * d);
  }
}

void ArmSet::remove(const Id* ids, std::size_t count) {
  const auto d = static_cast<std::size_t>(dim_);
  for (std::size_t i = 0; i < count; ++i) {
    const auto it = rowOf_.find(ids[i]);
    const std::size_t row = it->second;
    const std::size_t last = ids_.size() - 1;
    if (row != last) {
      std::copy(features_.begin() + static_cast<std::ptrdiff_t>(last * d),
                features_.begin() + static_cast<std::ptrdiff_t>((last + 1) * d),
                features_.begin() + static_cast<std::ptrdiff_t>(row * d));
      ids_[row] = ids_[last];
      rowOf_[ids_[row]] = row;
    }
    rowOf_.erase(it);
    ids_.pop_back();
    features_.resize(last * d);
  }
}

}  // namespace sublinear
