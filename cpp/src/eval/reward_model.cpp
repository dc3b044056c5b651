#include "sublinear/eval/reward_model.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
// Newton's method on a ridge-penalised logistic likelihood converges in about ten steps; the cap only
// bounds the cost of a pathological log.
constexpr int kMaxIterations = 50;
// A step halved this often without lowering the objective is numerically zero.
constexpr int kMaxHalvings = 40;

double logistic(double eta) { return eta >= 0.0 ? 1.0 / (1.0 + std::exp(-eta)) : std::exp(eta) / (1.0 + std::exp(eta)); }
// log(1 + e^eta) without overflow.
double softplus(double eta) { return eta > 0.0 ? eta + std::log1p(std::exp(-eta)) : std::log1p(std::exp(eta)); }
}  // namespace

RewardModel::Kind RewardModel::choose(const std::string& option, const std::vector<double>& rewards) {
  const bool binary = std::all_of(rewards.begin(), rewards.end(), [](double r) { return r == 0.0 || r == 1.0; });
  if (option == "linear") return Kind::Linear;
  if (option == "logistic") {
    // A fractional reward in [0, 1] is a click rate: the logistic likelihood still applies (quasi-binomial).
    for (std::size_t k = 0; k < rewards.size(); ++k) {
      if (!(rewards[k] >= 0.0 && rewards[k] <= 1.0)) {
        fail(ErrorCode::InvalidArgument, "log record " + std::to_string(k) + ": reward " + std::to_string(rewards[k]) +
                                             " is not in [0, 1], which rewardModel 'logistic' needs (use 'linear')");
      }
    }
    return Kind::Logistic;
  }
  return binary ? Kind::Logistic : Kind::Linear;
}

const char* RewardModel::nameOf(Kind kind) { return kind == Kind::Linear ? "linear" : "logistic"; }

Vector RewardModel::design(const double* x) const {
  const Eigen::Map<const Vector> features(x, dim_);
  if (kind_ == Kind::Linear) return features;
  Vector z(dim_ + 1);
  z.head(dim_) = features;
  z[dim_] = 1.0;
  return z;
}

RewardModel RewardModel::fit(Kind kind, double lambda, int dim, const Features& features, const std::vector<Id>& arms,
                             const std::vector<double>& rewards, const std::function<bool(std::size_t)>& keep) {
  RewardModel model(kind, dim, features);
  const int p = kind == Kind::Linear ? dim : dim + 1;
  const std::size_t n = arms.size();
  if (kind == Kind::Linear) {
    Matrix gram = lambda * Matrix::Identity(p, p);
    Vector responses = Vector::Zero(p);
    for (std::size_t k = 0; k < n; ++k) {
      if (!keep(k)) continue;
      const Eigen::Map<const Vector> x(features(arms[k]), dim);
      gram.selfadjointView<Eigen::Lower>().rankUpdate(x);
      responses += rewards[k] * x;
    }
    gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
    model.factor_.compute(gram);
    model.theta_ = model.factor_.solve(responses);
    return model;
  }
  // The penalised negative log-likelihood, which each Newton step must lower (a backtracking line
  // search: a full Newton step can overshoot where the clicks are nearly separable).
  std::vector<std::size_t> kept;
  for (std::size_t k = 0; k < n; ++k) {
    if (keep(k)) kept.push_back(k);
  }
  const auto objective = [&](const Vector& theta) {
    double total = 0.5 * lambda * theta.squaredNorm();
    for (const std::size_t k : kept) {
      const double eta = theta.dot(model.design(features(arms[k])));
      total += softplus(eta) - rewards[k] * eta;
    }
    return total;
  };
  // The Hessian at theta into the factor; returns the gradient of the log-likelihood (minus the penalty's).
  const auto newton = [&](const Vector& theta) {
    Matrix hessian = lambda * Matrix::Identity(p, p);
    Vector ascent = -lambda * theta;
    for (const std::size_t k : kept) {
      const Vector z = model.design(features(arms[k]));
      const double mu = logistic(theta.dot(z));
      hessian.selfadjointView<Eigen::Lower>().rankUpdate(z, mu * (1.0 - mu));
      ascent += (rewards[k] - mu) * z;
    }
    hessian.triangularView<Eigen::StrictlyUpper>() = hessian.transpose();
    model.factor_.compute(hessian);
    return ascent;
  };
  Vector theta = Vector::Zero(p);
  double current = objective(theta);
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    const Vector step = model.factor_.solve(newton(theta));
    double length = 1.0;
    Vector next = theta + step;
    double value = objective(next);
    for (int halving = 0; halving < kMaxHalvings && !(value <= current); ++halving) {
      length /= 2.0;
      next = theta + length * step;
      value = objective(next);
    }
    if (!(value <= current)) break;
    const bool converged = length * step.norm() <= 1e-10 * (1.0 + theta.norm());
    theta = next;
    current = value;
    if (converged) break;
  }
  newton(theta);
  model.theta_ = theta;
  return model;
}

double RewardModel::predict(const double* x) const {
  const double eta = theta_.dot(design(x));
  return kind_ == Kind::Linear ? eta : logistic(eta);
}

double RewardModel::valueUnder(const Distribution& pi) const {
  double value = 0.0;
  for (const auto& [arm, probability] : pi) value += probability * predict(features_(arm));
  return value;
}

Vector RewardModel::gradientUnder(const Distribution& pi) const {
  Vector gradient = Vector::Zero(theta_.size());
  for (const auto& [arm, probability] : pi) {
    const Vector z = design(features_(arm));
    // d sigma(eta) / d theta = sigma (1 - sigma) z.
    const double slope = kind_ == Kind::Linear ? 1.0 : [&] {
      const double mu = logistic(theta_.dot(z));
      return mu * (1.0 - mu);
    }();
    gradient += probability * slope * z;
  }
  return gradient;
}

Vector RewardModel::score(const double* x, double reward) const { return design(x) * (reward - predict(x)); }

double RewardModel::varianceAlong(const Vector& g, const std::vector<Id>& arms, const std::vector<double>& rewards,
                                  const std::function<bool(std::size_t)>& keep) const {
  const Vector direction = solve(g);
  double total = 0.0;
  double squares = 0.0;
  std::size_t n = 0;
  for (std::size_t k = 0; k < arms.size(); ++k) {
    if (!keep(k)) continue;
    ++n;
    const double* x = features_(arms[k]);
    const double residual = rewards[k] - predict(x);
    squares += residual * residual;
    const double influence = direction.dot(design(x)) * residual;
    total += influence * influence;
  }
  if (kind_ == Kind::Logistic) return total;
  const double noise = squares / std::max(1.0, static_cast<double>(n) - static_cast<double>(dim_));
  return std::max(0.0, noise * g.dot(direction));
}

}  // namespace sublinear
