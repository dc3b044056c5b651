#include "sublinear/linear/lin_ucb.hpp"

#include <cmath>

namespace sublinear {

LinUCB::LinUCB(int dim, const Json& options) : RidgePolicy(dim, options, dim) {}

Id LinUCB::chooseArm() {
  const double radius = theoreticalRadius() ? adaptiveRadius(delta()) : practicalRadius(confidenceMultiplier());
  lastRadius_ = radius;
  const auto features = arms_.matrix();
  // One pass in blocks of rows: means X theta and widths diag(X V^-1 X^T) without a K x K product.
  constexpr Eigen::Index kBlock = 512;
  const Matrix& inverseGram = ridge_.inverseGram();
  const Vector& theta = ridge_.theta();
  double bestScore = -INFINITY;
  Id bestArm = arms_.idAt(0);
  for (Eigen::Index start = 0; start < features.rows(); start += kBlock) {
    const Eigen::Index rows = std::min(kBlock, features.rows() - start);
    const auto block = features.middleRows(start, rows);
    const Vector means = block * theta;
    const Matrix transformed = block * inverseGram;
    const Vector widths = transformed.cwiseProduct(block).rowwise().sum();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const double score = means[i] + radius * std::sqrt(std::max(0.0, widths[i]));
      const Id id = arms_.idAt(static_cast<std::size_t>(start + i));
      if (score > bestScore || (score == bestScore && id < bestArm)) {
        bestScore = score;
        bestArm = id;
      }
    }
  }
  countInnerProducts(arms_.size());
  return bestArm;
}

Json LinUCB::extraStats() const { return Json{{"radius", lastRadius_}}; }

void LinUCB::saveFields(StateWriter& out) const { out.f64(lastRadius_); }

void LinUCB::loadFields(StateReader& in) {
  lastRadius_ = in.f64();
  in.check(std::isfinite(lastRadius_) && lastRadius_ >= 0.0, "radius is not a finite non-negative number");
}

}  // namespace sublinear
