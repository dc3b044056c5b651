#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/cls/cls_environment.hpp"
#include "sublinear/cls/cls_policy.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// One run of a combinatorial linear semi-bandit policy on the clustered or promotion environment.
// Round reward = sum of the played arms' rewards; round regret = the best feasible super arm's
// expected reward minus the played one's (both from theta*^T x, so the regret is the pseudo-regret).
// When the policy has an `index` option and the arms are fixed, they are registered once in setup
// (setArms, which builds the index) and every round selects from them.
class ClsTrial final : public Trial {
 public:
  ClsTrial(const Json& environment, const Json& policy, std::uint64_t seed);
  void setup(TrialClock& clock) override;
  RoundOutcome playRound(std::int64_t t, TrialClock& clock) override;
  std::uint64_t innerProducts() const override;

  const ClsPolicy& policy() const { return *policy_; }
  const ClsEnvironment& environment() const { return *environment_; }

 private:
  std::unique_ptr<ClsEnvironment> environment_;
  std::unique_ptr<ClsPolicy> policy_;
  bool useFixedArms_ = false;
  double fixedBest_ = 0.0;
  // The environment's meanChanges() when fixedBest_ was computed.
  std::uint64_t bestAtChanges_ = 0;
};

// The TrialFactory of the combinatorial linear family (environment types "clustered", "promotion";
// policy types of makeClsPolicy). Builds the environment and the policy, so a bad config throws here.
std::unique_ptr<Trial> makeClsTrial(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
