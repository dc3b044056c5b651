#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sublinear/core/forgetting.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

class StateReader;
class StateWriter;

// A linear policy's model of the rewards, r = x^T theta + noise: the ridge regression (V^-1 by
// Sherman-Morrison), the sums of its noise estimate, the prior it starts from and how it forgets
// (Forgetting). The policy chooses arms with it; whatever a policy keeps of V^-1 (arms' widths,
// elimination stages) follows it through Listener.
//
// Its options (all optional; see policy_factory.hpp for the whole list):
//   lambda  (1)     ridge regulariser, V_1 = lambda I                         (> 0)
//   noise   (none)  the reward noise's scale when known: noiseEstimate() returns it
//   prior   (none)  { theta, weight }: start from a population estimate (a cold-started user borrows
//                   the population's estimate instead of starting at 0)
//   forgetting ('auto')  how the model forgets (Forgetting): 'auto', 'none', { discount }, { window }
//
// Forgetting keeps the regression exact for its weights: with P = lambda + prior weight and b_0 the
// prior's responses (weight theta_0), the model after observations with weights w_s is
// V = c P I + sum w_s x_s x_s^T and b = c b_0 + sum w_s r_s x_s, with c = 1 except under a discount,
// where the regulariser decays with the data between top-ups (c in [1/2, 1]: V and V^-1 scale in
// O(d^2) a step, and the O(d^3) top-up back to c = 1 comes once every log(2) / (1 - g) steps).
// forget(f) weighs every past observation by f and restores c = 1 (exactly f (V - c P I) + P I);
// forget(0) is the fresh model with the same prior, bit for bit. The noise estimate's sums and the
// effective number of observations carry the same weights.
//
// The model's coordinates are the policy's: when the arms' basis changes (a catalogue's refit, or
// the policy's own), the policy moves the model with the basis's transition M (move()).
class LinearModel {
 public:
  // What a policy keeps of the model (V^-1 through arms' widths, elimination stages) hears of its
  // changes here, synchronously, from the call that made them.
  class Listener {
   public:
    // The regression just took an observation: its lastInverseTimesX() is V^-1 x with the V^-1
    // before it (kept widths correct themselves with it).
    virtual void afterObservation() {}
    // The model forgot (forget(), a detected change, a discount's top-up, a window's downdate or
    // refactoring): what is kept of V^-1 is stale. `restart`: the model was rebuilt (every weight
    // changed, not one observation's), so the elimination policies bring every arm back into play
    // and start their stages again.
    virtual void onForget(bool /*restart*/) {}
    // A discount scaled V by `factor` (V^-1 by 1 / factor): kept widths scale with it.
    virtual void onModelScaled(double /*factor*/) {}

   protected:
    ~Listener() = default;
  };

  // A model of `dim` coordinates (the policy's model features) for arms of `featureDim` features,
  // the dimension a prior's theta must have: a model in other coordinates than the arms' (Sub-TS's
  // feature transform) takes no prior. form: the regression's (InverseOnly for a policy that never
  // samples from the posterior). The listener must outlive the model.
  LinearModel(int dim, int featureDim, const Json& options, RidgeRegression::Form form, Listener& listener);
  LinearModel(const LinearModel&) = delete;
  LinearModel& operator=(const LinearModel&) = delete;

  const RidgeRegression& regression() const { return ridge_; }
  // The regularisation V started from: lambda, plus the prior's weight when there is one.
  double startPrecision() const { return ridge_.lambda() + priorWeight_; }
  // c, the share of its weight the regulariser (and the prior) hold: 1 except under a discount.
  double priorScale() const { return priorScale_; }
  // The observations taken (the rewards the policy learned from), whatever their weight now.
  std::uint64_t updates() const { return updates_; }
  // The noise scale sigma: the `noise` option when given, otherwise
  // sqrt((RSS + n0 s0^2) / (n - d_eff + n0)): the ridge residual sum of squares over its effective
  // degrees of freedom (d_eff = trace((V - lambda I) V^-1)), shrunk towards the sample variance s0^2
  // of the rewards seen (which bounds the noise variance from above) with n0 = 2 pseudo-observations,
  // so that the estimate is not zero while n <= d. 1 before the first two rewards.
  double noiseEstimate() const;
  // stats().forgetting: the forgetting's with the weight of the observations the model holds.
  Json forgettingStats() const;

