#include "sublinear/cls/c2ucb.hpp"

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

C2UCB::C2UCB(const Json& options)
    : ClsPolicy(options, readOption(option_groups::clsRidge(), options, "lambda")),
      alpha_(readOption(option_groups::c2ucb(), options, "alpha")) {}

}  // namespace sublinear
