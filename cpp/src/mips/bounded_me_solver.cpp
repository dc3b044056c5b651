#include "sublinear/mips/bounded_me_solver.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

BoundedMESolver::BoundedMESolver(double epsilon, double delta) : epsilon_(epsilon), delta_(delta) {
  require(std::isfinite(epsilon) && epsilon > 0 && epsilon < 1, ErrorCode::InvalidArgument, "option 'epsilon' must be in (0, 1)");
  require(std::isfinite(delta) && delta > 0 && delta < 1, ErrorCode::InvalidArgument, "option 'delta' must be in (0, 1)");
}

double BoundedMESolver::sampleSize(double u, std::size_t listLength) {
  const double n = static_cast<double>(listLength);
  const double shrink = 1.0 + u / n;
  return std::min((u + 1.0) / shrink, (u + u / n) / shrink);
}

std::size_t BoundedMESolver::roundPulls(double epsilonRound, double deltaRound, std::size_t survivors, std::size_t k,
                                        std::size_t listLength) {
  const double excess = static_cast<double>(survivors - k);
  const double dropped = std::ceil(excess / 2.0);
  // Line 7 of Algorithm 1 (the paper's appendix writes floor here; the algorithm box, followed here, ceil).
  const double u = 2.0 / (epsilonRound * epsilonRound) * deterministic::log(2.0 * excess / (deltaRound * (dropped + 1.0)));
  const double m = std::ceil(sampleSize(u, listLength));
  if (!(m < static_cast<double>(listLength))) return listLength;  // also catches u = inf
  return static_cast<std::size_t>(std::max(1.0, m));
}

BoundedMESolver::Result BoundedMESolver::solve(std::size_t armCount, std::size_t listLength, std::size_t k,
                                               const PullSum& pullSum) const {
  return solveRounds(armCount, listLength, k, [&](const std::vector<std::size_t>& arms, std::size_t from, std::size_t to, std::vector<double>& sums) {
    for (const std::size_t arm : arms) sums[arm] += pullSum(arm, from, to);
  });
}

BoundedMESolver::Result BoundedMESolver::solveRounds(std::size_t armCount, std::size_t listLength, std::size_t k,
                                                     const RoundPulls& pullRound) const {
  require(listLength >= 1, ErrorCode::InvalidArgument, "reward lists must not be empty");
  require(k >= 1 && k <= armCount, ErrorCode::InvalidArgument, "k must be in [1, number of arms]");
  Result result;
  std::vector<std::size_t> survivors(armCount);
  for (std::size_t arm = 0; arm < armCount; ++arm) survivors[arm] = arm;
  std::vector<double> sums(armCount, 0.0);  // indexed by arm; every survivor has the same pull count
  const auto better = [&sums](std::size_t a, std::size_t b) { return sums[a] > sums[b] || (sums[a] == sums[b] && a < b); };

  double epsilonRound = epsilon_ / 4.0;
  double deltaRound = delta_ / 2.0;
  std::size_t pulled = 0;  // t_{l-1}
  std::vector<std::pair<double, std::size_t>> ranked;
  std::vector<char> kept(armCount, 0);
  while (survivors.size() > k) {
    ++result.rounds;
    const std::size_t target = std::max(pulled, roundPulls(epsilonRound, deltaRound, survivors.size(), k, listLength));
    if (target > pulled) {
      pullRound(survivors, pulled, target, sums);
      result.pulls += static_cast<std::uint64_t>(target - pulled) * survivors.size();
      pulled = target;
    }
    // Once every list is read in full the means are exact and the remaining rounds would only peel
    // the exact ranking down to K: take it at once.
    const std::size_t keep = pulled == listLength ? k : k + (survivors.size() - k) / 2;
    // Select on contiguous (mean, arm) keys, then keep the survivors in ascending arm order (no sort),
    // which keeps the next round's memory walk monotone.
    ranked.clear();
    for (const std::size_t arm : survivors) ranked.emplace_back(sums[arm], arm);
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    for (std::size_t i = 0; i < keep; ++i) kept[ranked[i].second] = 1;
    std::size_t out = 0;
    for (const std::size_t arm : survivors) {
      if (kept[arm]) {
        survivors[out++] = arm;
        kept[arm] = 0;
      }
    }
    survivors.resize(out);
    epsilonRound *= 0.75;
    deltaRound /= 2.0;
  }
  std::sort(survivors.begin(), survivors.end(), better);
  result.arms = std::move(survivors);
  return result;
}

