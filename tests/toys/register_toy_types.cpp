#include "toy_types.hpp"

namespace sublinear::toys {

void registerToyTypes() {
  MipsIndexType index = normBoundEntry();
  std::vector<const OptionGroup*> indexGroups = index.groups;
  mipsIndexRegistry().add(std::move(index), std::move(indexGroups));
  LinearPolicyType policy = greedyEntry();
  std::vector<const OptionGroup*> policyGroups = policy.groups;
  linearPolicyRegistry().add(std::move(policy), std::move(policyGroups));
}

}  // namespace sublinear::toys
