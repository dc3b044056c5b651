#include "sublinear/cls/residual_scale.hpp"

#include "sublinear/core/state_codec.hpp"

namespace sublinear {

void ResidualScale::save(StateWriter& out) const {
  out.f64(squares_);
  out.f64(rewardSquares_);
  out.f64(weight_);
}

void ResidualScale::load(StateReader& in) {
  const double squares = in.f64();
  const double rewardSquares = in.f64();
  const double weight = in.f64();
  in.check(std::isfinite(squares) && squares >= 0.0 && std::isfinite(rewardSquares) && rewardSquares >= 0.0 && std::isfinite(weight) &&
               weight >= 0.0,
           "the residual scale is out of range");
  squares_ = squares;
  rewardSquares_ = rewardSquares;
  weight_ = weight;
}

}  // namespace sublinear
