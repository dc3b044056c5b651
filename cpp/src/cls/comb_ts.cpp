#include "sublinear/cls/comb_ts.hpp"

#include <cmath>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {

bool readArmWise(const Json& options) {
  return readStringOption(option_groups::combTs(), options, "randomization") == "arm";
}
}  // namespace

CombTS::CombTS(const Json& options)
    : ClsPolicy(options, readOption(option_groups::clsRidge(), options, "lambda")),
      v_(readOption(option_groups::combTs(), options, "v")),
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