BoundedMESolver::DrawOrder BoundedMESolver::parseDrawOrder(const std::string& name) {
  if (name == "shared") return DrawOrder::Shared;
  if (name == "independent") return DrawOrder::Independent;
  if (name == "given") return DrawOrder::Given;
  fail(ErrorCode::InvalidArgument, "option 'order' must be 'shared', 'independent' or 'given', got '" + name + "'");
}

BoundedMESolver::Result BoundedMESolver::solveLists(const double* rewards, std::size_t armCount, std::size_t listLength,
                                                    std::size_t k, DrawOrder order, double low, double high,
                                                    Random& random) const {
  require(armCount >= 1 && listLength >= 1, ErrorCode::InvalidArgument, "K and N must be positive integers");
  require(k >= 1 && k <= armCount, ErrorCode::InvalidArgument, "k must be an integer in [1, K]");
  require(std::isfinite(low) && std::isfinite(high) && low < high, ErrorCode::InvalidArgument,
          "options 'low' and 'high' must be finite with low < high");
  const std::size_t total = armCount * listLength;
  for (std::size_t i = 0; i < total; ++i) {
    if (!std::isfinite(rewards[i])) fail(ErrorCode::NonFinite, "rewards has a non-finite entry at position " + std::to_string(i));
    if (rewards[i] < low || rewards[i] > high) {
      fail(ErrorCode::InvalidArgument, "rewards[" + std::to_string(i) + "] = " + std::to_string(rewards[i]) +
                                           " lies outside [low, high] = [" + std::to_string(low) + ", " + std::to_string(high) + "]");
    }
  }
  if (order == DrawOrder::Given) {
    return solve(armCount, listLength, k, [&](std::size_t arm, std::size_t from, std::size_t to) {
      double sum = 0.0;
      for (std::size_t p = from; p < to; ++p) sum += rewards[arm * listLength + p];
      return sum;
    });
  }
  if (order == DrawOrder::Shared) {
    std::vector<std::size_t> position(listLength);
    for (std::size_t j = 0; j < listLength; ++j) position[j] = j;
    random.shuffle(position);
    return solve(armCount, listLength, k, [&](std::size_t arm, std::size_t from, std::size_t to) {
      double sum = 0.0;
      for (std::size_t p = from; p < to; ++p) sum += rewards[arm * listLength + position[p]];
      return sum;
    });
  }
  // Independent orders, drawn lazily: a Fisher-Yates shuffle per arm that only materialises the
  // positions it has displaced (memory proportional to the pulls, not to K * N). The map is only
  // looked up, never iterated, so the two standard libraries agree.
  std::vector<std::unordered_map<std::size_t, std::size_t>> displaced(armCount);
  return solve(armCount, listLength, k, [&](std::size_t arm, std::size_t from, std::size_t to) {
    auto& moved = displaced[arm];
    const auto at = [&moved](std::size_t j) {
      const auto it = moved.find(j);
      return it == moved.end() ? j : it->second;
    };
    double sum = 0.0;
    for (std::size_t p = from; p < to; ++p) {
      const std::size_t j = p + static_cast<std::size_t>(random.uniformInt(listLength - p));
      const std::size_t drawn = at(j);
      moved[j] = at(p);
      moved.erase(p);  // position p is consumed for good
      sum += rewards[arm * listLength + drawn];
    }
    return sum;
  });
}

BoundedMESolver::Result solveBoundedPulls(const double* rewards, std::size_t rewardCount, std::size_t armCount,
                                          std::size_t listLength, const Json& options) {
  requireObject(options, "boundedME options");
  require(armCount >= 1 && listLength >= 1, ErrorCode::InvalidArgument, "K and N must be positive integers");
  if (rewardCount / listLength != armCount || rewardCount % listLength != 0) {
    fail(ErrorCode::DimensionMismatch, "expected K x N = " + std::to_string(armCount) + " x " + std::to_string(listLength) +
                                           " rewards, got " + std::to_string(rewardCount));
  }
  // (epsilon, delta) as BoundedMEIndex reads them.
  const BoundedMESolver solver(readOption(option_groups::boundedMe(), options, "epsilon"), readOption(option_groups::boundedMe(), options, "delta"));
  const OptionGroup& own = option_groups::boundedMeSolver();
  const long long k = readIntegerOption(own, options, "k");
  requireIntegerOptionWithin("k", k, 1, static_cast<long long>(armCount));
  const double low = readOption(own, options, "low");
  const double high = readOption(own, options, "high");
  const auto order = BoundedMESolver::parseDrawOrder(readString(options, "order", "shared"));
  Random random(readSeed(options));
  return solver.solveLists(rewards, armCount, listLength, static_cast<std::size_t>(k), order, low, high, random);
}

}  // namespace sublinear
