#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/type_registry.hpp"
#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// Builds "cucb", "faster-cucb" or "cts" over a copy of `matroid` (INVALID_ARGUMENT otherwise).
std::unique_ptr<SemiBanditPolicy> makeSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options);

std::vector<std::string> semiBanditPolicyTypes();

// One matroid semi-bandit policy type: its name (its option table is
// optionTable("semi-bandit-policy", type)), its JavaScript class's name (sb.<className>, made by
// web/src/matroid.js from the registry) and its constructor over a copy of the matroid.
struct SemiBanditPolicyType {
  std::string type;
  std::string className;
  std::function<std::unique_ptr<SemiBanditPolicy>(const Matroid& matroid, const Json& options)> make;
};
TypeRegistry<SemiBanditPolicyType>& semiBanditPolicyRegistry();

}  // namespace sublinear
