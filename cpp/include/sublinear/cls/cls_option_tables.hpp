#pragma once

// The option groups of combinatorial linear policies and their environments that their code reads
// (readOption and friends); the tables they make, and every default, are in
// cpp/src/cls/cls_option_tables.cpp.
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_groups {

const OptionGroup& cls();
// The keys of a cls policy's `index` it reads itself; the rest is the index's.
const OptionGroup& clsShortlist();
const OptionGroup& clsRidge();
const OptionGroup& c2ucb();
const OptionGroup& pc2ucb();
const OptionGroup& combTs();
const OptionGroup& combLinTs();
const OptionGroup& combLinUcb();
const OptionGroup& clusteredEnvironment();
// The drift of the clustered and the promotion environments ({ kind: 'switch', every }).
const OptionGroup& clsDrift();
const OptionGroup& promotionEnvironment();

}  // namespace sublinear::option_groups
