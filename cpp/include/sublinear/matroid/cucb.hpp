#pragma once

#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// CUCB (Tzeng et al., arXiv:2405.17968, Eq. 1): after pulling every arm once, play the
// maximum-weight basis under the UCB indices mu^_k + lambda_t / sqrt(N_k), computed by the greedy
// algorithm over all K arms each round: the O(K (log K + T_member)) baseline.
class Cucb : public SemiBanditPolicy {
 public:
  Cucb(const Matroid& matroid, const Json& options);
  std::string type() const override { return "cucb"; }

 protected:
  std::vector<Id> chooseBasis(std::int64_t t) override;

 private:
  std::vector<double> indices_;
};

}  // namespace sublinear
