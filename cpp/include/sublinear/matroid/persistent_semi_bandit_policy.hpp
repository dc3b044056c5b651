#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/persistent.hpp"
#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// A matroid semi-bandit policy as a user holds it: the policy over its own copy of the matroid. Its
// saved state is the options (with the type), the matroid, then the policy's fields.
template <>
struct PersistenceFamily<SemiBanditPolicy> : PersistenceFamilyDefaults {
  static constexpr const char* kName = "semi-bandit policy";
  static constexpr const char* kNoun = "policy";
  static std::vector<std::string> stateTypes();
  static std::unique_ptr<SemiBanditPolicy> restore(StateReader& in, const Json& spec, const std::string& type, const Context&);
  static void writeHead(StateWriter& out, const SemiBanditPolicy& policy, const Context&) { policy.matroid().save(out); }
};

using PersistentSemiBanditPolicy = Persistent<SemiBanditPolicy>;

// A policy of `type` over a copy of `matroid` (makeSemiBanditPolicy), saved with `options` and its type.
PersistentSemiBanditPolicy makePersistentSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options);

}  // namespace sublinear
