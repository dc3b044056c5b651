#pragma once

#include <memory>

#include "sublinear/linear/policy_index.hpp"
#include "sublinear/linear/ridge_policy.hpp"

namespace sublinear {

// Sub-TS (paper 000, Algorithm 4 with the shortlist construction of section 7): draw
// theta~ = theta^ + v V^-1/2 xi (Abeille and Lazaric 2017, xi ~ N(0, I)), ask the MIPS index for
// `shortlist` candidates of largest x^T theta~ and play the best of them by exact inner product.
// Arms are added to and deleted from the index as the set changes; nothing per step is O(K)
// beyond what the index does.
//
// Options (besides RidgePolicy's lambda, delta, noise, bound, horizon, beta, seed):
//   inflation (1)    v = inflation * beta_t(delta / (4 T)), beta_t as in LinUCB (or v = inflation * beta)
//   shortlist (30)   p, the candidates retrieved from the index and ranked exactly   (integer >= 1)
//   index     ({ type: "hnsw", efConstruction: 64 })   any makeMipsIndex spec (an hnsw spec without
//             efConstruction gets 64); LinTS defaults to { type: "exact" }
//   negativeRewardTransform (false)  the paper's extension for a negative best reward (section 6):
//            the model sees x' = [x / sqrt 2, sqrt 2 / 2] and r' = r / 2 + 1 / 2, so that the best
//            expected reward is positive; theta() still reports the estimate in the original
//            coordinates (sqrt 2 times the first d entries of theta'^).
// If the index returns no candidate (an approximate index may), a uniformly random arm is played
// and counted in stats().emptyQueries.
class SubTS : public RidgePolicy {
 public:
  SubTS(int dim, const Json& options) : SubTS("sub-ts", "hnsw", dim, options) {}
  std::string type() const override { return type_; }
  Vector theta() const override;

 protected:
  SubTS(std::string type, const std::string& defaultIndex, int dim, const Json& options);

  void onAddArms(const ArmId* ids, std::size_t count) override;
  void onRemoveArms(const ArmId* ids, std::size_t count) override;
  ArmId chooseArm() override;
  Json extraStats() const override;
  std::uint64_t indexInnerProducts() const override { return index_->innerProducts(); }
  Vector modelFeatures(const double* features) const override;
  double modelReward(double reward) const override;

 private:
  std::string type_;
  bool transform_;
  double inflation_;
  std::size_t shortlist_;
  std::unique_ptr<MipsIndex> index_;
  double lastScale_ = 0.0;
  std::uint64_t emptyQueries_ = 0;
};

}  // namespace sublinear
