#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/projected_arms.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/decision_ledger.hpp"
#include "sublinear/linear/linear_model.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// What every policy of this area shares: the arm store (its own or a catalogue's), the model of the
// rewards (LinearModel: the ridge estimate, its noise estimate, prior and forgetting) kept in the
// arms' coordinates or their subspace's, the random engine, the confidence radius's rules, the
// decisions awaiting their rewards, validation before mutation and the work counters. Subclasses see
// only valid input through the protected hooks, and listen to the model (LinearModel::Listener).
//
// Common options (all optional; see policy_factory.hpp for the whole list):
//   radius  ("practical")  how the confidence radius is set: "practical" scales with the noise
//                   (estimated from the ridge residuals unless `noise` is given) and the ridge bias of
//                   the estimate itself; "theoretical" is the paper's worst-case formula with R = noise
//                   (1 unless given) and S = bound
//   lambda  (1)     ridge regulariser, V_1 = lambda I                         (> 0)
//   delta   (0.05)  failure probability of the confidence radius              (in (0, 1))
//   noise   (none)  R, sub-Gaussian scale of the reward noise                 (>= 0)
//   bound   (1)     S, bound on ||theta*|| (theoretical radius only)          (>= 0)
//   horizon (10000) T, used by the radii of Elim and TS                       (integer >= 1)
//   beta    (none)  a fixed confidence radius replacing either rule           (>= 0)
//   seed    (0)     the random engine's seed
//   prior   (none)  { theta, weight }: start from a population estimate (LinUCB, LinTS, SubTS; see
//                   startFromPrior)
//   explore (0)     decide(): with this probability the arms shown are drawn uniformly from the
//                   eligible ones instead, so that every eligible arm has a known positive propensity
//   maxPending (1000)  decisions kept for their rewards; the oldest expires beyond it
//   propensityDraws (256)  posterior draws of a Thompson policy's propensity estimate
//   forgetting ('auto')  how the model forgets (Forgetting): 'auto', 'none', { discount }, { window }
// (lambda, noise, prior and forgetting are the model's: see LinearModel.)
class RidgePolicy : public LinearPolicy, private LinearModel::Listener {
 public:
  int dim() const final { return arms_.dim(); }
  std::size_t armCount() const final { return arms_.size(); }
  bool hasArm(Id id) const final { return arms_.contains(id); }
  const double* featuresOf(Id id) const final { return arms_.featuresOf(id); }

  // The catalogue the policy's arms are read from, or null when it holds its own.
  const std::shared_ptr<Catalogue>& catalogue() const { return catalogue_; }

  using LinearPolicy::addArms;
  using LinearPolicy::select;
  void addArms(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes) final;
  void removeArms(const Id* ids, std::size_t count) final;
  // Without a filter, chooseArm() (each policy's algorithm as it always ran); with one, chooseArms(1).
  Id select(const ArmFilter& filter) final;
  // chooseArms(min(k, eligible)); a slate counts as one selection in stats().
  std::vector<Id> selectSlate(std::size_t k, const ArmFilter& filter) final;
  void update(Id arm, double reward) final;
  // select() or selectSlate(), then the exploration mix, the propensities, and the pending decision.
  Decision decide(std::size_t k, const ArmFilter& filter, bool slate) final;
  void reward(std::uint64_t eventId, const double* rewards, std::size_t count) final;
  // select(filter) at position 0, selectSlate(position + 1, filter)'s last arm beyond: probability 1.
  std::vector<std::pair<Id, double>> choiceDistribution(std::size_t position, const ArmFilter& filter,
                                                        std::size_t draws) override;
  std::size_t eligibleCount(const ArmFilter& filter) const final;
  // theta^, lifted by the catalogue's basis for a model in its subspace (see syncSubspace).
  Vector theta() const override;
  Json stats() const override;
  bool catalogueSubspaceLineage(std::uint64_t& version, std::uint64_t& fingerprint) const override;
  // Weighs everything learned so far by `factor` in [0, 1] (API.md v3): forget(0) starts over from
  // the prior; the elimination policies restart their stages.
  void forget(double factor) override;

