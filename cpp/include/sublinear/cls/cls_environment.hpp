#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/cls/arm_features.hpp"
#include "sublinear/cls/super_arm_oracle.hpp"
#include "sublinear/core/random.hpp"

namespace sublinear {

// A combinatorial linear semi-bandit environment: each round it shows N arms' features and the
// feasible super arms, and answers the reward of each played arm with mean theta*^T x.
class ClsEnvironment {
 public:
  virtual ~ClsEnvironment() = default;
  virtual std::size_t dim() const = 0;
  // Whether the arms are the same every round (then a policy may register them once: setArms).
  virtual bool fixedArms() const = 0;
  // Draws round t's arms (a no-op for fixed arms).
  virtual void beginRound() = 0;
  virtual ArmFeatures arms() const = 0;
  virtual const SuperArmConstraint& constraint() const = 0;
  // theta*^T x of a row of the current round.
  virtual double expectedReward(Id row) const = 0;
  // How many times the means of fixed arms have changed so far (a drifting environment's switches):
  // a runner that keeps the best super arm's value computes it again when this moves.
  virtual std::uint64_t meanChanges() const { return 0; }
  // One noisy reward of a row of the current round.
  virtual double drawReward(Id row) = 0;
};

}  // namespace sublinear
