#include "sublinear/cls/pc2ucb.hpp"

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

PC2UCB::PC2UCB(const Json& options)
    : ClsPolicy(options, readOption(option_groups::clsRidge(), options, "lambda")),
      alpha_(readOption(option_groups::c2ucb(), options, "alpha")),
      c_(readOption(option_groups::pc2ucb(), options, "c")) {}

}  // namespace sublinear
