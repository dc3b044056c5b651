#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sublinear/cls/cls_policy.hpp"
#include "sublinear/core/persistent.hpp"

namespace sublinear {

// A combinatorial linear policy as a user holds it: made from `{ type, ...options }`
// (makeClsPolicy); its saved state is the options, then the policy's fields (ClsPolicy::save).
template <>
struct PersistenceFamily<ClsPolicy> : PersistenceFamilyDefaults {
  static constexpr const char* kName = "combinatorial policy";
  static constexpr const char* kNoun = "policy";
  static std::vector<std::string> stateTypes();
  static std::unique_ptr<ClsPolicy> make(const Json& spec);
  static std::unique_ptr<ClsPolicy> restore(StateReader& in, const Json& spec, const std::string& type, const Context&);
};

using PersistentClsPolicy = Persistent<ClsPolicy>;

}  // namespace sublinear
