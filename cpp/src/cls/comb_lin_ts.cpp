#include "sublinear/cls/comb_lin_ts.hpp"

#include <cmath>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

CombLinTS::CombLinTS(const Json& options)
    : ClsPolicy(options, readOption(option_groups::combLinTs(), options, "noiseVariance") /
                             readOption(option_groups::combLinTs(), options, "priorVariance")),
      sigma_(std::sqrt(readOption(option_groups::combLinTs(), options, "noiseVariance"))),
      sample_(ridge_.theta()) {}

}  // namespace sublinear
