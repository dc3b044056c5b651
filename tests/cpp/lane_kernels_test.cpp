#include "sublinear/mips/lane_kernels.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

// The euclidean reduction's graphs keep a row and its extra coordinate apart (hnsw_graph.hpp): the
// extended kernels must give the bits squaredDistance gives over the rows with the extra coordinate
// written at index dim, for every dim modulo the lane width (the coordinate inside the row's
// padding or in a lane group of its own), between two items and from four items to a query.
TEST(LaneKernels, ExtendedDistancesAreSquaredDistanceOverTheExtendedRows) {
  Random random(23);
  for (std::size_t dim : {1u, 3u, 4u, 7u, 8u, 13u, 16u, 30u}) {
    const std::size_t paddedDim = paddedDimension(dim), extendedDim = paddedDimension(dim + 1);
    std::vector<float> rows(5 * paddedDim, 0.0f), extended(5 * extendedDim, 0.0f);
    for (int trial = 0; trial < 40; ++trial) {
      float extra[5];
      for (std::size_t r = 0; r < 5; ++r) {
        for (std::size_t i = 0; i < dim; ++i) {
          rows[r * paddedDim + i] = extended[r * extendedDim + i] = static_cast<float>(random.normal() * 3);
        }
        // The query (row 4) has extra coordinate 0, as a graph query.
        extra[r] = r == 4 ? 0.0f : static_cast<float>(std::abs(random.normal()) * 5);
        extended[r * extendedDim + dim] = extra[r];
      }
      const auto row = [&](std::size_t r) { return rows.data() + r * paddedDim; };
      const auto extendedRow = [&](std::size_t r) { return extended.data() + r * extendedDim; };
      EXPECT_EQ(lanes::squaredDistanceExtended(row(0), row(1), paddedDim, dim, extra[0] - extra[1]),
                lanes::squaredDistance(extendedRow(0), extendedRow(1), extendedDim))
          << "dim " << dim;
      const float* four[4] = {row(0), row(1), row(2), row(3)};
      float out[4];
      lanes::squaredDistancesExtended4(four, extra, row(4), paddedDim, dim, out);
      for (std::size_t r = 0; r < 4; ++r) {
        EXPECT_EQ(out[r], lanes::squaredDistance(extendedRow(r), extendedRow(4), extendedDim)) << "dim " << dim << " row " << r;
      }
    }
  }
}
