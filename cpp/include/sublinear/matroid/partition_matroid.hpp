#pragma once

#include <cstdint>
#include <vector>

#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// Partition matroid: arm k belongs to group groupOfArm[k] (any uint32 labels); a set is
// independent when it holds at most one arm per group. The rank is the number of distinct groups.
class PartitionMatroid : public Matroid {
 public:
  // At least one arm (INVALID_ARGUMENT otherwise).
  explicit PartitionMatroid(std::vector<std::uint32_t> groupOfArm);

  std::string kind() const override { return "partition"; }
  std::size_t groundSetSize() const override { return group_.size(); }
  std::size_t rank() const override { return groupCount_; }
  std::unique_ptr<IndependenceOracle> makeOracle() const override;
  std::unique_ptr<Matroid> clone() const override { return std::make_unique<PartitionMatroid>(*this); }
  void save(StateWriter& out) const override;
  // Arms of one group are interchangeable.
  std::vector<std::uint32_t> armClasses() const override { return group_; }

  // Groups renumbered densely 0 .. rank-1 in order of first appearance of their labels' sorted order.
  std::uint32_t groupOf(Id arm) const { return group_[arm]; }

 private:
  std::vector<std::uint32_t> group_;  // dense group index of each arm
  std::size_t groupCount_ = 0;
};

}  // namespace sublinear
