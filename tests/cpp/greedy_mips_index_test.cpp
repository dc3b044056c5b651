#include <gtest/gtest.h>

#include "mips_index_checks.hpp"
#include "sublinear/mips/greedy_mips_index.hpp"

using namespace sublinear;
using namespace sublinear::testing;

TEST(GreedyMipsIndex, ResultsAreLiveSortedAndExactlyScoredThroughChanges) {
  for (const std::size_t dim : {1u, 5u, 32u}) {
    const auto report = checkAgainstExact(Json{{"type", "greedy"}, {"budgetFraction", 0.2}}, dim, 80, 15, 10, false, dim + 100);
    EXPECT_GE(report.meanPrecision, dim == 1 ? 0.99 : 0.3) << "dim " << dim;  // in one dimension the first items screened are the best
  }
  checkAgainstExact(Json{{"type", "greedy"}, {"budget", 25}}, 12, 60, 10, 5, false, 3);
}

TEST(GreedyMipsIndex, FullBudgetEqualsExact) {
  for (const std::size_t dim : {1u, 6u, 33u}) {
    checkAgainstExact(Json{{"type", "greedy"}, {"budgetFraction", 1.0}}, dim, 70, 12, 10, true, dim);
  }
}

TEST(GreedyMipsIndex, LargerBudgetScreensMoreAndFindsMore) {
  Random random(4);
  const std::size_t n = 3000, dim = 32, k = 10;
  const auto vectors = gaussianVector(random, n * dim);
  std::vector<ItemId> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  ExactIndex exact(dim);
  exact.add(ids.data(), n, vectors.data(), vectors.size());
  double previous = -1;
  for (const double fraction : {0.02, 0.1, 0.5}) {
    GreedyMipsIndex index(dim, Json{{"budgetFraction", fraction}});
    index.add(ids.data(), n, vectors.data(), vectors.size());
    double precision = 0;
    Random queries(8);
    for (int q = 0; q < 20; ++q) {
      const auto query = gaussianVector(queries, dim);
      const auto truth = exact.search(query.data(), dim, k).ids;
      for (ItemId id : index.search(query.data(), dim, k).ids) precision += std::count(truth.begin(), truth.end(), id) / double(k * 20);
    }
    EXPECT_GE(precision, previous - 0.02) << fraction;
    previous = precision;
  }
  EXPECT_GE(previous, 0.9);
}

TEST(GreedyMipsIndex, InvalidOptionsAreRejected) {
  for (const Json& spec : {Json{{"type", "greedy"}, {"budget", 0}}, Json{{"type", "greedy"}, {"budget", 2.5}},
                           Json{{"type", "greedy"}, {"budgetFraction", 0}}, Json{{"type", "greedy"}, {"budgetFraction", 1.1}},
                           Json{{"type", "greedy"}, {"budget", 3}, {"budgetFraction", 0.5}}}) {
    EXPECT_EQ(codeOf([&] { makeMipsIndex(4, spec); }), ErrorCode::InvalidArgument) << spec.dump();
  }
}
