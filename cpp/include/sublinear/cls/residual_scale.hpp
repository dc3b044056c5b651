#pragma once

#include <cmath>

namespace sublinear {

class StateReader;
class StateWriter;

// The noise scale sigma the 'auto' change detector of a combinatorial linear policy standardises by
// (the policies keep no noise estimate of their own): the mean of e^2 / D over the observations, e
// an observation's prediction error before it counted and D = 1 + ||x||^2_{V^-1} its predictive
// variance in units of sigma^2, so that E[e^2 / D] = sigma^2 while the world stays as the model has
// it. A restart starts it over with the model.
class ResidualScale {
 public:
  void observe(double error, double denominator, double reward) {
    squares_ += error * error / denominator;
    rewardSquares_ += reward * reward;
    weight_ += 1.0;
  }
  void clear() { squares_ = rewardSquares_ = weight_ = 0.0; }
  double weight() const { return weight_; }
  double sigma() const { return weight_ > 0.0 ? std::sqrt(squares_ / weight_) : 0.0; }
  // The rewards' root mean square: the scale of a floor for sigma where rewards have no known range.
  double rewardScale() const { return weight_ > 0.0 ? std::sqrt(rewardSquares_ / weight_) : 0.0; }

  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  double squares_ = 0.0;
  double rewardSquares_ = 0.0;
  double weight_ = 0.0;
};

}  // namespace sublinear
