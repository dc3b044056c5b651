#include <gtest/gtest.h>

#include "mips_oracle.hpp"
#include "sublinear/mips/bounded_me_index.hpp"

using namespace sublinear;
using namespace mips_oracle;

TEST(BoundedMEIndex, ResultsAreLiveSortedAndExactlyScoredThroughChanges) {
  for (const std::size_t dim : {1u, 7u, 64u, 130u}) {
    interleave(Json{{"type", "bounded-me"}, {"epsilon", 0.3}, {"delta", 0.2}, {"seed", 3}}, dim, dim, {12, 5, 60, true, false});
  }
}

TEST(BoundedMEIndex, SmallEpsilonReadsEverythingAndIsExact) {
  // epsilon so small that m(u) = N in the first round: every coordinate is pulled, the means are exact.
  const double precision = interleave(Json{{"type", "bounded-me"}, {"epsilon", 1e-4}, {"delta", 0.1}, {"seed", 1}}, 40, 11, {6, 5, 80, true, true});
  EXPECT_EQ(precision, 1.0);
}

TEST(BoundedMEIndex, PrecisionAndWorkOnGaussianData) {
  // 2000 x 2048 Gaussian, top 5: precision against exact, and the partial products actually saved.
  const std::size_t n = 2000, dim = 2048, k = 5;
  Random random(42);
  const auto vectors = gaussian(random, n * dim);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  ExactIndex exact(dim);
  exact.add(ids.data(), n, vectors.data(), vectors.size());
  for (const double epsilon : {0.02, 0.3, 0.9}) {
    BoundedMEIndex index(dim, Json{{"epsilon", epsilon}, {"delta", 0.1}, {"seed", 7}});
    index.add(ids.data(), n, vectors.data(), vectors.size());
    double precision = 0;
    const int queries = 10;
    for (int q = 0; q < queries; ++q) {
      const auto query = gaussian(random, dim);
      const auto truth = exact.search(query.data(), dim, k).ids;
      for (Id id : index.search(query.data(), dim, k).ids) precision += std::count(truth.begin(), truth.end(), id) / double(k);
    }
    precision /= queries;
    const Json stats = index.stats();
    const double work = stats["innerProducts"].get<double>() / (queries * n);
    std::cout << "epsilon " << epsilon << ": precision@5 " << precision << ", inner products / exhaustive " << work << "\n";
    EXPECT_LE(stats["pulls"].get<double>(), static_cast<double>(queries) * n * dim);
    EXPECT_GT(stats["suboptimalityBound"].get<double>(), 0);
    if (epsilon == 0.02) {
      EXPECT_GE(precision, 0.9);
    }
    if (epsilon == 0.9) {  // sublinear in dim
      EXPECT_LT(work, 0.5);
    }
    EXPECT_GE(precision, 0.2);
  }
}

TEST(BoundedMEIndex, SameSeedSameResults) {
  Random random(9);
  const std::size_t n = 300, dim = 50;
  const auto vectors = gaussian(random, n * dim);
  std::vector<Id> ids(n);
  std::iota(ids.begin(), ids.end(), 10);
  const Json options{{"epsilon", 0.4}, {"delta", 0.3}, {"seed", 5}};
  BoundedMEIndex a(dim, options), b(dim, options);
  a.add(ids.data(), n, vectors.data(), vectors.size());
  b.add(ids.data(), n, vectors.data(), vectors.size());
  for (int q = 0; q < 5; ++q) {
    const auto query = gaussian(random, dim);
    EXPECT_EQ(a.search(query.data(), dim, 3).ids, b.search(query.data(), dim, 3).ids);
  }
}

TEST(BoundedMEIndex, InvalidOptionsAreRejected) {
  for (const Json& spec : {Json{{"type", "bounded-me"}, {"epsilon", 0}}, Json{{"type", "bounded-me"}, {"epsilon", 1}},
                           Json{{"type", "bounded-me"}, {"delta", 1.5}}, Json{{"type", "bounded-me"}, {"delta", "x"}},
                           Json{{"type", "bounded-me"}, {"seed", -1}}}) {
    EXPECT_EQ(codeOf([&] { makeMipsIndex(4, spec); }), ErrorCode::InvalidArgument) << spec.dump();
  }
}
