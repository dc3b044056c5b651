#include "sublinear/eval/reward_model.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

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
                             const std::vector<double>& rewards, const std::function<bool(std::size_t)>& keep,
                             const RewardModel* prior) {
  RewardModel model(kind, dim, features);
  const int p = kind == Kind::Linear ? dim : dim + 1;
  const std::size_t n = arms.size();
  // The centre of the penalty: 0, or the prior's parameters.
  const Vector centre = prior ? prior->theta_ : Vector::Zero(p);
  if (kind == Kind::Linear) {
    Matrix gram = lambda * Matrix::Identity(p, p);
    Vector responses = lambda * centre;
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
  // The likelihood depends on a record through its arm only: the records of one arm are summed into
  // its count and clicks, so that a Newton step costs O(distinct arms p^2), not O(n p^2).
  std::unordered_map<Id, std::size_t> rowOf;
  std::vector<double> counts;
  std::vector<double> clicks;
  std::vector<Id> distinct;
  for (std::size_t k = 0; k < n; ++k) {
    if (!keep(k)) continue;
    const auto [found, inserted] = rowOf.emplace(arms[k], distinct.size());
    if (inserted) {
      distinct.push_back(arms[k]);
      counts.push_back(0.0);
      clicks.push_back(0.0);
    }
    counts[found->second] += 1.0;
    clicks[found->second] += rewards[k];
  }
  Matrix rows(static_cast<Eigen::Index>(distinct.size()), p);
  for (std::size_t a = 0; a < distinct.size(); ++a) rows.row(static_cast<Eigen::Index>(a)) = model.design(features(distinct[a])).transpose();
  // The penalised negative log-likelihood, which each Newton step must lower (a backtracking line
  // search: a full Newton step can overshoot where the clicks are nearly separable).
  const auto objective = [&](const Vector& theta) {
    const Vector eta = rows * theta;
    double total = 0.5 * lambda * (theta - centre).squaredNorm();
    for (std::size_t a = 0; a < distinct.size(); ++a) {
      const auto i = static_cast<Eigen::Index>(a);
      total += counts[a] * softplus(eta[i]) - clicks[a] * eta[i];
    }
    return total;
  };
  // The Hessian at theta into the factor; returns the gradient of the log-likelihood (minus the penalty's).
  const auto newton = [&](const Vector& theta) {
    Matrix hessian = lambda * Matrix::Identity(p, p);
    Vector ascent = -lambda * (theta - centre);
    const Vector eta = rows * theta;
    for (std::size_t a = 0; a < distinct.size(); ++a) {
      const auto i = static_cast<Eigen::Index>(a);
      const double mu = logistic(eta[i]);
      hessian.selfadjointView<Eigen::Lower>().rankUpdate(rows.row(i).transpose(), counts[a] * mu * (1.0 - mu));
      ascent += (clicks[a] - counts[a] * mu) * rows.row(i).transpose();
    }
    hessian.triangularView<Eigen::StrictlyUpper>() = hessian.transpose();
    model.factor_.compute(hessian);
    return ascent;
  };
  // From the centre: a user with few records is a small step from the pooled model.
  Vector theta = centre;
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
  // theta^T z without building z (an allocation per call in the estimators' loops).
  const double eta = theta_.head(dim_).dot(Eigen::Map<const Vector>(x, dim_)) + (kind_ == Kind::Linear ? 0.0 : theta_[dim_]);
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
    const double* x = features_(arm);
    // d sigma(eta) / d theta = sigma (1 - sigma) z.
    const double mu = predict(x);
    const double slope = kind_ == Kind::Linear ? 1.0 : mu * (1.0 - mu);
    gradient += probability * slope * design(x);
  }
  return gradient;
}

Vector RewardModel::score(const double* x, double reward) const { return design(x) * (reward - predict(x)); }

double RewardModel::loss(const double* x, double reward) const {
  if (kind_ == Kind::Linear) {
    const double residual = reward - predict(x);
    return residual * residual;
  }
  // -y log(mu) - (1 - y) log(1 - mu) from the linear predictor (finite however large |eta| is).
  const double eta = theta_.head(dim_).dot(Eigen::Map<const Vector>(x, dim_)) + theta_[dim_];
  return softplus(eta) - reward * eta;
}

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
