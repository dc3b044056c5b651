#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <deque>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/forgetting.hpp"
#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// A matroid semi-bandit policy (Tzeng et al., arXiv:2405.17968): each round select() plays a basis
// of the matroid and update() receives one reward in [a, b] per arm of that basis. The base class
// owns the matroid (a copy), the per-arm statistics N_k and mu^_k, validation, and the initial
// phase that pulls every arm once; subclasses choose bases.
//
// Common options: a, b (reward range, a < b; default 0 and 1), horizon (T, default 10000), seed,
// forgetting ('auto'; Forgetting, API.md v3: 'none', { discount: g }, { window: n } in rounds).
//
// Forgetting weighs the arms' counts N_k (the means are weighted means, so a discount leaves them
// and widens the confidence widths). A discount or forget(f) scales every count alike, so the counts
// are kept as N_k = G M_k with one scale G and per-arm weights M_k: a round's discount is G <- g G,
// O(1), and an observation adds 1 / G to M_k; the weights are folded into G = 1 when G falls below
// kSmallestScale, O(K) once every ~690 / (1 - g) rounds. { window: n } keeps the last n rounds'
// observations and takes each back out when it leaves (O(rank) a round, 12 bytes an observation).
// 'auto' standardises the error of every observed arm with N_k >= Forgetting::kWarmUp,
// z_k = (r - mu^_k + lambda_t / sqrt(N_k)) / (sigma_k sqrt(1 + 1 / N_k)), sigma_k the largest noise
// scale its mean allows (the confidence width lambda_t / sqrt(N_k) is the selection's margin), pools a round's into one for Forgetting's detector, and on a change starts
// over: every count and mean back to 0. An arm whose count is 0 again (a restart, forget(0), an arm
// no round of the window pulled) is played first, by the initial phase's covering bases, as CUCB's
// infinite width would play it; CTS starts again from its prior.
//
// update() checks, before changing anything: a select() is pending (INVALID_ARGUMENT), the basis
// has the selected length and the rewards the basis's length (DIMENSION_MISMATCH), the basis is the
// selected one, in any order (INVALID_ARGUMENT), rewards finite (NON_FINITE) and in [a, b]
// (INVALID_ARGUMENT).
class SemiBanditPolicy {
 public:
  SemiBanditPolicy(const Matroid& matroid, const Json& options);
  virtual ~SemiBanditPolicy() = default;

  // Kebab-case type name: "cucb", "faster-cucb", "cts".
  virtual std::string type() const = 0;