  // subspace "auto" learns in all d dimensions up to this d, in the arms' subspace above it.
  static constexpr int kFullModelMaxDimension = 64;
  // Whether a user over `catalogue` with these options learns in the catalogue's subspace: the rule
  // of a Thompson policy over its own arms ('arms'; 'none'; 'auto': above kFullModelMaxDimension
  // dimensions or with modelDim or subspaceEnergy given, never with a prior), where the catalogue's
  // modelDim or subspaceEnergy count as given. One basis serves every user: a user's modelDim or
  // subspaceEnergy other than the catalogue's is INVALID_ARGUMENT.
  static bool usesSubspaceOver(const Catalogue& catalogue, const Json& options);
  // The model's dimension of such a user (modelDim in the subspace, else d); null: 1 (refused later).
  static int modelDimensionOver(const Catalogue* catalogue, const Json& options);
  // Over its own arms the elimination policies learn in all d dimensions: `subspace` 'arms',
  // modelDim and subspaceEnergy are INVALID_ARGUMENT there (a subspace over their own arms is not
  // built). Returns options.
  static const Json& refuseSubspaceOverOwnArms(const Json& options);
  // Over its own arms (Linear TS, Sub-TS, LinUCB): 'arms' (never with a prior), 'none', or 'auto':
  // above kFullModelMaxDimension dimensions or with modelDim or subspaceEnergy given, never with a
  // prior. INVALID_ARGUMENT for contradictions.
  static bool usesSubspaceOverOwnArms(int dim, const Json& options);
  // modelDim's default cap over own arms: 256^2 doubles (512 KiB) a model whatever d.
  static constexpr int kDefaultModelDim = 256;
  // The model's dimension over own arms: min(modelDim, d) in the subspace, else d.
  static int modelDimensionOverOwnArms(int dim, const Json& options);

  // The arms (ids, features and labels in row order; none over a catalogue, whose identity the caller
  // records), the regression bit for bit, the random engine, the counters, the rest of the model
  // (the noise estimate's sums, its forgetting), the decisions, then saveFields.
  void save(StateWriter& out) const final;
  void load(StateReader& in) final;

 protected:
  // modelDim is the dimension the ridge regression works in (dim, or dim + 1 with a feature transform);
  // form: the regression's (InverseOnly for a policy that never samples from the posterior).
  RidgePolicy(int dim, const Json& options, int modelDim, RidgeRegression::Form form);
  // Over a catalogue: the arms are the catalogue's (of its dimension). `options` must not hold `dim`.
  RidgePolicy(std::shared_ptr<Catalogue> catalogue, const Json& options, int modelDim, RidgeRegression::Form form);

