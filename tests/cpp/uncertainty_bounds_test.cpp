#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/uncertainty_bounds.hpp"

using sublinear::Id;
using sublinear::Random;
using sublinear::UncertaintyBounds;

namespace uncertainty_bounds_test {

// A bucket is at most 1/128 of 2^e wide and starts at 2^(e-1) or above: 1/64 of its lower edge.
constexpr double kBucketWidth = 1.0 / 64;

UncertaintyBounds filled(std::multiset<double>* values) {
  UncertaintyBounds bounds;
  Random random(7);
  for (Id id = 0; id < 3000; ++id) {
    const double value = std::exp(3.0 * random.normal());
    bounds.push(value, id);
    if (values != nullptr) values->insert(value);
  }
  return bounds;
}

TEST(UncertaintyBounds, PopsFromTheHighestBucketAndItsEdgeBoundsEveryEntry) {
  std::multiset<double> left;
  UncertaintyBounds bounds = filled(&left);
  bounds.push(0.0, 9000);
  left.insert(0.0);
  double previousEdge = std::numeric_limits<double>::infinity();
  while (!bounds.empty()) {
    const double edge = bounds.largestBound();
    ASSERT_GE(edge, *left.rbegin());
    ASSERT_LE(edge, previousEdge);
    const auto [value, id] = bounds.pop();
    // Within a bucket of the largest value left.
    ASSERT_GE(value * (1 + kBucketWidth), *left.rbegin()) << id;
    left.erase(left.find(value));
    previousEdge = edge;
  }
  EXPECT_TRUE(left.empty());
  EXPECT_EQ(bounds.largestBound(), 0.0);
}

TEST(UncertaintyBounds, RestoringItsEntriesGivesTheSamePopsAndRetainKeepsOrder) {
  UncertaintyBounds bounds = filled(nullptr);
  for (int i = 0; i < 500; ++i) bounds.push(bounds.pop().first / 2, static_cast<Id>(i));  // as a search does
  UncertaintyBounds copy;
  copy.restore(bounds.entries());
  ASSERT_EQ(copy.size(), bounds.size());
  EXPECT_EQ(copy.entries(), bounds.entries());
  while (!bounds.empty()) {
    ASSERT_EQ(copy.largestBound(), bounds.largestBound());
    ASSERT_EQ(copy.pop(), bounds.pop());
  }
  UncertaintyBounds odd = filled(nullptr);
  const std::size_t before = odd.size();
  odd.retain([](const UncertaintyBounds::Entry& entry) { return entry.second % 2 == 1; });
  EXPECT_EQ(odd.size(), before / 2);
  for (const auto& entry : odd.entries()) EXPECT_EQ(entry.second % 2, 1u);
}

TEST(UncertaintyBounds, StorageFollowsTheEntriesAsTheirValuesFall) {
  // What a search does to an arm whose uncertainty keeps shrinking: pop it, push it lower. The
  // buckets it passed give their storage back, whatever the number of steps.
  UncertaintyBounds bounds;
  bounds.push(1.0, 7);
  bounds.push(0.5, 8);
  for (int step = 0; step < 5000; ++step) {
    const auto [value, id] = bounds.pop();
    bounds.push(value / 1.01, id);
    ASSERT_LE(bounds.bucketsHeld(), 70u) << step;  // about an octave: the two values' spread
  }
  while (!bounds.empty()) bounds.pop();
  EXPECT_EQ(bounds.bucketsHeld(), 0u);
}

TEST(UncertaintyBounds, ExtremeValuesShareTheEndBuckets) {
  UncertaintyBounds bounds;
  bounds.push(1e-300, 1);
  bounds.push(1e300, 2);
  EXPECT_EQ(bounds.largestBound(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(bounds.pop().second, 2u);
  EXPECT_GE(bounds.largestBound(), 1e-300);
  EXPECT_EQ(bounds.pop().second, 1u);
  EXPECT_TRUE(bounds.empty());
}
}  // namespace uncertainty_bounds_test
