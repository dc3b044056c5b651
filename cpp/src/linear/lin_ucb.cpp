#include "sublinear/linear/lin_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sublinear {

LinUCB::LinUCB(int dim, const Json& options) : RidgePolicy(dim, options, dim) {}

LinUCB::LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options)
    : RidgePolicy(catalogue, options, catalogue ? catalogue->dim() : 1) {}

Id LinUCB::chooseArm() { return chooseArms(1, ArmFilter{}, Eligibility()).front(); }

namespace {
// Rows are scored in blocks; a block never straddles two of the arm set's pieces (kBlock divides
// RowStore::kBlockRows).
constexpr std::size_t kBlock = 512;
static_assert(RowStore<double>::kBlockRows % kBlock == 0, "a block of rows must lie in one piece of the arm set");
}  // namespace

void LinUCB::recomputeWidths() {
  const Matrix& inverseGram = ridge_.inverseGram();
  widths_.assign(arms_.size(), 0.0);
  for (std::size_t start = 0; start < arms_.size(); start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, arms_.size() - start));
    const auto block = arms_.rows(start, static_cast<std::size_t>(rows));
    const Matrix transformed = block * inverseGram;
    Eigen::Map<Vector>(widths_.data() + start, rows) = transformed.cwiseProduct(block).rowwise().sum();
  }
  corrections_.resize(dim(), 0);
  correctionsSinceExact_ = 0;
  widthsValid_ = true;
}

void LinUCB::applyCorrections() {
  if (corrections_.cols() == 0) return;
  // The rows that have widths: during onAddArms the new rows are in arms_ already, not yet here.
  const std::size_t kept = widths_.size();
  for (std::size_t start = 0; start < kept; start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, kept - start));
    const Matrix projected = arms_.rows(start, static_cast<std::size_t>(rows)) * corrections_;
    Eigen::Map<Vector>(widths_.data() + start, rows) -= projected.cwiseAbs2().rowwise().sum();
  }
  correctionsSinceExact_ += static_cast<std::size_t>(corrections_.cols());
  corrections_.resize(dim(), 0);
}

void LinUCB::beforeObservation(const Vector& x) {
  if (!keepsWidths() || !widthsValid_) return;
  const Vector u = ridge_.inverseGram() * x;
  const Eigen::Index column = corrections_.cols();
  corrections_.conservativeResize(dim(), column + 1);
  corrections_.col(column) = u / std::sqrt(1.0 + x.dot(u));
}

void LinUCB::onAddArms(const Id* /*ids*/, std::size_t count) {
  if (!keepsWidths() || !widthsValid_) return;
  // The new rows (appended last) are measured with today's V^-1: the old rows catch up first.
  applyCorrections();
  const std::size_t first = arms_.size() - count;
  widths_.resize(arms_.size());
  for (std::size_t row = first; row < arms_.size(); ++row) {
    const double norm = ridge_.inverseNorm(arms_.feature(arms_.idAt(row)));
    widths_[row] = norm * norm;
  }
}

void LinUCB::onRemoveArms(const Id* ids, std::size_t count) {
  if (!keepsWidths() || !widthsValid_) return;
  // ArmSet::remove moves the last row into each hole in turn; the widths follow the same moves
  // (simulated here, since the arms are still in place).
  std::unordered_map<Id, std::size_t> movedRow;
  std::unordered_map<std::size_t, Id> movedId;
  const auto rowOf = [&](Id id) {
    const auto found = movedRow.find(id);
    return found == movedRow.end() ? arms_.rowOf(id) : found->second;
  };
  const auto idAt = [&](std::size_t row) {
    const auto found = movedId.find(row);
    return found == movedId.end() ? arms_.idAt(row) : found->second;
  };
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = rowOf(ids[i]);
    const std::size_t last = widths_.size() - 1;
    if (row != last) {
      const Id lastId = idAt(last);
      widths_[row] = widths_[last];
      movedId[row] = lastId;
      movedRow[lastId] = row;
    }
    widths_.pop_back();
  }
}

std::vector<Id> LinUCB::chooseArms(std::size_t count, const ArmFilter& /*filter*/, const Eligibility& eligible) {
  const double radius = theoreticalRadius() ? adaptiveRadius(delta()) : practicalRadius(confidenceMultiplier());
  lastRadius_ = radius;
  if (keepsWidths()) {
    if (!widthsValid_ || correctionsSinceExact_ + static_cast<std::size_t>(corrections_.cols()) >= static_cast<std::size_t>(dim())) {
      recomputeWidths();
    } else {
      applyCorrections();
    }
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
  out.u8(widthsValid_ ? 1 : 0);
  if (!widthsValid_) return;
  out.u64(correctionsSinceExact_);
  out.f64s(widths_.data(), widths_.size());
  out.u64(static_cast<std::uint64_t>(corrections_.cols()));
  out.matrix(corrections_);
}

void LinUCB::loadFields(StateReader& in) {
  lastRadius_ = in.f64();
  in.check(std::isfinite(lastRadius_) && lastRadius_ >= 0.0, "radius is not a finite non-negative number");
  widthsValid_ = in.u8() != 0;
  in.check(!widthsValid_ || keepsWidths(), "widths are kept only over the policy's own arms");
  if (!widthsValid_) return;
  // Any count is valid: it only decides when the next select recomputes the widths exactly.
  correctionsSinceExact_ = in.u64();
  widths_ = in.f64s();
  in.check(widths_.size() == arms_.size(), "one width per arm");
  for (const double w : widths_) in.check(std::isfinite(w), "a width is not finite");
  // Corrections pile up between selects (a slate's updates, or updates without selects): bounded
  // by what the payload holds, d doubles each.
  const std::uint64_t columns = in.u64();
  in.check(columns <= in.remaining() / (sizeof(double) * static_cast<std::size_t>(dim())), "more corrections than the state holds");
  corrections_ = in.matrix(dim(), static_cast<Eigen::Index>(columns));
  for (Eigen::Index i = 0; i < corrections_.size(); ++i) in.check(std::isfinite(corrections_.data()[i]), "a correction is not finite");
}

}  // namespace sublinear
