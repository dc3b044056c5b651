#include "sublinear/mips/lane_kernels.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sublinear/core/random.hpp"

using namespace sublinear;

// The inline kernels must reproduce innerProduct() bit for bit (the exact scan ranks with them,
// the base class reports innerProduct's scores).
TEST(LaneKernels, BitIdenticalToInnerProduct) {
  Random random(17);
  for (std::size_t paddedDim : {4u, 8u, 16u, 36u, 100u}) {
    std::vector<float> rows(4 * paddedDim), query(paddedDim);
    for (int trial = 0; trial < 50; ++trial) {
      for (auto& v : rows) v = static_cast<float>(random.normal() * 3);
      for (auto& v : query) v = static_cast<float>(random.normal());
      float four[4];
      lanes::innerProducts4(rows.data(), query.data(), paddedDim, four);
      for (std::size_t r = 0; r < 4; ++r) {
        const float reference = innerProduct(rows.data() + r * paddedDim, query.data(), paddedDim);
        EXPECT_EQ(four[r], reference);
        EXPECT_EQ(lanes::innerProduct(rows.data() + r * paddedDim, query.data(), paddedDim), reference);
      }
      float squared = 0;
      for (std::size_t i = 0; i < paddedDim; ++i) squared += (rows[i] - query[i]) * (rows[i] - query[i]);
      EXPECT_NEAR(lanes::squaredDistance(rows.data(), query.data(), paddedDim), squared, 1e-3f * (1 + squared));
    }
  }
}
