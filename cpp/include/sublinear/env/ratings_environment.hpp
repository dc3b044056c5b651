#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/env/linear_environment.hpp"
#include "sublinear/env/ratings_model.hpp"

namespace sublinear {

// The movie-recommendation bandit of Yang et al. (arXiv:2103.02729), section 7 (`type: 'ratings'`):
// one held-out user is served `horizon` recommendations; the arms are movies with their ALS
// features; the reward of a movie is 1 if the user rated it >= `threshold` (4) and 0 otherwise
// (unrated movies give 0), with no further noise. Movies arrive in order of first rating time: the
// first `arms` are there at the start (default: all movies minus those the schedule adds, so that
// the last arrives by the end, as the paper's 1,952 + 2 per 20 steps = 3,952), then `change.add`
// (2) every `change.every` (20) rounds; `change.remove` random movies may leave too.
// Regret (option `regret`): 'paper' (default) is the paper's: 1 when the recommended movie is not
// rated >= threshold by the user, else 0, i.e. 1 - reward, whether or not a liked movie is
// available; 'best' is the best expected reward of the current movies minus the chosen one's.
// users (1) > 1 serves that many of the file's held-out users over the same movies (one catalogue in
// simulate()), each rewarded by their own ratings: the run with seed s plays held-out users s, s + 1,
// ... (mod their number), so users: 1 is the run's one user. The user to serve next is setUser's.
class RatingsEnvironment : public LinearEnvironment {
 public:
  RatingsEnvironment(std::shared_ptr<const RatingsModel> model, const Json& options, std::int64_t horizon,
                     std::uint64_t instanceSeed, std::uint64_t runSeed);

  std::string type() const override { return "ratings"; }
  const EnvironmentArms& arms() const override { return arms_; }
  double drawReward(Id arm) override;
  double regret(Id arm) const override;
  ArmChange changeAfterRound(std::int64_t t) override;
  Json describe() const override;

  // The user served now (the run's one user unless users > 1).
  std::uint32_t user() const { return users_.empty() ? user_ : users_[current_].id; }
  std::size_t userCount() const override { return users_.empty() ? 1 : users_.size(); }
  void setUser(std::size_t user) override;

 private:
  // One of many users: their ratings (sorted by movie) and their best reward over the current
  // movies, found by a scan when first needed after the movies changed (NaN until then).
  struct ServedUser {
    std::uint32_t id;
    std::vector<Rating> ratings;
    double best;
  };

  double rewardOf(std::uint32_t movie) const { return rewardOf(userRatings_, movie); }
  double rewardOf(const std::vector<Rating>& ratings, std::uint32_t movie) const;
  // The expected reward of `movie` for the user served now (its ratings; the arm set holds the
  // first user's).
  double currentReward(Id movie) const;
  void addNextMovie(ArmChange* change);

  std::shared_ptr<const RatingsModel> model_;
  std::uint32_t user_;
  std::vector<Rating> userRatings_;  // sorted by movie
  double threshold_;
  bool paperRegret_;
  std::int64_t changeEvery_;
  std::size_t changeAdd_;
  std::size_t changeRemove_;
  std::size_t initialArms_ = 0;
  std::size_t nextArrival_ = 0;
  Random random_;
  EnvironmentArms arms_;
  mutable std::vector<ServedUser> users_;
  std::size_t current_ = 0;
};

}  // namespace sublinear
