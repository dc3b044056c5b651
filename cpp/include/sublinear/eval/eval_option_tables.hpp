#pragma once

// The option groups of evaluate() that their code reads (readOption and friends); the tables they
// make, and every default, are in cpp/src/eval/eval_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

// evaluate()'s options (off-policy evaluation).
const OptionGroup& evaluation();

}  // namespace sublinear::option_groups
