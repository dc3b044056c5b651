#include <gtest/gtest.h>

#include "mips_oracle.hpp"
#include "sublinear/mips/greedy_mips_index.hpp"

using namespace sublinear;
using namespace mips_oracle;

TEST(GreedyMipsIndex, ResultsAreLiveSortedAndExactlyScoredThroughChanges) {
  for (const std::size_t dim : {1u, 5u, 32u}) {
    const double precision = interleave(Json{{"type", "greedy"}, {"budgetFraction", 0.2}}, dim, dim + 100, {15, 10, 80, true, false});
    EXPECT_GE(precision, dim == 1 ? 0.99 : 0.3) << "dim " << dim;  // in one dimension the first items screened are the best
  }
  interleave(Json{{"type", "greedy"}, {"budget", 25}}, 12, 3, {10, 5, 60, true, false});
}

TEST(GreedyMipsIndex, FullBudgetEqualsExact) {
  for (const std::size_t dim : {1u, 6u, 33u}) {
    interleave(Json{{"type", "greedy"}, {"budgetFraction", 1.0}}, dim, dim, {12, 10, 70, true, true});
  }
}

TEST(GreedyMipsIndex, LargerBudgetScreensMoreAndFindsMore) {
  Random random(4);
  const std::size_t n = 3000, dim = 32, k = 10;
  const auto vectors = gaussian(random, n * dim);
  std::vector<Id> ids(n);
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
      const auto query = gaussian(queries, dim);
      const auto truth = exact.search(query.data(), dim, k).ids;
      for (Id id : index.search(query.data(), dim, k).ids) precision += std::count(truth.begin(), truth.end(), id) / double(k * 20);
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
