#include <gtest/gtest.h>

#include "mips_oracle.hpp"
#include "sublinear/mips/pca_tree_index.hpp"

using namespace sublinear;
using namespace mips_oracle;

TEST(PcaTreeIndex, ResultsAreLiveSortedAndExactlyScoredThroughChanges) {
  for (const std::size_t dim : {1u, 8u, 40u}) {
    for (const int depth : {1, 4, 12}) {
      interleave(Json{{"type", "pca-tree"}, {"depth", depth}, {"seed", 2}}, dim, dim * 31 + depth, {10, 5, 70, true, false});
    }
  }
}

TEST(PcaTreeIndex, DepthZeroEqualsExact) {
  interleave(Json{{"type", "pca-tree"}, {"depth", 0}}, 9, 1, {10, 10, 60, true, true});
}

TEST(PcaTreeIndex, RandomizedDirectionsAboveTheCovarianceLimit) {
  // dim + 1 > 256 takes the subspace-iteration path.
  interleave(Json{{"type", "pca-tree"}, {"depth", 3}, {"seed", 2}}, 300, 77, {4, 5, 40, true, false});
}

TEST(PcaTreeIndex, DeeperTreesScanFewerItems) {
  Random random(6);
  const std::size_t n = 4000, dim = 16, k = 5;
  const auto vectors = gaussian(random, n * dim);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  ExactIndex exact(dim);
  exact.add(ids.data(), n, vectors.data(), vectors.size());
  double previousWork = 1e18;
  for (const std::size_t depth : {0u, 2u, 4u, 6u}) {
    PcaTreeIndex index(dim, Json{{"depth", depth}, {"seed", 1}});
    index.add(ids.data(), n, vectors.data(), vectors.size());
    double precision = 0;
    for (int q = 0; q < 20; ++q) {
      const auto query = gaussian(random, dim);
      const auto truth = exact.search(query.data(), dim, k).ids;
      for (Id id : index.search(query.data(), dim, k).ids) precision += std::count(truth.begin(), truth.end(), id) / double(k * 20);
    }
    const double work = static_cast<double>(index.innerProducts());
    EXPECT_LT(work, previousWork * 0.75) << "depth " << depth;
    previousWork = work;
    if (depth == 0) {
      EXPECT_NEAR(precision, 1.0, 1e-9);
    }
    if (depth == 2) {
      EXPECT_GE(precision, 0.4);
    }
  }
}

TEST(PcaTreeIndex, InvalidOptionsAreRejected) {
  for (const Json& spec : {Json{{"type", "pca-tree"}, {"depth", -1}}, Json{{"type", "pca-tree"}, {"depth", 21}},
                           Json{{"type", "pca-tree"}, {"depth", 1.5}}}) {
    EXPECT_EQ(codeOf([&] { makeMipsIndex(4, spec); }), ErrorCode::InvalidArgument) << spec.dump();
  }
}
