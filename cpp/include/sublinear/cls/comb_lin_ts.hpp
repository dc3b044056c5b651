#pragma once

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// CombLinTS (Wen, Kveton and Ashkan 2015): the same Gaussian posterior as CombLinUCB,
// N(theta_t, Sigma_t) = N(V^-1 b, sigma^2 V^-1) with V = (sigma^2 / lambda^2) I + sum x x^T; one
// theta~ is drawn per round and every arm is scored theta~^T x (round-wise randomization).
// Options: priorVariance (lambda^2, default 1), noiseVariance (sigma^2, default 1).
class CombLinTS : public ClsPolicy {
 public:
  explicit CombLinTS(const Json& options);
  std::string type() const override { return "comb-lin-ts"; }

 protected:
  void beginRound() override { sample_ = ridge_.sampleTheta(random_, sigma_); }
  const Vector& center() const override { return sample_; }
  bool usesWidth() const override { return false; }
  double widthMultiplierBound(std::size_t) const override { return 0.0; }

 private:
  double sigma_;
  Vector sample_;
};

}  // namespace sublinear
