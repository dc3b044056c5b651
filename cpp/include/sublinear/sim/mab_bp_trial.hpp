#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/mips/bounded_me_solver.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// Liu et al.'s (arXiv:1812.06360) adversarial Multi-Armed Bandit with Bounded Pulls (section
// "Correctness of the guarantee", Figure 1), one instance per round: K arms, each a list of N rewards in
// {0, 1} with true mean r_a ~ U[0, 1] (round(r_a N) ones), drawn without replacement with every 1 before
// every 0
// -- the order that makes arms hardest to tell apart. The policy is BoundedME (Algorithm 1) with
// the run's epsilon and delta; a round's regret is the suboptimality of the arm it returns,
// max_a r_a - r_returned (at most epsilon with probability >= 1 - delta), its reward r_returned.
// The lists are never materialised: the sum of positions [from, to) of a ones-first list is
// closed-form, so the paper's full scale (10^4 arms x 10^5 rewards) runs in little memory.
// innerProducts counts pulls / N (full lists read).
//
// Environment { type: "mab-bp", arms: K (default 1000, 2..10^7), listLength: N (default 1000,
// 1..10^9) }; policy { type: "bounded-me", epsilon (default 0.1), delta (default 0.1), both in (0, 1) }.
class MabBpTrial : public Trial {
 public:
  MabBpTrial(std::size_t arms, std::size_t listLength, double epsilon, double delta, std::uint64_t seed);

  void setup(TrialClock& clock) override;
  RoundOutcome playRound(std::int64_t t, TrialClock& clock) override;
  std::uint64_t innerProducts() const override { return pulls_ / listLength_; }

 private:
  std::size_t arms_;
  std::size_t listLength_;
  BoundedMESolver solver_;
  Random random_;
  std::vector<std::size_t> ones_;  // of each arm's list, this round
  std::uint64_t pulls_ = 0;
};

// The TrialFactory of the "mab-bp" environment type.
std::unique_ptr<Trial> makeMabBpTrial(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
