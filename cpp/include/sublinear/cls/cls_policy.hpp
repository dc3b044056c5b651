#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sublinear/cls/arm_features.hpp"
#include "sublinear/cls/block_diagonal_ridge.hpp"
#include "sublinear/cls/fixed_arm_shortlist.hpp"
#include "sublinear/cls/super_arm_oracle.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/core/forgetting.hpp"
#include "sublinear/cls/residual_scale.hpp"

namespace sublinear {

class StateReader;
class StateWriter;

// A combinatorial linear semi-bandit policy (Takemura and Ito, arXiv:1909.02251): each round it
// scores every arm, plays the feasible super arm of largest total score, and learns from the reward of
// every arm it played (semi-bandit feedback: one ridge-regression update per observed arm).
//
// Every policy of the family scores an arm x as
//     score(x) = center^T x + m(x) ||x||_{V^-1}
// where center is theta^ (UCB, arm-wise TS) or a draw theta~ (round-wise TS), and the width
// multiplier m is 0, a constant (C2UCB's alpha) or an arm-wise draw (PC2UCB's (1 + c~) alpha, arm-wise
// TS's v z). Subclasses say which; this class owns validation, the oracle and the feedback; a fixed
// arm set (setArms) and its shortlist are a FixedArmShortlist. Every public method validates before
// it mutates.
//
// Options common to all: dim (required), k (default k of select), seed, blocks (default 1: V is kept
// as that many diagonal blocks, each arm's features must then lie in one block, as in the promotion
// problem), index (fixed-arms only, one block: { type, shortlist, certify, delta, ...index options }),
// forgetting ('auto'; Forgetting, API.md v3).
//
// Forgetting weighs the ridge model as the linear policies' (LinearModel), by rounds: { discount: g }
// weighs a round's observations by g^age (V and b scaled before each round's update, O(dim
// blockDim), the regulariser topped up when its share c falls below 1/2); { window: n } keeps the
// observations of the last n rounds and downdates each as it leaves (refitting once every n rounds);
// forget(f) is V -> f (V - c lambda I) + lambda I, b -> f b; 'auto' watches the standardised error of
// every observed row, z = (r - x^T theta^ + m sigma ||x||_{V^-1}) / (sigma sqrt(1 + ||x||^2_{V^-1})),
// sigma the residuals' scale (ResidualScale, floored at kNoiseFloor of the rewards' root mean
// square), and starts the model over on a change.
class ClsPolicy {
 public:
  ClsPolicy(const Json& options, double ridgeLambda);
  virtual ~ClsPolicy();
  ClsPolicy(const ClsPolicy&) = delete;
  ClsPolicy& operator=(const ClsPolicy&) = delete;

  // Kebab-case type name, as in `policy: { type }`.
  virtual std::string type() const = 0;
  int dim() const { return ridge_.dim(); }
  // The constructor's `k` option (0 when absent).
  std::size_t defaultK() const { return defaultK_; }
  const BlockDiagonalRidge& ridge() const { return ridge_; }
  long rounds() const { return rounds_; }

  // Chooses a super arm among this round's arms; returns row indices, best score first.
  std::vector<Id> select(const ArmFeatures& arms, const SuperArmConstraint& constraint);
  // The same with `length` = N * dim doubles, row-major (DIMENSION_MISMATCH / NON_FINITE).
  std::vector<Id> select(const double* features, std::size_t length, const SuperArmConstraint& constraint);

  // Registers a fixed arm set (N * dim doubles), replacing any previous one, and builds the index
  // of the `index` option over it. Then selectFromArms() chooses among these rows.
  void setArms(const double* features, std::size_t length);
  std::size_t armCount() const { return fixedArms_.count(); }
  // EMPTY without setArms. With an index and no groups: a shortlist from the index, scored exactly.
  std::vector<Id> selectFromArms(const SuperArmConstraint& constraint);

  // Feedback for rows of the last selection: each chosen row must be in it, at most once; one finite
  // reward per row. A subset is allowed (arms whose reward was not observed). Clears the selection.
  void update(const Id* chosen, std::size_t count, const double* rewards, std::size_t rewardCount);

