#pragma once

// The option groups of the linear simulations' environments that their code reads (readOption and
// friends); the tables they make, and every default, are in cpp/src/env/env_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

const OptionGroup& linearEnvironment();
const OptionGroup& linearDrift();
const OptionGroup& ratingsEnvironment();
// Nested objects of the environments.
const OptionGroup& linearChange();
const OptionGroup& ratingsChange();

}  // namespace sublinear::option_groups
