#pragma once

#include <cstdint>

#include "sublinear/core/random.hpp"
#include "sublinear/env/linear_environment.hpp"

namespace sublinear {

// The synthetic environment of section 7 of paper 000 (`type: 'linear'`): theta* and the arms drawn
// from N(0, I_d), rewards <theta*, x> plus Gaussian noise, and every `change.every` rounds
// `change.add` fresh Gaussian arms join while `change.remove` random arms leave.
// Options: dim (16), arms (initial K, 1000), noise (standard deviation, 1), normalize (false: the
// paper's unnormalised vectors; true scales theta* and every arm to unit norm),
// change { every (0 = never), add (0), remove (0) }. Arm ids are 0, 1, 2, ... in order of creation.
class GaussianLinearEnvironment : public LinearEnvironment {
 public:
  GaussianLinearEnvironment(const Json& options, std::uint64_t instanceSeed, std::uint64_t noiseSeed);

  std::string type() const override { return "linear"; }
  const EnvironmentArms& arms() const override { return arms_; }
  double drawReward(Id arm) override;
  ArmChange changeAfterRound(std::int64_t t) override;
  Json describe() const override;

  const Vector& thetaStar() const { return thetaStar_; }

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
};

}  // namespace sublinear
