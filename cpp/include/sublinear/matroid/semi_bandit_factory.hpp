#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// Builds "cucb", "faster-cucb" or "cts" over a copy of `matroid` (INVALID_ARGUMENT otherwise).
std::unique_ptr<SemiBanditPolicy> makeSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options);

std::vector<std::string> semiBanditPolicyTypes();

}  // namespace sublinear
