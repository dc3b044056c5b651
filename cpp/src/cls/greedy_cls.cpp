#include "sublinear/cls/greedy_cls.hpp"

#include <limits>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

GreedyCLS::GreedyCLS(const Json& options)
    : ClsPolicy(options, readOption(option_groups::clsRidge(), options, "lambda")) {}

}  // namespace sublinear
