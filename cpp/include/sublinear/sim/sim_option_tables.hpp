#pragma once

// The option groups of simulate() and its environments that their code reads (readOption and
// friends); the tables they make, and every default, are in cpp/src/sim/sim_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

// simulate()'s config and its environments.
const OptionGroup& simulation();
// Every environment's: the horizon and slate simulate() sets, the seed.
const OptionGroup& environmentCommon();
const OptionGroup& mabBpEnvironment();
const OptionGroup& mipsEnvironment();
// The keys of the mips environment's policy that the trial reads itself (the rest is the index's).
const OptionGroup& mipsPolicy();

}  // namespace sublinear::option_groups
