#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "sublinear/env/linear_environment.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/linear_policy.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// One run of a linear policy (LinUCB, LinTS, LinearElim, SubElim, SubTS) on a linear-family
// environment ('linear', 'ratings'). Setup builds the environment (not timed: it is the world, not
// the learner), then the policy and its indexes over the initial arms (timed: preprocessing).
// A round times select and update separately; the arm changes the environment makes after the
// round are passed to the policy (removeArms, then addArms) and timed into update, since keeping
// the indexes current is the policy's maintenance work.
class LinearTrial : public Trial {
 public:
  using EnvironmentMaker = std::function<std::unique_ptr<LinearEnvironment>()>;
  using PolicyMaker = std::function<std::unique_ptr<LinearPolicy>(int dim)>;
  // Many users: one policy per user over the catalogue (the options' `seed` differs per user).
  using UserMaker = std::function<std::unique_ptr<LinearPolicy>(const std::shared_ptr<Catalogue>&, std::size_t user)>;
  using CatalogueMaker = std::function<std::shared_ptr<Catalogue>(int dim)>;

  LinearTrial(EnvironmentMaker makeEnvironment, PolicyMaker makePolicy);
  // The environment decides between one policy (one user) and one catalogue with a policy per user.
  LinearTrial(EnvironmentMaker makeEnvironment, PolicyMaker makePolicy, CatalogueMaker makeCatalogue, UserMaker makeUser);
  // Slates of `slate` arms a round (0: one arm, select()): every position is rewarded (its own
  // noise) and fed back with update(arm, reward); the round's reward is their sum and its regret
  // the slate's (LinearEnvironment::slateRegret). INVALID_ARGUMENT at setup where that regret is
  // not defined.
  void setSlate(std::size_t slate) { slate_ = slate; }

  void setup(TrialClock& clock) override;
  RoundOutcome playRound(std::int64_t t, TrialClock& clock) override;
  std::uint64_t innerProducts() const override;
  const std::vector<double>* userRegrets() const override { return users_.empty() ? nullptr : &userRegrets_; }
  // { users, catalogueBytes, perUserBytes }: the sizes of the catalogue's snapshot and of a user's
  // (the median over users), which is what each holds in memory to within the containers' overhead.
  Json usersMemory() const override;

  const LinearEnvironment& environment() const { return *environment_; }
  const LinearPolicy& policy() const { return *policy_; }

 private:
  EnvironmentMaker makeEnvironment_;
  PolicyMaker makePolicy_;
  std::unique_ptr<LinearEnvironment> environment_;
  std::unique_ptr<LinearPolicy> policy_;
  CatalogueMaker makeCatalogue_;
  UserMaker makeUser_;
  std::shared_ptr<Catalogue> catalogue_;
  std::vector<std::unique_ptr<LinearPolicy>> users_;
  std::vector<double> userRegrets_;
  std::size_t slate_ = 0;
};

// The TrialFactory of the linear family: the environment from makeLinearEnvironment, the policy
// from makeLinearPolicy(dim, policy + { horizon, seed }) where the policy's seed defaults to one
// derived from `seed`. The config's `horizon` must be present in `environment["horizon"]` or
// `policy["horizon"]` (simulate() puts it in both).
// With `environment.users` > 1 the arms go into one Catalogue (the policy's `index`, else an exact
// scan for lin-ucb and lin-ts and the catalogue's default graph for sub-ts) and every user gets a
// policy over it, seeded from the policy's seed and the user's number; round t serves user
// (t - 1) mod users (round-robin, so every user gets the same share of the traffic). Only lin-ucb,
// lin-ts and sub-ts work over a catalogue: the others are INVALID_ARGUMENT. `environment.slate` (set
// by simulate() from its `slate`) makes the rounds slates (setSlate).
std::unique_ptr<Trial> makeLinearTrial(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
