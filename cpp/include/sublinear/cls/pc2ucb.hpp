#pragma once

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// Perturbed C2UCB (Takemura and Ito, arXiv:1909.02251, Algorithm 1): each round every arm
// draws its own c~(i) ~ U[0, c] and
//   r^(i) = theta^T x(i) + (1 + c~(i)) alpha ||x(i)||_{V^-1}.
// Arms with equal features (a cluster) no longer tie, so a super arm mixes clusters.
// Options: lambda (> 0, default 1), alpha (>= 0, default 1), c (>= 0, default 1).
class PC2UCB : public ClsPolicy {
 public:
  explicit PC2UCB(const Json& options);
  std::string type() const override { return "pc2ucb"; }

 protected:
  const Vector& center() const override { return ridge_.theta(); }
  bool usesWidth() const override { return true; }
  double widthMultiplier(Id row) override { return (1.0 + armDraw(row)) * alpha_; }
  double widthMultiplierBound(std::size_t) const override { return (1.0 + c_) * alpha_; }
  double drawArmNoise() override { return random_.uniform(0.0, c_); }

 private:
  double alpha_;
  double c_;
};

}  // namespace sublinear
