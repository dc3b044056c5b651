#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear::bindings {

// One JS policy object: the policy and the buffers of its last theta(), toBytes(), selectSlate()
// and decide() (its arms in slate), which JS copies out.
struct LinearPolicyHandle {
  std::unique_ptr<PersistentLinearPolicy> policy;
  std::vector<double> theta;
  std::vector<std::uint8_t> saved;
  std::vector<Id> slate;
  std::vector<double> propensities;
  std::vector<double> propensityErrors;
};

}  // namespace sublinear::bindings