  // The arms are in arms_ already (rolled back if this throws).
  virtual void onAddArms(const Id* ids, std::size_t count) = 0;
  // The arms are still in arms_; the batch passed ArmSet::checkRemove. Throw here to refuse removal.
  virtual void onRemoveArms(const Id* ids, std::size_t count) = 0;
  // Called with at least one arm in the set.
  virtual Id chooseArm() = 0;
  // `count` (>= 1, at most eligible.count()) distinct arms that `eligible` (arms_.eligibility(filter))
  // admits, best first: a filtered selection (count 1) or a slate.
  virtual std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) = 0;
  // Further counters for stats() (innerProducts is added by the base).
  virtual Json extraStats() const { return Json::object(); }
  // The subclass's fields, written after the base's; loadFields runs once the arms, the regression,
  // the random engine and the counters hold the saved state, and validates what it reads.
  virtual void saveFields(StateWriter& out) const = 0;
  virtual void loadFields(StateReader& in) = 0;
  // The model's events are hooks too (LinearModel::Listener, of which this class is one):
  // afterObservation() (update() and reward() just fed the regression: the policies that keep their
  // arms' widths correct them), onForget(restart) (the elimination policies restart their stages)
  // and onModelScaled(factor) (a discount: kept widths scale).
  //
  // Called by update() and reward() once the input is valid, before the regression takes the
  // observation: a model in a catalogue's subspace moves to its current basis first (syncSubspace).
  virtual void beforeObservation() { syncSubspace(); }
  // Called by select(), selectSlate() and decide() before the policy chooses (after the input was
  // checked): the policies that scan the catalogue's projected rows bring them and the model to
  // the catalogue's current basis here.
  virtual void prepareChoice() {}
  // Called by syncSubspace() and refitProjectionIfDue() when the model moved to another basis (its
  // coordinates changed: whatever a policy keeps in them, such as arms' widths, is stale).
  virtual void onModelMoved() {}
  // Thompson sampling draws its choice (randomisedChoice()): decide() then asks
  // estimateChoiceProbabilities for the propensities.
  // p[j] (and its standard error se[j]): the probability that a selection in the current state,
  // under `filter`, shows shown[j] at position j of a slate of shown.size(); prefix[j] that it shows
  // shown[0..j] at positions 0 to j (from the same draws). Called right after the selection that
  // decided (shownByPolicy: `shown` is what it chose; otherwise exploration drew it).
  virtual void estimateChoiceProbabilities(const std::vector<Id>& /*shown*/, bool /*shownByPolicy*/,
                                           const ArmFilter& /*filter*/, const Eligibility& /*eligible*/,
                                           std::size_t /*draws*/, std::vector<double>& /*p*/, std::vector<double>& /*se*/,
                                           std::vector<double>& /*prefix*/) {}
  // Inner products computed by indexes the subclass owns.
  virtual std::uint64_t indexInnerProducts() const { return 0; }

  // The vector and reward the regression sees for an arm's features (identity unless a policy
  // transforms its features, as Sub-TS may for a negative best reward).
  virtual Vector modelFeatures(const double* features) const;
  virtual double modelReward(double reward) const { return reward; }

  // Over the catalogue's subspace (catalogueSubspace_): fits the catalogue's basis when due and
  // moves the model through every transition M_v = B_v^T B_{v-1} since the version it is in
  // (LinearModel::move), then onModelMoved() when the version changed.
  void syncSubspace();
  // The prepareChoice() of the policies that scan the catalogue's projected rows: the rows (refilled
  // after a refit), then the model (syncSubspace), brought to the catalogue's current basis.
  void syncProjectedSubspace();
  // The model moved by `change` (a refit's M = B_new^T B_old; nothing to move before its first
  // observation): a policy whose own arms' basis was fitted again.
  void moveModelBy(const Matrix& change) { model_.move({&change}); }
  // For a subclass's constructor, over its own arms: the rows it scores. In the arms' subspace (as
  // `options` ask, usesSubspaceOverOwnArms) it makes projected_ and returns its rows; otherwise arms_.
  // `subspaceOptions`: the policy's group of the subspace options (their defaults).
  const ArmSet& scannedOwnArms(int dim, const Json& options, bool floatRows, const OptionGroup& subspaceOptions);
  // Over own arms in their subspace: the basis fitted again when due (the arms doubled or lost half
  // since the last fit), every arm projected afresh, the model moved, then onModelMoved().
  void refitProjectionIfDue();
  // The version the model is in and the lineage's fingerprint there (a user's snapshot), and their
  // check on load against the catalogue (whose lineage checkContext compared before).
  void saveSubspaceLineage(StateWriter& out) const;
  void loadSubspaceLineage(StateReader& in);
  // The arms a policy that scans its rows scores: in the catalogue's subspace (as `options` ask) the
  // catalogue's projected rows, otherwise arms_. Made for a subclass's constructor, before it sets
  // catalogueSubspace_ from the same options.
  const ArmSet& scannedArms(const Json& options) const;
  // The model's features of d features over the catalogue's subspace: the catalogue's projection
  // (Catalogue::project), the bits of the arm's projected row.
  Vector catalogueProjection(const double* features) const;

  bool theoreticalRadius() const { return theoretical_; }
  bool fixedRadius() const { return fixedBeta_; }
  double fixedBeta() const { return beta_; }

  // Theoretical rule: beta_t(failure) = R sqrt(2 log(1/failure) + log(det V / lambda^d)) + sqrt(lambda) S
  // (Abbasi-Yadkori et al. 2011, Theorem 2), or the fixed `beta` option when given.
  double adaptiveRadius(double failure) const;
  // The same bound evaluated at the horizon with the determinant-trace inequality,
  // det V_T <= (lambda + T L^2 / d)^d, so that it is fixed for the whole run:
  // R sqrt(2 log(1/failure) + d log(1 + T L^2 / (lambda d))) + sqrt(lambda) S.
  double horizonRadius(double failure, double featureBound) const;
  // Practical rule: multiplier * sigma + lambda ||theta^||_{V^-1}, or the fixed `beta` when given.
  // sigma is the noise scale (LinearModel::noiseEstimate(): the `noise` option, or the estimate);
  // the second term bounds the ridge estimate's own bias, |x^T (E theta^ - theta*)| =
  // lambda |x^T V^-1 theta*| <= ||x||_{V^-1} lambda ||theta*||_{V^-1}, with theta^ for the unknown
  // theta*. Unlike the worst-case formula it assumes neither ||theta*|| <= 1 nor noise 1, and it
  // shrinks with the noise: the worst-case bounds are known to over-explore by orders of magnitude
  // in practice.
  double practicalRadius(double multiplier) const;
  // The elimination policies' radius beta: under the theoretical rule horizonRadius(delta / 2,
  // featureBound), fixed for the run; under the practical one LinUCB's radius. A union bound over K
  // arms and T steps (sqrt(2 log(2 K T / delta)) noise scales, about 6 at K = 1,500, T = 3,000) kept
  // the policy exploring for the whole horizon on the default-options battery (tests/battery), 3 to
  // 20 times the regret of this radius.
  double eliminationRadius(double featureBound) const {
    return theoretical_ ? horizonRadius(delta_ / 2.0, featureBound) : practicalRadius(confidenceMultiplier());
  }
  // sqrt(2 log(1/delta)): the Gaussian tail of one estimate at level delta, the multiplier of the
  // practical rule for the confidence-bound policies (2.45 at the default delta 0.05; Thompson
  // sampling draws with multiplier 1, the posterior's own spread).
  double confidenceMultiplier() const;

  void countInnerProducts(std::uint64_t count) { innerProducts_ += count; }
  long long horizon() const { return horizon_; }
  std::uint64_t selections() const { return selections_; }
  double delta() const { return delta_; }

  // Either of these holds the arms: the policy's own, or the shared catalogue. Declared before
  // arms_, which refers to one of them.
  std::unique_ptr<ArmSet> ownArms_;
  const std::shared_ptr<Catalogue> catalogue_;
  const ArmSet& arms_;
  Random random_;
  // Over a catalogue: whether the model learns in the catalogue's subspace (set by the subclass's
  // constructor from usesSubspaceOver), and the version of the basis it is in (0 before the first sync).
  bool catalogueSubspace_ = false;
  std::uint64_t subspaceVersion_ = 0;
  // Over own arms in their subspace (LinUCB, the elimination policies, which score every arm's row):
  // the basis and the arms' projected rows, kept through addArms and removeArms and refitted when
  // due (scannedOwnArms). Null otherwise. The model's features are the projections, theta() lifts.
  std::unique_ptr<ProjectedArms> projected_;

 private:
  double delta_;
  bool theoretical_;
  // R of the theoretical rule: the `noise` option, 1 unless given.
  double noise_;
  double bound_;
  long long horizon_;
  bool fixedBeta_;
  double beta_;
  std::uint64_t innerProducts_ = 0;
  std::uint64_t selections_ = 0;
  bool deciding_ = false;

  // Exploration and pending decisions (decide() and reward()).
  double explore_;
  std::size_t propensityDraws_;
  DecisionLedger ledger_;

  // The model of the rewards, in the model's coordinates (modelFeatures); it tells this policy of
  // its changes (LinearModel::Listener).
  LinearModel model_;

 protected:
  // The model's regression, for the subclasses' choices (read-only: the model alone changes it).
  const RidgeRegression& ridge_;
  // Whether the choice under way is a decide()'s, which estimates its propensities right after it
  // (so a choice may keep what that estimate would compute again).
  bool deciding() const { return deciding_; }

 private:
  // What both public constructors share: exactly one of ownArms and catalogue is given.
  RidgePolicy(std::unique_ptr<ArmSet> ownArms, std::shared_ptr<Catalogue> catalogue, const Json& options, int modelDim,
              RidgeRegression::Form form);

  // The own arms of a saved state (not over a catalogue).
  void loadArms(StateReader& in);
  // What select(), selectSlate() (slate) and decide() refuse before choosing: a slate of k = 0
  // (INVALID_ARGUMENT), a policy without arms (EMPTY, naming `call`).
  void checkChoice(std::size_t k, bool slate, const char* call) const;
  // arms_.eligibility(filter) for a caller's filter: INVALID_ARGUMENT for one that cannot be met as
  // written (AttributeFilter::check) or names a value no arm was given.
  Eligibility eligibilityFor(const ArmFilter& filter) const;
  // The model's update with one observation (features of the arm's dimension), validated.
  void observe(const double* features, double reward);
  // select() (slate false) or selectSlate(k) over `eligible` (built once from `filter`): EMPTY when
  // nothing is eligible.
  std::vector<Id> chooseEligible(std::size_t k, const ArmFilter& filter, const Eligibility& eligible, bool slate);
  // n distinct eligible arms, uniformly at random, in random order (the exploration of decide()).
  std::vector<Id> uniformEligible(std::size_t n, const ArmFilter& filter, const Eligibility& eligible);
  // The catalogue's transitions since the version the model is in (subspaceVersion_), oldest first.
  std::vector<const Matrix*> transitionsSinceModelVersion() const;
};

}  // namespace sublinear
