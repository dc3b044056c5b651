#include "sublinear/cls/greedy_cls.hpp"

#include <limits>

namespace sublinear {

GreedyCLS::GreedyCLS(const Json& options)
    : ClsPolicy(options, readNumber(options, "lambda", 1.0, 0.0, std::numeric_limits<double>::max(), false)) {}

}  // namespace sublinear
