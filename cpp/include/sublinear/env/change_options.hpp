#pragma once

#include "sublinear/core/error.hpp"
#include "sublinear/core/options.hpp"

namespace sublinear {

// The `change` object of an environment's options ({ every, add, remove }: arm arrivals and
// removals), or an empty object when it is not given, so that its keys read their defaults.
inline const Json& changeOptions(const Json& options) {
  static const Json none = Json::object();
  if (!options.is_object() || !options.contains("change") || options["change"].is_null()) return none;
  const Json& change = options["change"];
  require(change.is_object(), ErrorCode::InvalidArgument, "option 'change' must be an object { every, add, remove }");
  return change;
}

}  // namespace sublinear
