#pragma once

// A small Gaussian linear bandit written for the tests (independent of the environments of the
// sim area): theta* and arms from N(0, I_d) scaled by 1/sqrt(d), Gaussian reward noise.
#include <algorithm>
#include <map>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear::testing {

struct GaussianProblem {
  int dim;
  double noise;
  Random random;
  Vector thetaStar;
  std::map<Id, Vector> arms;  // ordered: the best arm is found deterministically
  Id nextId = 0;

  GaussianProblem(int dim_, std::uint64_t seed, double noise_ = 0.5) : dim(dim_), noise(noise_), random(seed) {
    thetaStar = gaussian();
  }

  Vector gaussian() {
    Vector v(dim);
    random.fillNormal(v.data(), static_cast<std::size_t>(dim));
    return v / std::sqrt(static_cast<double>(dim));
  }

  // `count` new arms recorded in the problem: their ids, their features appended to `features`.
  std::vector<Id> newArms(std::size_t count, std::vector<double>& features) {
    std::vector<Id> ids;
    for (std::size_t i = 0; i < count; ++i) {
      const Vector x = gaussian();
      ids.push_back(nextId);
      arms.emplace(nextId++, x);
      features.insert(features.end(), x.data(), x.data() + dim);
    }
    return ids;
  }

  // Adds `count` new arms to the problem and the policy.
  std::vector<Id> addArms(LinearPolicy& policy, std::size_t count) {
    std::vector<double> features;
    std::vector<Id> ids = newArms(count, features);
    policy.addArms(ids.data(), ids.size(), features.data(), features.size());
    return ids;
  }

  void removeArms(LinearPolicy& policy, const std::vector<Id>& ids) {
    policy.removeArms(ids.data(), ids.size());
    for (const Id id : ids) arms.erase(id);
  }

  double mean(Id id) const { return arms.at(id).dot(thetaStar); }
  double bestMean() const {
    double best = -1e300;
    for (const auto& [id, x] : arms) best = std::max(best, x.dot(thetaStar));
    return best;
  }

  // One round: select, reward, update; returns the regret.
  double play(LinearPolicy& policy) {
    const Id arm = policy.select();
    const double regret = bestMean() - mean(arm);
    policy.update(arm, mean(arm) + noise * random.normal());
    return regret;
  }

  // Regret of each of `rounds` rounds.
  std::vector<double> run(LinearPolicy& policy, int rounds) {
    std::vector<double> regrets;
    regrets.reserve(static_cast<std::size_t>(rounds));
    for (int t = 0; t < rounds; ++t) regrets.push_back(play(policy));
    return regrets;
  }
};

inline double averageOver(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  double sum = 0.0;
  for (std::size_t i = begin; i < end; ++i) sum += values[i];
  return sum / static_cast<double>(end - begin);
}

}  // namespace sublinear::testing
