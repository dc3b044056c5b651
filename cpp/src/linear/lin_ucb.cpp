#include "sublinear/linear/lin_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <utility>
#include <vector>

namespace sublinear {

LinUCB::LinUCB(int dim, const Json& options) : RidgePolicy(dim, options, dim), widths_(dim) {}

LinUCB::LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options)
    : RidgePolicy(catalogue, options, catalogue ? catalogue->dim() : 1), widths_(catalogue ? catalogue->dim() : 1) {}

Id LinUCB::chooseArm() { return chooseArms(1, ArmFilter{}, Eligibility()).front(); }

namespace {
// Rows are scored in blocks; a block never straddles two of the arm set's pieces (kBlock divides
// RowStore::kBlockRows).
constexpr std::size_t kBlock = 512;
static_assert(RowStore<double>::kBlockRows % kBlock == 0, "a block of rows must lie in one piece of the arm set");
}  // namespace

void LinUCB::beforeObservation(const Vector& x) {
  if (keepsWidths()) widths_.observe(ridge_, x);
}

void LinUCB::onAddArms(const Id* /*ids*/, std::size_t count) {
  if (keepsWidths()) widths_.appendRows(arms_, ridge_, count);
}

void LinUCB::onRemoveArms(const Id* ids, std::size_t count) {
  if (keepsWidths()) widths_.followRemoval(arms_, ids, count);
}

std::vector<Id> LinUCB::chooseArms(std::size_t count, const ArmFilter& /*filter*/, const Eligibility& eligible) {
  const double radius = theoreticalRadius() ? adaptiveRadius(delta()) : practicalRadius(confidenceMultiplier());
  lastRadius_ = radius;
  if (keepsWidths()) {
    widths_.bringUpToDate(arms_, ridge_);
  }
  // The `count` largest indices, ties to the smaller id; the heap's top is the worst one kept.
  using Scored = std::pair<double, Id>;
  const auto better = [](const Scored& a, const Scored& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::priority_queue<Scored, std::vector<Scored>, decltype(better)> kept(better);
  // One pass in blocks of rows: means X theta, and over a catalogue the widths diag(X V^-1 X^T)
  // without a K x K product.
  const Matrix& inverseGram = ridge_.inverseGram();
  const Vector& theta = ridge_.theta();
  Vector direct;
  for (std::size_t start = 0; start < arms_.size(); start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, arms_.size() - start));
    const auto block = arms_.rows(start, static_cast<std::size_t>(rows));
    const Vector means = block * theta;
    if (!keepsWidths()) {
      const Matrix transformed = block * inverseGram;
      direct = transformed.cwiseProduct(block).rowwise().sum();
    }
    const double* widths = keepsWidths() ? widths_.data() + start : direct.data();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const std::size_t row = start + static_cast<std::size_t>(i);
      if (!arms_.admits(eligible, row)) continue;
      const Scored scored{means[i] + radius * std::sqrt(std::max(0.0, widths[i])), arms_.idAt(row)};
      if (kept.size() < count) {
        kept.push(scored);
      } else if (better(scored, kept.top())) {
        kept.pop();
        kept.push(scored);
      }
    }
  }
  countInnerProducts(arms_.size());
  std::vector<Id> chosen(kept.size());
  for (std::size_t i = chosen.size(); i-- > 0; kept.pop()) chosen[i] = kept.top().second;
  return chosen;
}

Json LinUCB::extraStats() const { return Json{{"radius", lastRadius_}}; }

void LinUCB::saveFields(StateWriter& out) const {
  out.f64(lastRadius_);
  widths_.save(out);
}

void LinUCB::loadFields(StateReader& in) {
  lastRadius_ = in.f64();
  in.check(std::isfinite(lastRadius_) && lastRadius_ >= 0.0, "radius is not a finite non-negative number");
  widths_.load(in, arms_.size());
  in.check(!widths_.valid() || keepsWidths(), "widths are kept only over the policy's own arms");
}

}  // namespace sublinear
