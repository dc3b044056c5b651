#pragma once

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// C2UCB (Qin, Chen and Zhu 2014; Takemura and Ito (arXiv:1909.02251) Algorithm 1 without the
// perturbation):
//   r^(i) = theta^T x(i) + alpha ||x(i)||_{V^-1},  V_0 = lambda I,  alpha_t = alpha.
// Options: lambda (> 0, default 1), alpha (>= 0, default 1).
class C2UCB : public ClsPolicy {
 public:
  explicit C2UCB(const Json& options);
  std::string type() const override { return "c2ucb"; }
  double alpha() const { return alpha_; }

 protected:
  const Vector& center() const override { return ridge_.theta(); }
  bool usesWidth() const override { return true; }
  double widthMultiplier(Id) override { return alpha_; }
  double widthMultiplierBound(std::size_t) const override { return alpha_; }

 private:
  double alpha_;
};

}  // namespace sublinear
