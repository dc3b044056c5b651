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

// Graph distances over rows longer than kInterleavedRowsMaxStride keep four sums (lane_kernels.hpp):
// lane l of sum k adds elements 16 j + 4 k + l in order, the tail goes to sum 0, and the sums are
// added (s0 + s1) + (s2 + s3) before innerProduct's combination. Shorter rows keep innerProduct's and
// squaredDistanceExtended's bits (graphDistances4 scores them four at a time).
TEST(LaneKernels, GraphDistancesOfLongRowsKeepFourSumsInTheirDocumentedOrder) {
  Random random(29);
  for (std::size_t paddedDim : {4u, 36u, 64u, 68u, 72u, 80u, 100u, 784u}) {
    std::vector<float> a(paddedDim), b(paddedDim);
    for (int trial = 0; trial < 20; ++trial) {
      for (auto& v : a) v = static_cast<float>(random.normal());
      for (auto& v : b) v = static_cast<float>(random.normal());
      const float extra = static_cast<float>(random.normal());
      const std::size_t at = paddedDim - 3;
      if (paddedDim <= lanes::kInterleavedRowsMaxStride) {
        EXPECT_EQ(lanes::graphInnerProduct(a.data(), b.data(), paddedDim), innerProduct(a.data(), b.data(), paddedDim));
        EXPECT_EQ(lanes::graphSquaredDistanceExtended(a.data(), b.data(), paddedDim, at, extra),
                  lanes::squaredDistanceExtended(a.data(), b.data(), paddedDim, at, extra));
        continue;
      }
      float product[4][4] = {}, squared[4][4] = {};
      for (std::size_t i = 0; i < paddedDim; ++i) {
        const std::size_t group = i / 4, sum = i < paddedDim / 16 * 16 ? group % 4 : 0;
        product[sum][i % 4] += a[i] * b[i];
        squared[sum][i % 4] += (a[i] - b[i]) * (a[i] - b[i]);
      }
      float p[4], q[4];
      for (std::size_t l = 0; l < 4; ++l) {
        p[l] = (product[0][l] + product[1][l]) + (product[2][l] + product[3][l]);
        q[l] = (squared[0][l] + squared[1][l]) + (squared[2][l] + squared[3][l]);
      }
      q[at % 4] += extra * extra;
      EXPECT_EQ(lanes::graphInnerProduct(a.data(), b.data(), paddedDim), (p[0] + p[1]) + (p[2] + p[3])) << paddedDim;
      EXPECT_EQ(lanes::graphSquaredDistanceExtended(a.data(), b.data(), paddedDim, at, extra), (q[0] + q[1]) + (q[2] + q[3])) << paddedDim;
      double exact = 0.0;
      for (std::size_t i = 0; i < paddedDim; ++i) exact += static_cast<double>(a[i]) * b[i];
      EXPECT_NEAR(lanes::graphInnerProduct(a.data(), b.data(), paddedDim), exact, 1e-4 * std::sqrt(static_cast<double>(paddedDim)));
    }
  }
}
