#include "sublinear/env/linear_environment.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"

namespace sublinear {

double LinearEnvironment::regret(Id arm) const {
  const EnvironmentArms& set = arms();
  if (!set.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the environment's set");
  // Both terms are the same stored doubles, so the difference is exactly >= 0.
  return set.bestExpectedReward() - set.expectedReward(arm);
}

double LinearEnvironment::slateRegret(const std::vector<Id>& shownArms) const {
  require(supportsSlates(), ErrorCode::InvalidArgument,
          "option 'slate' needs a 'linear' environment of one user (whose regret is that of expected rewards)");
  const EnvironmentArms& set = arms();
  double shown = 0.0;
  for (const Id arm : shownArms) {
    if (!set.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the environment's set");
    shown += set.expectedReward(arm);
  }
  return std::max(0.0, set.bestExpectedSum(shownArms.size()) - shown);
}

}  // namespace sublinear
