#include "sublinear/env/environment_arms.hpp"

#include <string>

#include "sublinear/core/error.hpp"

namespace sublinear {

EnvironmentArms::EnvironmentArms(int dim) : dim_(dim) { require(dim >= 1, ErrorCode::InvalidArgument, "dim must be at least 1"); }

void EnvironmentArms::add(Id id, const double* features, double expectedReward) {
  if (contains(id)) fail(ErrorCode::DuplicateId, "arm " + std::to_string(id) + " is already in the set");
  rowOf_.emplace(id, ids_.size());
  ids_.push_back(id);
  features_.insert(features_.end(), features, features + dim_);
  expected_.push_back(expectedReward);
  ranked_.emplace(expectedReward, id);
}

void EnvironmentArms::remove(Id id) {
  const auto found = rowOf_.find(id);
  if (found == rowOf_.end()) fail(ErrorCode::UnknownId, "arm " + std::to_string(id) + " is not in the set");
  const std::size_t row = found->second;
  const std::size_t last = ids_.size() - 1;
  const auto d = static_cast<std::size_t>(dim_);
  ranked_.erase({expected_[row], id});
  if (row != last) {
    ids_[row] = ids_[last];
    expected_[row] = expected_[last];
    std::copy(features_.begin() + static_cast<std::ptrdiff_t>(last * d),
              features_.begin() + static_cast<std::ptrdiff_t>((last + 1) * d),
              features_.begin() + static_cast<std::ptrdiff_t>(row * d));
    rowOf_[ids_[row]] = row;
  }
  rowOf_.erase(found);
  ids_.pop_back();
  expected_.pop_back();
  features_.resize(last * d);
}

std::vector<Id> EnvironmentArms::removeRandom(std::size_t count, std::size_t keepAtLeast, Random& random) {
  const std::size_t removable = size() > keepAtLeast ? size() - keepAtLeast : 0;
  std::vector<Id> removed;
  removed.reserve(std::min(count, removable));
  for (std::size_t i = 0; i < std::min(count, removable); ++i) {
    const Id victim = idAt(static_cast<std::size_t>(random.uniformInt(size())));
    remove(victim);
    removed.push_back(victim);
  }
  return removed;
}

}  // namespace sublinear
