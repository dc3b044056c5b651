#pragma once

// The option groups of matroid semi-bandit policies and the matroid environment that their code
// reads (readOption and friends); the tables they make, and every default, are in
// cpp/src/matroid/matroid_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

const OptionGroup& semiBandit();
const OptionGroup& fasterCucb();
const OptionGroup& matroidEnvironment();
// The matroid environment's `drift` ({ kind: 'switch', every }).
const OptionGroup& matroidDrift();
const OptionGroup& matroidSpec();

}  // namespace sublinear::option_groups
