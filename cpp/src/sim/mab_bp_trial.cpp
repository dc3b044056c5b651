#include "sublinear/sim/mab_bp_trial.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/memory_budget.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/mips/mips_option_tables.hpp"
#include "sublinear/sim/sim_option_tables.hpp"

namespace sublinear {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kTrialInstancePurpose = 11;
}  // namespace

MabBpTrial::MabBpTrial(std::size_t arms, std::size_t listLength, double epsilon, double delta, std::uint64_t seed)
    : arms_(arms), listLength_(listLength), solver_(epsilon, delta), random_(deriveSeed(seed, kTrialInstancePurpose)) {
  requireAddressable(arms, sizeof(std::size_t), "the lists of " + std::to_string(arms) + " arms");
}

void MabBpTrial::setup(TrialClock&) { ones_.resize(arms_); }

RoundOutcome MabBpTrial::playRound(std::int64_t, TrialClock& clock) {
  std::size_t mostOnes = 0;
  for (auto& ones : ones_) {
    ones = static_cast<std::size_t>(std::floor(random_.uniform() * static_cast<double>(listLength_) + 0.5));
    mostOnes = std::max(mostOnes, ones);
  }
  // Ones first: positions [from, to) hold max(0, min(to, ones) - from) ones.
  const auto pullSum = [this](std::size_t arm, std::size_t from, std::size_t to) {
    const std::size_t ones = ones_[arm];
    return static_cast<double>(std::min(to, ones) > from ? std::min(to, ones) - from : 0);
  };
  const auto start = Clock::now();
  const BoundedMESolver::Result result = solver_.solve(arms_, listLength_, 1, pullSum);
  clock.select += secondsSince(start);
  pulls_ += result.pulls;
  const double n = static_cast<double>(listLength_);
  RoundOutcome outcome;
  outcome.reward = static_cast<double>(ones_[result.arms.front()]) / n;
  outcome.regret = static_cast<double>(mostOnes) / n - outcome.reward;
  return outcome;
}

std::unique_ptr<Trial> makeMabBpTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  requireObject(environment, "environment");
  requireObject(policy, "policy");
  const std::string type = readString(policy, "type", "");
  if (type != "bounded-me") fail(ErrorCode::InvalidArgument, "the mab-bp environment is played by policy type 'bounded-me', got '" + type + "'");
  const auto arms = static_cast<std::size_t>(readIntegerOption(option_groups::mabBpEnvironment(), environment, "arms"));
  const auto listLength = static_cast<std::size_t>(readIntegerOption(option_groups::mabBpEnvironment(), environment, "listLength"));
  // BoundedME's (epsilon, delta), as the index of that name reads them.
  const double epsilon = readOption(option_groups::boundedMe(), policy, "epsilon");
  const double delta = readOption(option_groups::boundedMe(), policy, "delta");
  return std::make_unique<MabBpTrial>(arms, listLength, epsilon, delta, seed);
}

}  // namespace sublinear
