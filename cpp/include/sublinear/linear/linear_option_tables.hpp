#pragma once

// The option groups of linear policies and the catalogue that their code reads (readOption and
// friends); the tables they make, and every default, are in
// cpp/src/linear/linear_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

const OptionGroup& linearDim();
const OptionGroup& ridge();
// decide() and reward(): exploration, pending decisions, the Thompson propensity estimate.
const OptionGroup& decisions();
const OptionGroup& ridgePriorSpec();
const OptionGroup& thompson();
// LinUCB's own: kept or direct widths.
const OptionGroup& linUcb();
const OptionGroup& armSubspace();
// armSubspace's options with the optimistic policies' own subspaceEnergy default (LinUCB's and the
// elimination policies'; the value and why: linear_option_tables.cpp).
const OptionGroup& optimisticSubspace();
const OptionGroup& approximationAudit();
const OptionGroup& elimination();
// Sub-Elim's own: Linear Elim, the baseline, takes none of it.
const OptionGroup& subElimSearch();
// The catalogue shared by linear policies.
const OptionGroup& catalogue();

}  // namespace sublinear::option_groups
