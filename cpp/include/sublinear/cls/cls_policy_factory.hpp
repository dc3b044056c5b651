#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/cls/cls_policy.hpp"
#include "sublinear/core/type_registry.hpp"

namespace sublinear {

// Builds a policy from `{ type, ...options }` with type one of clsPolicyTypes() (kebab case, as in
// simulate's `policy.type`). INVALID_ARGUMENT for an unknown type or a bad option.
std::unique_ptr<ClsPolicy> makeClsPolicy(const Json& options);
std::vector<std::string> clsPolicyTypes();

// One combinatorial linear policy type: its name (its option table is optionTable("cls-policy",
// type)), its JavaScript class's name (sb.<className>, made by web/src/cls.js from the registry) and
// its constructor, given options that passed the table's key check.
struct ClsPolicyType {
  std::string type;
  std::string className;
  std::function<std::unique_ptr<ClsPolicy>(const Json& options)> make;
};
TypeRegistry<ClsPolicyType>& clsPolicyRegistry();

}  // namespace sublinear
