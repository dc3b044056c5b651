#pragma once

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// The Greedy baseline of Takemura and Ito (arXiv:1909.02251, section VII-B1): C2UCB with alpha =
// 0, except that in the first round the scores are independent standard normal draws (so the first
// super arm is uniformly random). Options: lambda (> 0, default 1).
class GreedyCLS : public ClsPolicy {
 public:
  explicit GreedyCLS(const Json& options);
  std::string type() const override { return "greedy-cls"; }

 protected:
  const Vector& center() const override { return ridge_.theta(); }
  bool usesWidth() const override { return false; }
  double widthMultiplierBound(std::size_t) const override { return 0.0; }
  bool randomRound() const override { return rounds() == 0; }
};

}  // namespace sublinear
