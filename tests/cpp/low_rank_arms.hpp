// Generated low-rank embeddings for the subspace tests (arm_subspace_test.cpp, catalogue_subspace_test.cpp).
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

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

// A catalogue of low-rank unit-norm arms and a theta* in their span, for the tests of users in the
// catalogue's subspace; means[id] is x_id^T theta*, best() and uniformRegret() over the arms the
// catalogue holds now, play() feeds a user noisy rewards.
struct LowRankCatalogue {
  int dim;
  LowRankArms source;
  std::shared_ptr<Catalogue> catalogue;
  Vector thetaStar;
  std::vector<double> means;
  Random noise;

  LowRankCatalogue(int d, int rank, Json options, std::uint64_t seed) : dim(d), source(d, rank, seed), noise(seed + 1) {
    options["dim"] = d;
    catalogue = std::make_shared<Catalogue>(options);
    thetaStar = source.mixing * Vector::Ones(rank);
    thetaStar.normalize();
  }
  void add(std::size_t count, double tail) {
    const auto rows = source.draw(count, tail);
    const auto ids = idRange(static_cast<Id>(means.size()), count);
    catalogue->add(ids.data(), ids.size(), rows.data(), rows.size());
    for (std::size_t i = 0; i < count; ++i) means.push_back(Eigen::Map<const Vector>(rows.data() + i * static_cast<std::size_t>(dim), dim).dot(thetaStar));
  }
  double best() const {
    double top = -1e300;
    for (std::size_t row = 0; row < catalogue->size(); ++row) top = std::max(top, means[catalogue->arms().idAt(row)]);
    return top;
  }
  double uniformRegret() const {
    double sum = 0.0;
    for (std::size_t row = 0; row < catalogue->size(); ++row) sum += best() - means[catalogue->arms().idAt(row)];
    return sum / static_cast<double>(catalogue->size());
  }
  // `steps` selections and rewards; the regret of the last `counted` of them.
  double play(PersistentLinearPolicy& user, int steps, int counted) {
    double regret = 0.0;
    const double top = best();
    for (int t = 0; t < steps; ++t) {
      const Id arm = user->select();
      if (t >= steps - counted) regret += top - means[arm];
      user->update(arm, means[arm] + 0.1 * noise.normal());
    }
    return regret;
  }
};

}  // namespace sublinear::testing
