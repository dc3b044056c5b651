#include "sublinear/cls/comb_ts.hpp"

#include <cmath>
#include <limits>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
constexpr double kHuge = std::numeric_limits<double>::max();

bool readArmWise(const Json& options) {
  const std::string randomization = readString(options, "randomization", "arm");
  if (randomization != "arm" && randomization != "round") {
    fail(ErrorCode::InvalidArgument, "option 'randomization' must be 'round' or 'arm', got '" + randomization + "'");
  }
  return randomization == "arm";
}
}  // namespace

CombTS::CombTS(const Json& options)
    : ClsPolicy(options, readNumber(options, "lambda", 1.0, 0.0, kHuge, false)),
      v_(readNumber(options, "v", 1.0, 0.0, kHuge)),
      armWise_(readArmWise(options)),
      sample_(ridge_.theta()) {}

void CombTS::beginRound() {
  if (!armWise_) sample_ = ridge_.sampleTheta(random_, v_);
}

double CombTS::widthMultiplierBound(std::size_t arms) const {
  const double ratio = static_cast<double>(arms < 1 ? 1 : arms) / indexDelta();
  return v_ * std::sqrt(2.0 * deterministic::log(ratio));
}

}  // namespace sublinear
