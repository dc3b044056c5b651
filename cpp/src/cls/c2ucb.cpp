#include "sublinear/cls/c2ucb.hpp"

#include <limits>

namespace sublinear {

namespace {
constexpr double kHuge = std::numeric_limits<double>::max();
}

C2UCB::C2UCB(const Json& options)
    : ClsPolicy(options, readNumber(options, "lambda", 1.0, 0.0, kHuge, false)),
      alpha_(readNumber(options, "alpha", 1.0, 0.0, kHuge)) {}

}  // namespace sublinear
