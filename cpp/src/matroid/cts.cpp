#include "sublinear/matroid/cts.hpp"

#include "sublinear/core/state_codec.hpp"

namespace sublinear {

Cts::Cts(const Matroid& matroid, const Json& options)
    : SemiBanditPolicy(matroid, options),
      successes_(matroid.groundSetSize(), 0.0),
      failures_(matroid.groundSetSize(), 0.0),
      samples_(matroid.groundSetSize(), 0.0) {}

std::vector<Id> Cts::chooseBasis(std::int64_t) {
  for (Id arm = 0; arm < armCount(); ++arm) samples_[arm] = random().beta(1.0 + successes_[arm], 1.0 + failures_[arm]);
  armsScanned_ += armCount();
  return matroid().maxWeightBasis(samples_.data(), samples_.size());
}

void Cts::armUpdated(Id arm, double reward) {
  const double scaled = (reward - rewardLow()) / (rewardHigh() - rewardLow());
  // Exact 0/1 rewards (Bernoulli arms) need no trial; others are binarised.
  const bool success = scaled >= 1.0 ? true : scaled <= 0.0 ? false : random().bernoulli(scaled);
  (success ? successes_ : failures_)[arm] += 1.0;
}

void Cts::save(StateWriter& out) const {
  SemiBanditPolicy::save(out);
  // Integers held as doubles (the Beta parameters), exact below 2^53.
  std::vector<std::uint64_t> successes(successes_.begin(), successes_.end());
  out.u64s(successes.data(), successes.size());
}

void Cts::load(StateReader& in) {
  SemiBanditPolicy::load(in);
  const std::vector<std::uint64_t> successes = in.u64s();
  in.check(successes.size() == armCount(), "the posteriors do not match the matroid");
  for (Id arm = 0; arm < armCount(); ++arm) {
    in.check(successes[arm] <= pulls(arm), "a posterior has more successes than pulls");
    successes_[arm] = static_cast<double>(successes[arm]);
    failures_[arm] = static_cast<double>(pulls(arm) - successes[arm]);
  }
}

}  // namespace sublinear
