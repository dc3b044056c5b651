#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/core/options.hpp"

namespace sublinear {

class StateReader;
class StateWriter;

// How a policy forgets what the world no longer says (option `forgetting`, API.md v3), for every
// linear policy (LinearModel, described here) and every semi-bandit policy (SemiBanditPolicy's
// counts, ClsPolicy's ridge models, each with its own standardised errors and windows in rounds):
//   'auto' (the default)  a change detector on the model's own prediction errors; when the rewards of
//                         what the policy shows fall below what the model predicts, persistently,
//                         the model starts again from its prior (a detected restart, Zhao et al. 2020)
//                         and the elimination policies restart their stages
//   'none'                every observation counts for ever (the papers' policies)
//   { discount: g }       an observation of age a weighs g^a (D-LinUCB, Russac et al. 2019)
//   { window: n }         only the last n observations count (SW-LinUCB, Cheung et al. 2019)
// The arithmetic lives with the models (LinearModel, the semi-bandit policies); this class holds
// the choice, the detector and the counters that stats().forgetting reports.
//
// The detector is a one-sided CUSUM (Page 1954) on z = (r - x^T theta^) / (sigma^ sqrt(1 + ||x||^2_{V^-1})),
// the prediction error standardised by its predictive spread under the model (sigma^ the policy's
// noise estimate): S <- max(0, S - clip(z) - drift), a change when S > threshold; the model then
// starts again from its prior with the observations since S last stood at 0 (the change point's
// estimate; the latest kRecentRows of them), which LinearModel keeps while S rises. Only the side
// where the model predicts too high is watched: a learning model's errors are positive (ridge
// shrinks its predictions towards 0), and what a change of taste does to a model is make the items
// it shows, the old favourites, worse than predicted. The policy chose the arm for a high estimate, so
// one width sigma^ ||x||_{V^-1} of over-prediction is allowed before an error counts (the winner's
// curse: without it LinUCB found changes in 11 of 12 stationary runs at d = 16, noise 1). The
// settings are the most sensitive that found no change in any stationary run of the tests (Gaussian
// worlds of several dimensions, noise levels and norms, arms arriving, the battery): a half-slope of
// 0.15 with half a width and a longer warm-up found Fashion-MNIST shoppers' switches sooner (26 and
// 42 pages against 30 and 54 for LinUCB and Linear TS) but raised 3 alarms where nothing changed
// (README, "Tastes that change"). A challenger race (the ridge model of the recent rows predicting
// each new observation against the model, started at a lower level of S, a restart when its
// log-likelihood ratio passed a bound) found those switches sooner (regained in 52 pages against 59)
// at a bound of 4 but raised alarms in 5 of 24 stationary Gaussian runs (regret up to 3.8x 'none''s);
// at a bound of 6 it raised none and regained no sooner, so it was not kept. z is clipped so that a single outlier cannot raise an alarm.
//
// Over clicks (every reward the model took 0 or 1; LinearModel decides from the data, as
// rewardModel 'auto' does, and one other reward turns it to the errors above for good) the test is
// the Bernoulli log-likelihood ratio instead: with p the model's predicted click rate of the shown
// item (clamped into [0.001, 0.9]) less one width (the winner's curse, as above), against "its rate
// dropped to rho p", a 0 adds log((1 - rho p) / (1 - p)) and a 1 adds log(rho); S <- max(0, S + that),
// a change when S > likelihoodThreshold nats. Why: the pooled sigma^ of clicks is set by the many
// near-0 rates, so a shown favourite's missing clicks (0.3 -> 0.02 on Fashion-MNIST shoppers) are
// under one sigma^ each and the errors' CUSUM found half the switches in 75 pages; the Bernoulli
// variance is the item's own, and an item predicted near 0 costs nothing. rho = 0.1 (a taste's
// change takes the old favourites to about the average item's rate), margin 1 and 9 nats: on the
// shoppers LinUCB and the elimination policies regained 80% in 41 pages against a fresh model's 26
// (59 with the errors), with no alarm in 100 users without a switch nor in 27 generated stationary
// click worlds (bench/experiments/click-regret.mjs: regret 1.00x 'none''s). A Thompson policy's draws
// make runs of misses likelier (peaks of 11 nats in those worlds), so its model keeps a quarter of
// the past on a change over clicks (alarmKeeps): a false alarm then cost at most 1.08x 'none''s
// regret, and Sub-TS regained in 1.40x a fresh model's pages (1.57x with the errors).
// The object form { threshold, drift, margin, warmUp, likelihoodThreshold, dropRatio,
// likelihoodMargin, alarmKeeps } sets them (not documented: for calibration).
class Forgetting {
 public:
  enum class Kind { None, Auto, Discount, Window };

