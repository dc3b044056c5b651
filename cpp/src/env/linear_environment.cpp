#include "sublinear/env/linear_environment.hpp"

#include <string>

#include "sublinear/core/error.hpp"

namespace sublinear {

double LinearEnvironment::regret(Id arm) const {
  const EnvironmentArms& set = arms();
  if (!set.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the environment's set");
  // Both terms are the same stored doubles, so the difference is exactly >= 0.
  return set.bestExpectedReward() - set.expectedReward(arm);
}

}  // namespace sublinear