  // { innerProducts, scoredArms, rounds, shortlistRounds, certifiedRounds, index?, forgetting }.
  Json stats() const;
  // Weighs everything learned so far by `factor` in [0, 1] (API.md v3); forget(0) starts over from
  // V = lambda I. INVALID_ARGUMENT otherwise, nothing changed.
  void forget(double factor);
  const Forgetting& forgetting() const { return forgetting_; }
  // The share of b's floor the detector's sigma keeps: kNoiseFloor times the rewards' root mean square.
  static constexpr double kNoiseFloor = 0.05;

  // The policy's fields in its saved state (docs/state-format.md; the envelope and the options are
  // Persistent's, cls/persistent_cls_policy.hpp): the ridge regression bit for bit, the random
  // engine, the counters, a pending selection, the fixed arm set and its index (MipsIndex::save), so
  // that the index answers and counts its work as before.
  void save(StateWriter& out) const;
  // Reads what save wrote into this policy, freshly made from the saved options.
  void load(StateReader& in);

 protected:
  // Draws the round's shared randomness (round-wise TS's theta~). Called once per select.
  virtual void beginRound() {}
  // center of the score form above, valid after beginRound().
  virtual const Vector& center() const = 0;
  // Whether the score has a width term at all.
  virtual bool usesWidth() const = 0;
  // m for one arm (arm-wise draws go through armDraw so that an arm scored twice keeps its draw).
  virtual double widthMultiplier(Id) { return 0.0; }
  // An upper bound on every multiplier of this round for `arms` arms; arm-wise TS's Gaussian draws
  // have no bound, so it returns one that holds with probability 1 - delta (delta = indexDelta()).
  virtual double widthMultiplierBound(std::size_t arms) const = 0;
  // A round whose scores ignore the features (Greedy's first round): scores come from randomScore.
  virtual bool randomRound() const { return false; }
  // One arm-wise random draw (PC2UCB's c~, arm-wise TS's z).
  virtual double drawArmNoise() { return 0.0; }

  // The arm-wise draw of `row` this round (drawn on first use, then cached until the next round).
  double armDraw(Id row);
  double indexDelta() const { return fixedArms_.delta(); }

  Random random_;
  BlockDiagonalRidge ridge_;

 private:
  double scoreArm(const ArmSlice& arm, Id row, double* widthOut);
  double dot(const ArmSlice& arm, const Vector& direction) const;
  double width(const ArmSlice& arm) const;
  void startRound(std::size_t arms);
  std::vector<Id> selectAll(const ArmFeatures& arms, const SuperArmConstraint& constraint);
  std::vector<Id> selectShortlist(const SuperArmConstraint& constraint);
  void remember(const ArmFeatures& arms, const std::vector<Id>& chosen, const std::vector<double>& widths);
  // 'auto': whether the round's rows (pendingVectors_ at `positions`) and rewards contradict the
  // model, judged as one standardised error before it learns from them.
  bool roundContradictsModel(const std::vector<std::size_t>& positions, const double* rewards);
  // One observed row: the model, and 'auto''s noise estimate.
  void observe(const Vector& x, double reward);
  void discountPast(double factor);
  void weighPast(double factor);
  void slideWindow();

  std::size_t defaultK_ = 0;
  long rounds_ = 0;
  std::uint64_t scoredArms_ = 0;

  // Arm-wise draws of the current round: NaN = not drawn yet.
  std::vector<double> draws_;
  std::vector<Id> drawnRows_;

  // The last selection, kept until update.
  bool pending_ = false;
  std::vector<Id> pendingRows_;
  std::vector<Vector> pendingVectors_;

  FixedArmShortlist fixedArms_;

  // How the model forgets, and its state: the regulariser's share c of lambda I, the weight of the
  // observations held, the detector's noise scale, and a window's observations (oldest first) with
  // the number each round gave.
  Forgetting forgetting_;
  double regulariserShare_ = 1.0;
  double effectiveObservations_ = 0.0;
  ResidualScale residuals_;
  std::deque<BlockDiagonalRidge::Observation> window_;
  std::deque<std::uint32_t> windowRoundSizes_;
  std::uint64_t sinceRefit_ = 0;
};

}  // namespace sublinear
