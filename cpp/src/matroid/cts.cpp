#include "sublinear/matroid/cts.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/state_codec.hpp"

namespace sublinear {

Cts::Cts(const Matroid& matroid, const Json& options)
    : SemiBanditPolicy(matroid, options),
      successes_(matroid.groundSetSize(), 0.0),
      failures_(matroid.groundSetSize(), 0.0),
      samples_(matroid.groundSetSize(), 0.0) {}

std::vector<Id> Cts::chooseBasis(std::int64_t) {
  const double scale = countScale();
  for (Id arm = 0; arm < armCount(); ++arm) {
    samples_[arm] = random().beta(1.0 + scale * successes_[arm], 1.0 + scale * failures_[arm]);
  }
  armsScanned_ += armCount();
  return matroid().maxWeightBasis(samples_.data(), samples_.size());
}

void Cts::armUpdated(Id arm, double reward) {
  const double scaled = (reward - rewardLow()) / (rewardHigh() - rewardLow());
  // Exact 0/1 rewards (Bernoulli arms) need no trial; others are binarised.
  const bool success = scaled >= 1.0 ? true : scaled <= 0.0 ? false : random().bernoulli(scaled);
  // In the units of the count weights, as the base class adds 1 / G to them.
  (success ? successes_ : failures_)[arm] += 1.0 / countScale();
  if (forgetting().kind() == Forgetting::Kind::Window) windowSuccesses_.push_back(success);
}

void Cts::observationLeft(Id arm, double, bool emptied) {
  const bool success = windowSuccesses_.front();
  windowSuccesses_.pop_front();
  if (emptied) {
    successes_[arm] = failures_[arm] = 0.0;
    return;
  }
  // The base class keeps the weights whole under a window until forget(f) scales them: what is
  // taken out is one observation's weight, weight(arm) having lost the same.
  double& side = success ? successes_[arm] : failures_[arm];
  side = std::max(0.0, weight(arm) - (success ? failures_[arm] : successes_[arm]));
}

void Cts::countsWeighed(double factor) {
  // The base class scaled G (the posterior's counts with it); a restart is the prior again.
  if (factor > 0.0) return;
  std::fill(successes_.begin(), successes_.end(), 0.0);
  std::fill(failures_.begin(), failures_.end(), 0.0);
  windowSuccesses_.clear();
}

void Cts::weightsRenormalised() {
  // The base class folded G into its weights; the posterior's counts follow.
  for (Id arm = 0; arm < armCount(); ++arm) {
    const double total = successes_[arm] + failures_[arm];
    if (total == 0.0) continue;
    successes_[arm] = weight(arm) * (successes_[arm] / total);
    failures_[arm] = weight(arm) - successes_[arm];
  }
}

void Cts::save(StateWriter& out) const {
  SemiBanditPolicy::save(out);
  out.f64s(successes_.data(), successes_.size());
  out.f64s(failures_.data(), failures_.size());
  std::vector<std::uint8_t> window(windowSuccesses_.begin(), windowSuccesses_.end());
  out.u64(window.size());
  for (const std::uint8_t success : window) out.u8(success);
}

void Cts::load(StateReader& in) {
  SemiBanditPolicy::load(in);
  std::vector<double> successes = in.f64s();
  std::vector<double> failures = in.f64s();
  in.check(successes.size() == armCount() && failures.size() == armCount(), "the posteriors do not match the matroid");
  for (Id arm = 0; arm < armCount(); ++arm) {
    const double total = successes[arm] + failures[arm];
    in.check(std::isfinite(successes[arm]) && std::isfinite(failures[arm]) && successes[arm] >= 0.0 && failures[arm] >= 0.0 &&
                 std::fabs(total - weight(arm)) <= 1e-9 * std::max(1.0, weight(arm)),
             "a posterior does not add up to its arm's count");
  }
  const std::size_t held = in.count(1);
  std::deque<bool> window;
  for (std::size_t i = 0; i < held; ++i) {
    const std::uint8_t success = in.u8();
    in.check(success <= 1, "a window outcome is not 0 or 1");
    window.push_back(success == 1);
  }
  in.check(window.size() == windowObservations(), "the window's outcomes do not match its observations");
  successes_ = std::move(successes);
  failures_ = std::move(failures);
  windowSuccesses_ = std::move(window);
}

}  // namespace sublinear
