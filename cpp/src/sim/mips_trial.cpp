#include "sublinear/sim/mips_trial.hpp"

#include <algorithm>
#include <chrono>

#include "sublinear/core/error.hpp"
#include "sublinear/core/memory_budget.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/sim/sim_option_tables.hpp"

namespace sublinear {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kDataPurpose = 12;

std::size_t dimensionOf(const Json& environment) {
  return static_cast<std::size_t>(readIntegerOption(option_groups::mipsEnvironment(), environment, "dim"));
}
}  // namespace

MipsTrial::MipsTrial(const Json& environment, const Json& policy, std::uint64_t seed)
    : items_(static_cast<std::size_t>(readIntegerOption(option_groups::mipsEnvironment(), environment, "items"))),
      dim_(dimensionOf(environment)),
      k_(static_cast<std::size_t>(readIntegerOption(option_groups::mipsPolicy(), policy, "k"))),
      indexSpec_(policy),
      random_(deriveSeed(readSeed(environment, seed >> 11), kDataPurpose)),
      oracle_(dimensionOf(environment)),
      query_(dimensionOf(environment)) {
  uniform_ = readStringOption(option_groups::mipsEnvironment(), environment, "dataset") == "uniform";
  require(k_ <= items_, ErrorCode::InvalidArgument, "option 'k' must be at most the number of items");
  requireAddressable(static_cast<std::uint64_t>(items_) * dim_, 2 * sizeof(float), "the dataset (items x dim, stored twice)");
  indexSpec_.erase("k");
  indexSpec_.erase("horizon");
  // Fail on a bad index type or option now, before the data are drawn.
  makeMipsIndex(dim_, indexSpec_);
}

void MipsTrial::draw(float* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(uniform_ ? random_.uniform() : random_.normal());
}

void MipsTrial::setup(TrialClock& clock) {
  std::vector<float> data(items_ * dim_);
  draw(data.data(), data.size());
  std::vector<Id> ids(items_);
  for (std::size_t i = 0; i < items_; ++i) ids[i] = static_cast<Id>(i);
  oracle_.add(ids.data(), ids.size(), data.data(), data.size());
  const auto start = Clock::now();
  index_ = makeMipsIndex(dim_, indexSpec_);
  index_->add(ids.data(), ids.size(), data.data(), data.size());
  clock.setup += secondsSince(start);
}

RoundOutcome MipsTrial::playRound(std::int64_t, TrialClock& clock) {
  draw(query_.data(), dim_);
  const SearchResult truth = oracle_.search(query_.data(), dim_, k_);
  const auto start = Clock::now();
  const SearchResult answer = index_->search(query_.data(), dim_, k_);
  clock.select += secondsSince(start);
  std::size_t hits = 0;
  for (const Id id : answer.ids) hits += std::count(truth.ids.begin(), truth.ids.end(), id) > 0 ? 1 : 0;
  RoundOutcome outcome;
  outcome.reward = static_cast<double>(hits) / static_cast<double>(k_);
  outcome.regret = 1.0 - outcome.reward;
  return outcome;
}

std::uint64_t MipsTrial::innerProducts() const { return index_ ? index_->innerProducts() : 0; }

std::unique_ptr<Trial> makeMipsTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  requireObject(environment, "environment");
  requireObject(policy, "policy");
  return std::make_unique<MipsTrial>(environment, policy, seed);
}

}  // namespace sublinear
