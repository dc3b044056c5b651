#include "sublinear/linear/elimination_stages.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

namespace sublinear {
namespace elimination_stages {

namespace {
constexpr int kStageCap = 60;

double log2(double x) {
  static const double kLogTwo = deterministic::log(2.0);
  return deterministic::log(x) / kLogTwo;
}

double defaultEta(const Json& options) {
  const auto horizon = readIntegerOption(option_groups::ridge(), options, "horizon");
  // The paper's eta(T) = 1/sqrt(T) leaves smax = log2(sqrt(T) / 8) stages, whose last one is
  // played uniformly at random although its arms may still differ by 2^-smax ~ 8 / sqrt(T) in mean:
  // as much as the whole spread of rewards on small-|theta| problems. Under the practical rule the
  // stages go down to 8 / T, so the policy keeps exploring only arms that are still plausible.
  const bool theoretical = readStringOption(option_groups::ridge(), options, "radius") == "theoretical";
  return theoretical ? 1.0 / std::sqrt(static_cast<double>(horizon) + 1.0) : 1.0 / (static_cast<double>(horizon) + 1.0);
}
}  // namespace

double eta(const Json& options) { return readOption(option_groups::elimination(), options, "eta", defaultEta(options)); }

int maxStage(double eta) {
  const double stages = std::ceil(log2(1.0 / (8.0 * eta)));
  return stages <= 0.0 ? 0 : static_cast<int>(std::min<double>(stages, kStageCap));
}

int stageFor(double u, int maxStage) {
  if (!(u > 0.0)) return maxStage;
  if (!(u < 1.0)) return 0;
  // floor(-log2 u), exactly and without a logarithm (the scans call this for every arm in play at
  // every step): with u = m 2^e, m in [0.5, 1), u <= 2^-s holds for s <= -e, and for s = 1 - e
  // too when u is that power of two.
  int exponent = 0;
  const double mantissa = std::frexp(u, &exponent);
  return std::min(mantissa == 0.5 ? 1 - exponent : -exponent, maxStage);
}

}  // namespace elimination_stages
}  // namespace sublinear
