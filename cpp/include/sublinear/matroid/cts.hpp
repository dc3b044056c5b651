#pragma once

#include <deque>

#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// Combinatorial Thompson sampling (Wang and Chen 2018) with Beta posteriors: each arm keeps
// Beta(1 + successes, 1 + failures); a reward y in [a, b] is first mapped to [0, 1] and binarised
// by a Bernoulli((y - a) / (b - a)) trial (the standard trick for bounded rewards, Agrawal and
// Goyal 2012), so the posterior stays conjugate. Each round samples theta_k for every arm and
// plays the greedy maximum-weight basis under theta: O(K) samples per round. Forgetting weighs the
// successes and failures as the base class weighs the counts (they are kept in the units of the
// count weights, the posterior being Beta(1 + G S_k, 1 + G F_k)); a restart is the prior again.
class Cts : public SemiBanditPolicy {
 public:
  Cts(const Matroid& matroid, const Json& options);
  std::string type() const override { return "cts"; }
  // After the base fields: every arm's successes and failures (in the units of the count weights),
  // then a window's outcomes, oldest first.
  void save(StateWriter& out) const override;
  void load(StateReader& in) override;

 protected:
  std::vector<Id> chooseBasis(std::int64_t t) override;
  void armUpdated(Id arm, double reward) override;
  bool needsInitialPulls() const override { return false; }
  void observationLeft(Id arm, double reward, bool emptied) override;
  void countsWeighed(double factor) override;
  void weightsRenormalised() override;

 private:
  // { window }: whether each observation the window holds was a success, oldest first.
  std::deque<bool> windowSuccesses_;
  std::vector<double> successes_;
  std::vector<double> failures_;
  std::vector<double> samples_;
};

}  // namespace sublinear
