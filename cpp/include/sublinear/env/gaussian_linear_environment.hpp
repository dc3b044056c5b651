#pragma once

#include <cstdint>

#include "sublinear/core/random.hpp"
#include "sublinear/env/linear_environment.hpp"

namespace sublinear {

// The synthetic environment of section 7 of Yang et al. (arXiv:2103.02729, `type: 'linear'`): theta* and
// the arms drawn from N(0, I_d), rewards <theta*, x> plus Gaussian noise, and every `change.every` rounds
// `change.add` fresh Gaussian arms join while `change.remove` random arms leave.
// Options: dim (16), arms (initial K, 1000), noise (standard deviation, 1), normalize (false: the
// paper's unnormalised vectors; true scales theta* and every arm to unit norm),
// change { every (0 = never), add (0), remove (0) }. Arm ids are 0, 1, 2, ... in order of creation.
// users (1) > 1 gives each user u its own theta_u = theta* + spread |theta*| z_u / sqrt(d), z_u ~ N(0, I)
// (spread 0.5): spread is a user's typical distance from the shared mean relative to the mean's norm.
// The users' thetas come from a stream of their own, so one user draws exactly what it always drew.
// drift { kind, every, period } (issue 51: tastes that change): 'switch' turns each user's theta to
// another of the same norm, orthogonal to it, every `every` rounds and back at the next switch (an
// abrupt change, and a periodic one); 'rotate' turns it in that plane once every `period` rounds (a
// slow change). The rounds are the user's own (those that served it), and each user of a many-user
// run has its own phase (its first switch falls at a round of its own); a single user's starts at
// round 0. Regret is against the theta of the round.
class GaussianLinearEnvironment : public LinearEnvironment {
 public:
  GaussianLinearEnvironment(const Json& options, std::uint64_t instanceSeed, std::uint64_t noiseSeed);

  std::string type() const override { return "linear"; }
  const EnvironmentArms& arms() const override { return arms_; }
  double drawReward(Id arm) override;
  ArmChange changeAfterRound(std::int64_t t) override;
  Json describe() const override;

  const Vector& thetaStar() const { return thetaStar_; }
  std::size_t userCount() const override { return userThetas_.empty() ? 1 : userThetas_.size(); }
  void setUser(std::size_t user) override;
  double regret(Id arm) const override;

 private:
  // Draws one arm's features into `out` (dim doubles) from the instance stream.
  void drawArm(double* out);
  void addArm(const double* features);

  Random instance_;
  Random noise_;
  double noiseDeviation_;
  bool normalize_;
  std::int64_t changeEvery_;
  std::size_t changeAdd_;
  std::size_t changeRemove_;
  std::size_t initialArms_;
  Id nextId_ = 0;
  Vector thetaStar_;
  EnvironmentArms arms_;
  double spread_ = 0.0;
  // Many users: one theta each, and each one's best expected reward over the current arms, found by
  // a scan when first needed after the arms changed (NaN until then).
  std::vector<Vector> userThetas_;
  mutable std::vector<double> userBest_;
  std::size_t user_ = 0;

  double userMean(Id arm) const;

  // Drift: the kind, its rounds, each user's two tastes (base and an orthogonal axis of the same
  // norm) and phase, the rounds each user was served, and the round of its own each user's theta
  // was last brought to (rotation).
  enum class DriftKind { None, Switch, Rotate };
  DriftKind driftKind_ = DriftKind::None;
  std::int64_t driftEvery_ = 0;
  std::int64_t driftPeriod_ = 0;
  std::vector<Vector> userBase_;
  std::vector<Vector> userAxis_;
  std::vector<std::int64_t> userPhase_;
  std::vector<std::int64_t> userRounds_;
  mutable std::vector<Vector> driftingThetas_;
  mutable std::vector<std::int64_t> thetaRound_;
  void setUpDrift(const Json& options, std::uint64_t instanceSeed);
  // The user's theta at the current round (rotation: computed when first asked in a round).
  const Vector& thetaOf(std::size_t user) const;
};

}  // namespace sublinear
