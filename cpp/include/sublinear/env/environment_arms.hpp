#pragma once

#include <cstddef>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// The arms an environment currently offers: ids, features and expected rewards, with the best
// expected reward kept in an ordered set so that regret costs O(log K) per change instead of a scan
// over all K arms every step. Rows are dense (removal moves the last row into the hole), and the
// row order depends only on the sequence of adds and removes, so a random row is reproducible.
class EnvironmentArms {
 public:
  explicit EnvironmentArms(int dim);

  int dim() const { return dim_; }
  std::size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  bool contains(Id id) const { return rowOf_.count(id) != 0; }
  const std::vector<Id>& ids() const { return ids_; }
  Id idAt(std::size_t row) const { return ids_[row]; }
  // dim() doubles; precondition: contains(id).
  const double* features(Id id) const { return features_.data() + rowOf_.at(id) * static_cast<std::size_t>(dim_); }
  double expectedReward(Id id) const { return expected_[rowOf_.at(id)]; }
  // The largest expected reward in the set; precondition: !empty().
  double bestExpectedReward() const { return ranked_.rbegin()->first; }
  Id bestArm() const { return ranked_.rbegin()->second; }
  // The sum of the `count` largest expected rewards (of all arms when fewer): O(count).
  double bestExpectedSum(std::size_t count) const {
    double sum = 0.0;
    for (auto it = ranked_.rbegin(); it != ranked_.rend() && count > 0; ++it, --count) sum += it->first;
    return sum;
  }

  // DUPLICATE_ID for an id already present.
  void add(Id id, const double* features, double expectedReward);
  // UNKNOWN_ID for an id not present.
  void remove(Id id);
  // Removes up to `count` arms at uniformly random rows, one at a time, never leaving fewer than
  // `keepAtLeast`; returns their ids in removal order.
  std::vector<Id> removeRandom(std::size_t count, std::size_t keepAtLeast, Random& random);

 private:
  int dim_;
  std::vector<Id> ids_;
  std::vector<double> features_;
  std::vector<double> expected_;
  std::unordered_map<Id, std::size_t> rowOf_;  // looked up only, never iterated
  std::set<std::pair<double, Id>> ranked_;
};

}  // namespace sublinear
