#pragma once

// The option groups of MIPS indexes that their code reads (readOption and friends); the tables they
// make, and every default, are in cpp/src/mips/mips_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

const OptionGroup& indexDim();
const OptionGroup& exact();
const OptionGroup& hnsw();
const OptionGroup& lsh();
const OptionGroup& adaptive();
const OptionGroup& boundedMe();
// boundedME()'s own options beside boundedMe()'s (the function of the package, not the index).
const OptionGroup& boundedMeSolver();
const OptionGroup& greedy();
const OptionGroup& pcaTree();

}  // namespace sublinear::option_groups
