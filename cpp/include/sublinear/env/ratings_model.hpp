#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/env/ratings_table.hpp"

namespace sublinear {

// What the movie experiment of Yang et al. (arXiv:2103.02729, section 7, after Qin et al. 2014)
// derives from a ratings file once, before any user is served: `testUsers` users with more than
// `minRatings` ratings are held out (chosen at random with the instance seed), the other users'
// ratings are factorised by ALS into `dim`-dimensional movie features, and the movies are ordered
// by the time of their first rating (the order in which they arrive in the bandit). Immutable after
// construction, so several runs (one per held-out user) can share it.
// Options: dim (16), iterations (10), lambda (0.1, ALS-WR), testUsers (300), minRatings (100),
// user (a user id to hold out and play even if it was not drawn).
class RatingsModel {
 public:
  RatingsModel(const std::string& text, const Json& options, std::uint64_t instanceSeed);

  int dim() const { return static_cast<int>(movieFeatures_.rows()); }
  const RatingsTable& table() const { return table_; }
  // Movie ids in order of arrival (first rating time, ties by id).
  const std::vector<std::uint32_t>& moviesByArrival() const { return moviesByArrival_; }
  // Features of the movie at position i of moviesByArrival(): column i (dim doubles).
  const double* featuresOfArrival(std::size_t i) const { return movieFeatures_.col(static_cast<Eigen::Index>(i)).data(); }
  // The held-out users, in the order the runs play them (run seed s plays heldOutUsers()[s mod n]).
  const std::vector<std::uint32_t>& heldOutUsers() const { return heldOutUsers_; }
  std::size_t trainingRatings() const { return trainingRatings_; }
  // Root mean squared error of the factorisation on its own training ratings (a sanity figure).
  double trainingRmse() const { return trainingRmse_; }
  // The ratings of one user, sorted by movie id.
  std::vector<Rating> ratingsOf(std::uint32_t user) const;

 private:
  RatingsTable table_;
  std::vector<std::uint32_t> moviesByArrival_;
  std::vector<std::uint32_t> heldOutUsers_;
  Matrix movieFeatures_;  // dim x movies, in arrival order
  std::size_t trainingRatings_ = 0;
  double trainingRmse_ = 0.0;
};

}  // namespace sublinear
