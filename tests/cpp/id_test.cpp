#include "sublinear/core/id.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sublinear {
namespace id_test {

std::size_t repeatIn(const std::vector<Id>& ids) { return firstRepeatedId(ids.data(), ids.size()); }

TEST(FirstRepeatedId, DistinctIdsHaveNone) {
  EXPECT_EQ(repeatIn({}), 0u);
  EXPECT_EQ(repeatIn({7}), 1u);
  EXPECT_EQ(repeatIn({9, 3, 4294967295u, 0, 5}), 5u);
}

TEST(FirstRepeatedId, FindsTheEarliestSecondOccurrence) {
  // 5 repeats at position 4, 2 at position 3: a check walking the batch in order fails at 3.
  EXPECT_EQ(repeatIn({5, 2, 8, 2, 5}), 3u);
  EXPECT_EQ(repeatIn({1, 1}), 1u);
  EXPECT_EQ(repeatIn({4, 6, 4, 4}), 2u);
  EXPECT_EQ(repeatIn({3, 9, 0, 7, 9, 3}), 4u);
}

}  // namespace id_test
}  // namespace sublinear
