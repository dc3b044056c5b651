// Generated low-rank embeddings for the subspace tests (arm_subspace_test.cpp, catalogue_subspace_test.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/linear/arm_set.hpp"

namespace sublinear::testing {

// `count` unit-norm arms x = A z / |A z| in d dimensions, A a fixed d x rank Gaussian matrix, plus
// an isotropic tail of relative scale `tail` (real embeddings: a few strong directions and a long
// weak remainder).
struct LowRankArms {
  int dim;
  int rank;
  Matrix mixing;
  Random random;
  LowRankArms(int d, int r, std::uint64_t seed) : dim(d), rank(r), mixing(d, r), random(seed) {
    for (Eigen::Index i = 0; i < mixing.size(); ++i) mixing.data()[i] = random.normal();
  }
  std::vector<double> draw(std::size_t count, double tail) {
    std::vector<double> rows(count * static_cast<std::size_t>(dim));
    for (std::size_t i = 0; i < count; ++i) {
      Vector z(rank);
      for (int k = 0; k < rank; ++k) z[k] = random.normal() / std::sqrt(1.0 + k / 4.0);
      Vector x = mixing * z / std::sqrt(static_cast<double>(dim));
      for (int j = 0; j < dim; ++j) x[j] += tail * random.normal() / std::sqrt(static_cast<double>(dim));
      x.normalize();
      for (int j = 0; j < dim; ++j) rows[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)] = x[j];
    }
    return rows;
  }
};

inline std::vector<Id> idRange(Id first, std::size_t count) {
  std::vector<Id> ids(count);
  for (std::size_t i = 0; i < count; ++i) ids[i] = first + static_cast<Id>(i);
  return ids;
}

}  // namespace sublinear::testing
