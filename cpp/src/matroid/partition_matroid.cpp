#include "sublinear/matroid/partition_matroid.hpp"

#include <algorithm>

#include "sublinear/core/state_codec.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
// Appendix C: one flag per group (the array B, with the array A of group indices shared with the
// matroid), so T_member = O(1); clear() resets only the groups it used.
class PartitionOracle : public IndependenceOracle {
 public:
  PartitionOracle(const std::vector<std::uint32_t>& group, std::size_t groupCount) : group_(group), used_(groupCount, 0) {}
  bool canAdd(Id arm) override { return used_[group_[arm]] == 0; }
  void add(Id arm) override {
    used_[group_[arm]] = 1;
    held_.push_back(group_[arm]);
  }
  void clear() override {
    for (const std::uint32_t g : held_) used_[g] = 0;
    held_.clear();
  }
  std::size_t size() const override { return held_.size(); }

 private:
  const std::vector<std::uint32_t>& group_;
  std::vector<char> used_;
  std::vector<std::uint32_t> held_;
};
}  // namespace

PartitionMatroid::PartitionMatroid(std::vector<std::uint32_t> groupOfArm) : group_(std::move(groupOfArm)) {
  if (group_.empty() || group_.size() > 0xffffffffULL) fail(ErrorCode::InvalidArgument, "a partition matroid needs at least one arm");
  std::vector<std::uint32_t> labels = group_;
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  for (auto& g : group_) g = static_cast<std::uint32_t>(std::lower_bound(labels.begin(), labels.end(), g) - labels.begin());
  groupCount_ = labels.size();
}

std::unique_ptr<IndependenceOracle> PartitionMatroid::makeOracle() const { return std::make_unique<PartitionOracle>(group_, groupCount_); }

void PartitionMatroid::save(StateWriter& out) const {
  out.string(kind());
  out.u32s(group_.data(), group_.size());
}

}  // namespace sublinear
