#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "sublinear/core/id.hpp"
#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

// The direct method's reward model r(x) of a logged reward given the logged arm's features, fitted on
// (some of) a log's records by penalised maximum likelihood, with what the estimators need of it: its
// value under a policy's choice distribution, that value's gradient in the parameters, and the
// parameters' sensitivity to each record (the delta method's influence), H^-1 z_k (y_k - r(x_k)).
//   - linear: ridge regression, r(x) = theta^T x, H = lambda I + sum x x^T (no intercept: the model
//     the evaluation always had, for rewards of any scale);
//   - logistic: r(x) = sigma(theta^T [x, 1]) (an intercept: a click rate of 0.1 over centred
//     features needs one), fitted by Newton's method (IRLS) with the ridge penalty lambda ||theta||^2
//     / 2 on every coordinate (which keeps theta finite when the clicks are separable or all equal), H =
//     lambda I + sum sigma'(eta) z z^T. Clicks are not linear in the features: a linear model's
//     E_pi[x]^T theta then misses the click rate (issue 54), the logistic model's sum_a pi(a)
//     sigma(theta^T z_a) does not, as long as the clicks do follow it.
// Costs: a linear fit is O(n p^2), a logistic one O(n + iterations m p^2) for m distinct logged arms
// (the likelihood sees an arm's records through their count and clicks; Newton converges in about 10
// iterations, at most kMaxIterations), with p = d or d + 1; a value under pi O(|support of pi| p).
class RewardModel {
 public:
  enum class Kind { Linear, Logistic };
  // The features of an arm (dim() of them).
  using Features = std::function<const double*(Id)>;
  // A distribution over arms: (arm, probability) pairs.
  using Distribution = std::vector<std::pair<Id, double>>;

  // evaluate()'s rewardModel option: "linear", "logistic", or "auto" (logistic when every reward is 0
  // or 1: clicks, linear otherwise).
  static Kind choose(const std::string& option, const std::vector<double>& rewards);
  static const char* nameOf(Kind kind);

  // Fitted on the records k of (arms, rewards) with keep(k), the regulariser `lambda`, features of
  // dimension `dim`. With a `prior` (a model of the same kind and size) the penalty is lambda / 2
  // ||theta - theta_prior||^2 instead: the fit is shrunk towards the prior's parameters, and equals
  // them without records (a population's per-user model, shrunk towards the pooled one).
  static RewardModel fit(Kind kind, double lambda, int dim, const Features& features, const std::vector<Id>& arms,
                         const std::vector<double>& rewards, const std::function<bool(std::size_t)>& keep,
                         const RewardModel* prior = nullptr);

  Kind kind() const { return kind_; }
  // The number of parameters: d (linear) or d + 1 (logistic, with its intercept).
  Eigen::Index parameters() const { return theta_.size(); }
  // The modelled reward of an arm with features x.
  double predict(const double* x) const;
  // The mean modelled reward under pi, sum_a pi(a) r(x_a), and its gradient in theta.
  double valueUnder(const Distribution& pi) const;
  Vector gradientUnder(const Distribution& pi) const;
  // H^-1 v: the parameters' response to a unit of score v.
  Vector solve(const Vector& v) const { return factor_.solve(v); }
  // A record's score, z (y - r(x)): the fitted parameters move by about H^-1 times it per record.
  Vector score(const double* x, double reward) const;
  // A held-out record's loss: the negative log-likelihood (logistic) or the squared error (linear),
  // what cross-validation compares models by.
  double loss(const double* x, double reward) const;
  // The variance of g^T theta-hat from the records k with keep(k): linear, the ridge's sigma^2 g^T H^-1 g
  // (sigma^2 from the residuals: the interval the evaluation always gave); logistic, the sandwich
  // sum_k (g^T H^-1 z_k (y_k - r(x_k)))^2, which holds when the clicks do not follow the model too.
  double varianceAlong(const Vector& g, const std::vector<Id>& arms, const std::vector<double>& rewards,
                       const std::function<bool(std::size_t)>& keep) const;

 private:
  RewardModel(Kind kind, int dim, Features features) : kind_(kind), dim_(dim), features_(std::move(features)) {}
  // z: x, with a 1 appended for the logistic model's intercept.
  Vector design(const double* x) const;

  Kind kind_;
  int dim_;
  Features features_;
  Vector theta_;
  Eigen::LDLT<Matrix> factor_;
};

}  // namespace sublinear