  // One observation in the model's coordinates: the discount first, the regression's update, then
  // the window or the change detector.
  void observe(const Vector& x, double reward);
  // Every observation's weight times `factor`, in [0, 1) (the caller checked it: 1 forgets nothing),
  // the regulariser back to P: forget(0) is the fresh model with the same prior.
  void forget(double factor);
  // The model moved through the basis's transitions `changes`, M_1 first (M = B_new^T B_old):
  // V -> c P I + M (V - c P I) M^T and b -> M b, exact for what lay in the old span; directions new
  // to the basis start at the prior. The window's rows move with it. Nothing to move before the
  // first observation.
  void move(const std::vector<const Matrix*>& changes);
  // The estimate the model will hold once moved through `changes`, without moving it.
  Vector thetaMovedThrough(const std::vector<const Matrix*>& changes) const;

  // The state format (5) interleaves the model with the policy's random engine and counters: the
  // regression comes right after the arms, the rest after the counters (the observation count, the
  // noise estimate's sums, the regulariser's share, the forgetting and its window's rows).
  void saveRegression(StateWriter& out) const;
  void loadRegression(StateReader& in);
  void saveMemory(StateWriter& out) const;
  void loadMemory(StateReader& in);

 private:
  RidgeRegression ridge_;
  Listener& listener_;
  // The `noise` option, when given, replaces the estimate.
  bool noiseGiven_;
  double noise_;
  std::uint64_t updates_ = 0;
  // Sufficient statistics of the noise estimate (model rewards), weighted as the regression's
  // observations are (Forgetting).
  double rewardSum_ = 0.0;
  double squaredRewardSum_ = 0.0;
  double effectiveObservations_ = 0.0;

  // The prior: weight (0 without one) and mean (empty without one), read from the options.
  double priorWeight_ = 0.0;
  Vector priorMean_;

  // How the model forgets, and its state: the regulariser's share c under a discount (see the class
  // comment), and a window's observations in the model's coordinates with their weights ('auto':
  // the observations since its detector's statistic rose from 0).
  Forgetting forgetting_;
  // Whether every reward the model took was 0 or 1 (clicks): 'auto' then tests the Bernoulli
  // likelihood ratio instead of the standardised errors. One other reward ends it for good.
  bool binaryRewards_ = true;
  double priorScale_ = 1.0;
  struct WindowRow {
    Vector x;
    double reward;
    double weight;
  };
  std::deque<WindowRow> window_;
  std::uint64_t sinceRefactor_ = 0;

  // Reads the `prior` option and starts the regression from it. A restored state's V and b
  // overwrite it.
  void startFromPrior(const Json& options, int featureDim);
  // b_0, the prior's responses (zero without a prior).
  Vector priorResponses() const;
  // The forgetting of each observation, before (discount) and after (window, 'auto') the
  // regression takes it.
  void discountPast(double factor);
  void slideWindow();
  void detectChange(const Vector& x, double reward);
  // The Bernoulli log-likelihood ratio of one binary reward (see Forgetting).
  double clickLikelihoodRatio(double reward, double prediction) const;
  // V and b rebuilt from the window's rows (against the downdates' rounding).
  void refactorWindow();
  // Every observation's weight times `factor`, the regulariser back to P (see the class comment).
  void weighPast(double factor);
  // V and b moved by `change` (see move()).
  static void moveModel(Matrix& gram, Vector& responses, const Matrix& change, double lambda);
  // The window's rows moved to the model's new coordinates (z -> change z).
  void moveWindow(const Matrix& change);
};

}  // namespace sublinear
