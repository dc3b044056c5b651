#include "sublinear/cls/comb_lin_ts.hpp"

#include <cmath>
#include <limits>

namespace sublinear {

namespace {
constexpr double kHuge = std::numeric_limits<double>::max();
}

CombLinTS::CombLinTS(const Json& options)
    : ClsPolicy(options, readNumber(options, "noiseVariance", 1.0, 0.0, kHuge, false) /
                             readNumber(options, "priorVariance", 1.0, 0.0, kHuge, false)),
      sigma_(std::sqrt(readNumber(options, "noiseVariance", 1.0, 0.0, kHuge, false))),
      sample_(ridge_.theta()) {}

}  // namespace sublinear
