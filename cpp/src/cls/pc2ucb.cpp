#include "sublinear/cls/pc2ucb.hpp"

#include <limits>

namespace sublinear {

namespace {
constexpr double kHuge = std::numeric_limits<double>::max();
}

PC2UCB::PC2UCB(const Json& options)
    : ClsPolicy(options, readNumber(options, "lambda", 1.0, 0.0, kHuge, false)),
      alpha_(readNumber(options, "alpha", 1.0, 0.0, kHuge)),
      c_(readNumber(options, "c", 1.0, 0.0, kHuge)) {}

}  // namespace sublinear
