#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear::bindings {

// One JS policy object: the policy and the buffers of its last theta(), selectSlate()
// and decide() (its arms in slate), which JS copies out.
struct LinearPolicyHandle {
  explicit LinearPolicyHandle(PersistentLinearPolicy policy) : object(std::move(policy)) {}
  PersistentLinearPolicy object;
  std::vector<double> theta;
  std::vector<Id> slate;
  std::vector<double> propensities;
  std::vector<double> propensityErrors;
  std::vector<double> prefixPropensities;
  std::vector<Id> policyArms;
};

}  // namespace sublinear::bindings
