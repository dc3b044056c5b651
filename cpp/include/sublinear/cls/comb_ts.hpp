#pragma once

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// Thompson sampling for CLS (Takemura and Ito, arXiv:1909.02251, Algorithm 2), V_0 = lambda I,
// v_t = v.
//  - randomization 'round': one theta~ ~ N(theta^, v^2 V^-1) per round, r^(i) = theta~^T x(i).
//  - randomization 'arm': one theta~(i) per arm, r^(i) = theta~(i)^T x(i). Only the scalar
//    theta~(i)^T x(i) matters, and it is N(theta^T x(i), v^2 ||x(i)||^2_{V^-1}), independently over
//    arms; so it is drawn as theta^T x(i) + v z(i) ||x(i)||_{V^-1} with z(i) ~ N(0, 1): the same
//    distribution of scores (hence of super arms) as drawing d-dimensional theta~(i), at O(1) random
//    numbers per arm instead of O(d), and in the form the shortlist index can bound.
// Options: lambda (> 0, default 1), v (>= 0, default 1), randomization ('arm' default, or 'round').
class CombTS : public ClsPolicy {
 public:
  explicit CombTS(const Json& options);
  std::string type() const override { return "comb-ts"; }
  bool armWise() const { return armWise_; }

 protected:
  void beginRound() override;
  const Vector& center() const override { return armWise_ ? ridge_.theta() : sample_; }
  bool usesWidth() const override { return armWise_; }
  double widthMultiplier(Id row) override { return v_ * armDraw(row); }
  // z(i) <= sqrt(2 log(N / delta)) for all N arms with probability >= 1 - delta (Gaussian tail and
  // a union bound): the shortlist's guarantee for arm-wise TS holds outside that event.
  double widthMultiplierBound(std::size_t arms) const override;
  double drawArmNoise() override { return random_.normal(); }

 private:
  double v_;
  bool armWise_;
  Vector sample_;
};

}  // namespace sublinear