  // Reads options["forgetting"] (INVALID_ARGUMENT for anything but the forms above).
  // `alarmKeeps`: the share of the past a change found over clicks keeps, unless the object form
  // sets it (LinearModel's choice by policy: see alarmKeeps()).
  explicit Forgetting(const Json& options, double alarmKeeps = 0.0);

  Kind kind() const { return kind_; }
  const char* kindName() const;
  double discount() const { return discount_; }
  std::size_t window() const { return window_; }

  // The detector's settings (half-slope, alarm level, selection margin in widths, warm-up per
  // dimension) are the forgetting option table's defaults (cpp/src/core/option_tables.cpp). Errors
  // are clipped to +-kClip; the detector listens only once the model holds kWarmUp observations'
  // weight at least: before that the noise estimate and the predictions are too rough to judge.
  static constexpr double kClip = 3.0;
  static constexpr double kWarmUp = 10.0;

  double threshold() const { return threshold_; }
  // Changes found ('auto').
  std::uint64_t changes() const { return detected_; }
  double margin() const { return margin_; }
  double warmUpPerDimension() const { return warmUp_; }
  // 'auto': whether the statistic is above 0 (evidence of a change is gathering).
  bool rising() const { return statistic_ > 0.0; }
  // 'auto': the observations since the statistic rose from 0 that a detected change starts the new
  // model with (the latest of them); at d = 32, 8.7 KB while they are kept.
  static constexpr std::size_t kRecentRows = 32;
  // 'auto': one standardised prediction error; true when it completes a change (the detector starts over).
  bool detect(double standardisedError);
  // 'auto' over binary rewards: one observation's log-likelihood ratio (in nats) of "the shown item's
  // click rate dropped" against the model's predicted rate; true when the statistic passes
  // likelihoodThreshold() (the detector starts over). LinearModel computes the ratio.
  bool detectLikelihoodRatio(double increment);
  double likelihoodThreshold() const { return likelihoodThreshold_; }
  double dropRatio() const { return dropRatio_; }
  double likelihoodMargin() const { return likelihoodMargin_; }
  double alarmKeeps() const { return alarmKeeps_; }
  // The statistic back to 0, as when a model's rewards turn out not to be binary (another test).
  void restartDetector() { statistic_ = 0.0; }
  // forget(factor)'s check for every policy: INVALID_ARGUMENT unless factor is a number in [0, 1];
  // whether there is anything to forget (factor below 1).
  static bool forgets(double factor);
  // The model forgot at update number `update`: detected (by 'auto') or asked for (forget()).
  void recordChange(std::uint64_t update, bool detected);

  // { kind, effectiveMemory, changes, lastChange, detector (auto only) }: effectiveMemory is the
  // weight of the observations the model holds, as the caller counts it.
  Json stats(double effectiveMemory) const;

  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  Kind kind_ = Kind::Auto;
  double discount_ = 1.0;
  std::size_t window_ = 0;
  double threshold_;
  double drift_;
  double margin_;
  double warmUp_;
  double likelihoodThreshold_;
  double dropRatio_;
  double likelihoodMargin_;
  double alarmKeeps_;
  double statistic_ = 0.0;
  std::uint64_t detected_ = 0;
  std::uint64_t forgets_ = 0;
  bool changed_ = false;
  std::uint64_t lastChange_ = 0;
};

}  // namespace sublinear
