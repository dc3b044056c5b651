#include "sublinear/linear/lin_ucb.hpp"

#include <algorithm>
#include <cmath>

namespace sublinear {

LinUCB::LinUCB(int dim, const Json& options) : RidgePolicy(dim, options, dim) {}

LinUCB::LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options)
    : RidgePolicy(catalogue, options, catalogue ? catalogue->dim() : 1) {}

Id LinUCB::chooseArm() {
  const double radius = theoreticalRadius() ? adaptiveRadius(delta()) : practicalRadius(confidenceMultiplier());
  lastRadius_ = radius;
  // One pass in blocks of rows: means X theta and widths diag(X V^-1 X^T) without a K x K product.
  // A block never straddles two of the arm set's pieces (kBlock divides RowStore::kBlockRows).
  constexpr std::size_t kBlock = 512;
  static_assert(RowStore<double>::kBlockRows % kBlock == 0, "a block of rows must lie in one piece of the arm set");
  const Matrix& inverseGram = ridge_.inverseGram();
  const Vector& theta = ridge_.theta();
  double bestScore = -INFINITY;
  Id bestArm = arms_.idAt(0);
  for (std::size_t start = 0; start < arms_.size(); start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, arms_.size() - start));
    const auto block = arms_.rows(start, static_cast<std::size_t>(rows));
    const Vector means = block * theta;
    const Matrix transformed = block * inverseGram;
    const Vector widths = transformed.cwiseProduct(block).rowwise().sum();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const double score = means[i] + radius * std::sqrt(std::max(0.0, widths[i]));
      const Id id = arms_.idAt(start + static_cast<std::size_t>(i));
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
