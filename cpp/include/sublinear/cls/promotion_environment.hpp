#pragma once

#include <vector>

#include "sublinear/cls/cls_environment.hpp"
#include "sublinear/core/options.hpp"

namespace sublinear {

// Takemura and Ito's (arXiv:1909.02251) sending-promotion problem (section VII-A2): M promotions, N
// users drawn each round; arm jN + i is "user i gets promotion j", with the block feature (0, ...,
// x(i), ..., 0) in R^{dM} (x(i) in block j) and theta* = (theta*_1, ..., theta*_M). A super arm is
// exactly k users per promotion (groups = promotions, perGroup = k, k_total = M k), as the paper's S
// defines it.
//
// The paper takes x(i) from an SVD of MovieLens ratings (reward: the rating, 0 when the user did not
// rate the movie). Without a ratings file the users come from a generated low-rank model instead,
// with the structure the paper reports (Figure 3: users nearly orthogonal, most never respond):
// `population` users in `rank` clusters, user u = normalise(e_c + spread |g|) for its cluster c,
// feature x = (u, 1) / sqrt(2) (rank + 1 entries: the constant entry of the paper's features);
// promotion j appeals to one cluster, w_j = normalise(e_c' + spread |g|), and the reward is
// Bernoulli(u^T w_j / 2), i.e. theta*_j = (w_j / sqrt 2, 0).
// Options: promotions (M, default 10), k (per promotion, default 50), users (N, default 100 k, as
// in the paper), population (default max(N, 20000)), rank (default 10), spread (default 0.3), seed,
// and drift ({ kind: 'switch', every }: every `every` rounds each promotion takes the next one's
// reward model, promotion j that of j + 1 and the last the first's, so that what each promotion is
// best for turns; at least 2 promotions; none by default).
//
// With `ratings` (a MovieLens file's contents) the users are the file's: as in the paper, M movies
// rated by testMinRaters..testMaxRaters users (default 1,400..2,800) are drawn as the promotions and
// held out; ALS (rank `rank`, `iterations` 10, `lambda` 0.1) on the other ratings gives each user's
// factor u, the feature is x = (u, 1), and the reward of user i for promotion j is i's rating of
// movie j, 0 when unrated (deterministic, as in the paper).
class PromotionEnvironment final : public ClsEnvironment {
 public:
  PromotionEnvironment(const Json& options, std::uint64_t seed);

  std::size_t dim() const override { return width_ * promotions_; }
  bool fixedArms() const override { return false; }
  void beginRound() override;
  ArmFeatures arms() const override { return ArmFeatures::blocks(roundFeatures_.data(), users_, promotions_, width_); }
  const SuperArmConstraint& constraint() const override { return constraint_; }
  double expectedReward(Id row) const override { return means_[row]; }
  double drawReward(Id row) override {
    if (!ratingOf_.empty()) return means_[row];
    return random_.bernoulli(means_[row]) ? 1.0 : 0.0;
  }

 private:
  void loadRatings(const Json& options);
  // The drift's switch: each promotion's reward model (theta*_j, or its movie's ratings) moves to the
  // promotion before it.
  void passRewardModelsOn();
  void generateUsers(const Json& options);

  std::size_t promotions_;
  std::size_t users_;
  std::size_t width_;  // rank + 1
  Random random_;
  std::vector<double> populationFeatures_;  // population x width
  std::vector<double> promotionParameters_; // promotions x width: theta*_j
  std::vector<std::size_t> permutation_;
  std::vector<double> roundFeatures_;       // users x width
  std::vector<double> ratingOf_;            // with ratings: promotions x population (0 = unrated)
  std::vector<double> means_;               // promotions * users
  SuperArmConstraint constraint_;
  std::int64_t round_ = 0;
  std::int64_t driftEvery_ = 0;
};

}  // namespace sublinear
