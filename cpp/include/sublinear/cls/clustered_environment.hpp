#pragma once

#include <vector>

#include "sublinear/cls/cls_environment.hpp"
#include "sublinear/core/options.hpp"

namespace sublinear {

// Takemura and Ito's (arXiv:1909.02251) artificial clustered case (section VII-A1): d - 1 clusters;
// every arm of cluster i (i = 2..d) has the feature (cos angle) e_1 + (sin angle) e_i, so the
// clusters become orthogonal as angle -> pi/2. theta* is uniform on the unit sphere; rewards are +1
// or -1 with mean theta*^T x. Clusters are contiguous, equal-sized blocks of rows (arm r is in
// cluster floor(r (d - 1) / N)), as in the paper's section IV example. The features are the same
// every round. Options: dim (d >= 2, default 11), arms (N, default 2000), k (default 100), angle (in
// (0, pi/2], default pi/4), jitter (default 0: a Gaussian perturbation of this scale added to every
// arm's feature before renormalising, which makes the clusters blobs rather than points), seed, and
// drift ({ kind: 'switch', every }: theta* turns to -theta* every `every` rounds, so the best arms
// become the worst and back at the next switch; none by default).
class ClusteredEnvironment final : public ClsEnvironment {
 public:
  ClusteredEnvironment(const Json& options, std::uint64_t seed);

  std::size_t dim() const override { return dim_; }
  bool fixedArms() const override { return true; }
  void beginRound() override;
  ArmFeatures arms() const override { return ArmFeatures::dense(features_.data(), means_.size(), dim_); }
  const SuperArmConstraint& constraint() const override { return constraint_; }
  double expectedReward(Id row) const override { return means_[row]; }
  double drawReward(Id row) override;
  std::uint64_t meanChanges() const override { return switches_; }
  const Vector& thetaStar() const { return thetaStar_; }

 private:
  // Rounds begun, and between switches of the drift (0: none), and the switches made.
  std::int64_t round_ = 0;
  std::int64_t driftEvery_ = 0;
  std::uint64_t switches_ = 0;

  std::size_t dim_;
  Random random_;
  Vector thetaStar_;
  std::vector<double> features_;
  std::vector<double> means_;
  SuperArmConstraint constraint_;
};

}  // namespace sublinear
