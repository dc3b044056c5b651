#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sublinear/cls/cls_policy.hpp"

namespace sublinear {

// Builds a policy from `{ type, ...options }` with type one of clsPolicyTypes() (kebab case, as in
// simulate's `policy.type`). INVALID_ARGUMENT for an unknown type or a bad option.
std::unique_ptr<ClsPolicy> makeClsPolicy(const Json& options);
std::vector<std::string> clsPolicyTypes();

}  // namespace sublinear
