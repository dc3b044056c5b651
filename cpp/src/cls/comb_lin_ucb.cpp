#include "sublinear/cls/comb_lin_ucb.hpp"

#include <cmath>
#include <limits>

namespace sublinear {

namespace {
constexpr double kHuge = std::numeric_limits<double>::max();
}

CombLinUCB::CombLinUCB(const Json& options)
    : ClsPolicy(options, readNumber(options, "noiseVariance", 1.0, 0.0, kHuge, false) /
                             readNumber(options, "priorVariance", 1.0, 0.0, kHuge, false)),
      multiplier_(readNumber(options, "c", 1.0, 0.0, kHuge) *
                  std::sqrt(readNumber(options, "noiseVariance", 1.0, 0.0, kHuge, false))) {}

}  // namespace sublinear
