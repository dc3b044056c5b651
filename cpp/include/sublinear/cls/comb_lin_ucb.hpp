#pragma once

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// CombLinUCB (Wen, Kveton and Ashkan 2015), with prior theta ~ N(0, lambda^2 I) and noise variance
// sigma^2: Sigma_t = (I / lambda^2 + sum x x^T / sigma^2)^-1, theta_t = Sigma_t sum r x / sigma^2,
// index theta_t^T x + c sqrt(x^T Sigma_t x). With mu = sigma^2 / lambda^2 that is ridge regression
// V = mu I + sum x x^T, theta_t = V^-1 b, Sigma_t = sigma^2 V^-1, so the index is
// theta^T x + c sigma ||x||_{V^-1}: C2UCB's form with lambda = mu and alpha = c sigma.
// Options: priorVariance (lambda^2, default 1), noiseVariance (sigma^2, default 1), c (default 1).
class CombLinUCB : public ClsPolicy {
 public:
  explicit CombLinUCB(const Json& options);
  std::string type() const override { return "comb-lin-ucb"; }

 protected:
  const Vector& center() const override { return ridge_.theta(); }
  bool usesWidth() const override { return true; }
  double widthMultiplier(Id) override { return multiplier_; }
  double widthMultiplierBound(std::size_t) const override { return multiplier_; }

 private:
  double multiplier_;
};

}  // namespace sublinear