  // The basis to play this round (arm indices, rank() of them).
  const std::vector<Id>& select();
  void update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength);

  const Matroid& matroid() const { return *matroid_; }
  std::size_t armCount() const { return armCount_; }
  double rewardLow() const { return a_; }
  double rewardHigh() const { return b_; }
  std::int64_t horizon() const { return horizon_; }
  // Rounds completed (updates received).
  std::int64_t rounds() const { return rounds_; }
  // Every pull of the arm, forgotten or not.
  std::uint64_t pulls(Id arm) const { return pulls_[arm]; }
  // N_k, the weight of the arm's observations the policy holds (pulls(arm) without forgetting).
  double count(Id arm) const { return countScale_ * weights_[arm]; }
  // N_k = countScale() weight(arm) (see the class comment).
  double weight(Id arm) const { return weights_[arm]; }
  double countScale() const { return countScale_; }
  double empiricalMean(Id arm) const { return means_[arm]; }
  const Forgetting& forgetting() const { return forgetting_; }
  // lambda_t = sqrt(1.5 (b - a)^2 log t), the confidence width of CUCB (Tzeng et al., Theorem 5.1).
  double confidenceWidth(std::int64_t t) const;
  // The UCB index mu^_k + lambda_t / sqrt(N_k) of a pulled arm at round t.
  double ucbIndex(Id arm, std::int64_t t) const;
  // Whether every playable arm (every non-loop) has been pulled at least once (since the last restart).
  bool initialPullsDone() const { return !initialPhase_; }
  // Work counters: { rounds, armsScanned, forgetting, ... }.
  virtual Json stats() const;
  // Weighs every count (and CTS's posterior counts) by `factor` in [0, 1] (API.md v3); forget(0)
  // starts over. INVALID_ARGUMENT otherwise, nothing changed.
  void forget(double factor);

  // Snapshot (core/snapshot.hpp), after the matroid: every field the policy's future depends on.
  // load() runs on a policy just constructed over the saved matroid with the same options and
  // validates what it reads (CORRUPT_STATE). Subclasses write their fields after the base's.
  virtual void save(StateWriter& out) const;
  virtual void load(StateReader& in);
  // Every snapshot holds at least this many bytes per arm (N_k and mu^_k), so a restore can bound
  // the arm count by the bytes that remain before anything is allocated for the arms.
  static constexpr std::size_t kSavedBytesPerArm = 16;
  // G is folded into the weights below this (g^-G stays far from overflow).
  static constexpr double kSmallestScale = 1e-300;
  // The detector's noise scale of an arm is at least this share of b - a (a mean near a or b would
  // make every small error an alarm).
  static constexpr double kNoiseFloor = 0.05;
  // 'auto' judges an arm's errors from this count on.
  static constexpr double kJudgedCount = 50.0;

 protected:
  // The basis for round t (1-based) once the initial pulls are done (or from the start for
  // policies that do not need them).
  virtual std::vector<Id> chooseBasis(std::int64_t t) = 0;
  // Called after arm's N_k and mu^_k changed.
  virtual void armUpdated(Id arm, double reward) { (void)arm, (void)reward; }
  // Called once, at the update that completes the initial pulls (again after a restart).
  virtual void initialPullsCompleted() {}
  // Called when an observation of the arm left the window (its count and mean changed; the reward
  // is the one armUpdated saw); `emptied`: the count is 0 again.
  virtual void observationLeft(Id arm, double reward, bool emptied) { (void)arm, (void)reward, (void)emptied; }
  // Called after every count was weighed by `factor` in [0, 1) (forget(); 0: a restart, every count
  // and mean is 0).
  virtual void countsWeighed(double factor) { (void)factor; }
  // Called when the weights were folded into the scale: weight(k) changed for every arm, count(k) not.
  virtual void weightsRenormalised() {}
  // Policies that start from a prior (CTS) skip the initial pulls.
  virtual bool needsInitialPulls() const { return true; }

  Random& random() { return random_; }
  // The observations a window holds.
  std::size_t windowObservations() const { return windowArms_.size(); }
  std::uint64_t armsScanned_ = 0;

 private:
  std::vector<Id> basisCoveringUnpulled();
  void validateUpdate(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength) const;
  // The arm (playable, count 0) joins the arms the covering bases play first.
  void listUnpulled(Id arm);
  void removeUnpulled(Id arm);
  // 'auto': the standardised error of an observation of the arm before it counts, clipped; NaN for
  // an arm with too few observations to judge.
  double standardisedError(Id arm, double reward) const;
  // forget()'s arithmetic (no count of changes); 0 empties everything.
  void weighPast(double factor);
  void slideWindow();
  void foldScale();

  std::unique_ptr<Matroid> matroid_;
  std::size_t armCount_;
  double a_;
  double b_;
  std::int64_t horizon_;
  Random random_;
  std::int64_t rounds_ = 0;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> weights_;
  double countScale_ = 1.0;
  // The weight of every round held, as rounds (stats().forgetting.effectiveMemory): G times this.
  double roundWeight_ = 0.0;
  std::vector<double> means_;
  Forgetting forgetting_;
  // { window }: the observations of the last rounds, rank() per round, oldest first, and each
  // round's weight in units of the weights (1 / G when it was observed).
  std::deque<Id> windowArms_;
  std::deque<double> windowRewards_;
  std::deque<double> windowWeights_;
  // Playable arms not pulled yet, in a random order (so that the bases covering them fill fast
  // whatever the arms' numbering), and a basis used to complete those bases.
  std::vector<Id> unpulled_;
  std::vector<std::uint32_t> unpulledPosition_;
  bool unpulledListed_ = false;
  std::vector<Id> referenceBasis_;
  std::unique_ptr<IndependenceOracle> oracle_;
  std::vector<Id> selected_;
  bool pending_ = false;
  bool initialPhase_ = true;
};

}  // namespace sublinear
