#include "sublinear/cls/comb_lin_ucb.hpp"

#include <cmath>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

CombLinUCB::CombLinUCB(const Json& options)
    : ClsPolicy(options, readOption(option_groups::combLinTs(), options, "noiseVariance") /
                             readOption(option_groups::combLinTs(), options, "priorVariance")),
      multiplier_(readOption(option_groups::combLinUcb(), options, "c") *
                  std::sqrt(readOption(option_groups::combLinTs(), options, "noiseVariance"))) {}

}  // namespace sublinear
