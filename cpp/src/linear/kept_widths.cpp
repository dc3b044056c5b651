#include "sublinear/linear/kept_widths.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <unordered_map>

#include "sublinear/core/double_lanes.hpp"

namespace sublinear {

namespace {
// Each call recomputes ceil(n / (kExactSpan d)) widths exactly, so every width is exact again after
// kExactSpan d calls. An exact row costs d^2 (V^-1 x), a corrected one 2 d (its corrections and
// x^T theta): at span 8 the exact slice is 1/16 of the scan's arithmetic. The corrections' rounding
// over 8 d calls stays near 1e-12 of the widths (tests/cpp/elimination_widths_test.cpp checks 1e-9).
constexpr std::size_t kExactSpan = 8;
}  // namespace

void KeptWidths::recompute(const ArmSet& arms, const RidgeRegression& ridge) {
  widths_.assign(arms.size(), 0.0);
  corrections_.resize(dim_, 0);
  nextExact_ = 0;
  valid_ = true;
  std::vector<std::uint32_t> every(arms.size());
  for (std::size_t row = 0; row < every.size(); ++row) every[row] = static_cast<std::uint32_t>(row);
  compute(arms, ridge, every);
}

void KeptWidths::compute(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::uint32_t>& rows) {
  const auto d = static_cast<std::size_t>(dim_);
  if (ridge.observations() == 0) {
    // V^-1 = c I before any observation (RidgeRegression's start, with or without a prior): O(d).
    const double scale = ridge.inverseGram()(0, 0);
    for (const std::uint32_t row : rows) {
      const double* x = arms.rowData(row);
      widths_[row] = scale * lanes::dot(x, x, d);
    }
    return;
  }
  // x^T V^-1 x = x . (V^-1 x), the j-th entry of V^-1 x being column j of V^-1 . x. Rows go in
  // groups: each column of V^-1 (d^2 doubles in all, 4.9 MB at d = 784) is read from memory once a
  // group and stays in cache while the group's rows (kGroup d doubles) are multiplied by it. A width
  // has the same bits whatever its group (dotPair's products equal dot's).
  constexpr std::size_t kGroup = 16;
  const Matrix& inverse = ridge.inverseGram();
  Matrix transformed(dim_, static_cast<Eigen::Index>(kGroup));
  const double* group[kGroup];
  for (std::size_t first = 0; first < rows.size(); first += kGroup) {
    const std::size_t count = std::min(kGroup, rows.size() - first);
    for (std::size_t r = 0; r < count; ++r) group[r] = arms.rowData(rows[first + r]);
    for (Eigen::Index j = 0; j < dim_; ++j) {
      const double* column = inverse.col(j).data();
      std::size_t r = 0;
      for (; r + 2 <= count; r += 2) {
        lanes::dotPair(column, group[r], group[r + 1], d, transformed(j, static_cast<Eigen::Index>(r)), transformed(j, static_cast<Eigen::Index>(r + 1)));
      }
      if (r < count) transformed(j, static_cast<Eigen::Index>(r)) = lanes::dot(column, group[r], d);
    }
    for (std::size_t r = 0; r < count; ++r) widths_[rows[first + r]] = lanes::dot(group[r], transformed.col(static_cast<Eigen::Index>(r)).data(), d);
  }
}

namespace {
// <x, a> and <x, b> in the rows' precision: double rows in double lanes; float rows (the arm set's
// float copy) in float lanes against float copies of the directions (lanes::floatDotPair), the
// products widened to double before they are squared and summed.
inline void pairOf(const double* x, const double* a, const double* b, std::size_t d, double& xa, double& xb) { lanes::dotPair(x, a, b, d, xa, xb); }
inline void pairOf(const float* x, const float* a, const float* b, std::size_t d, double& xa, double& xb) {
  float fa = 0.0f, fb = 0.0f;
  lanes::floatDotPair(x, a, b, d, fa, fb);
  xa = fa;
  xb = fb;
}
}  // namespace

template <class Row>
double KeptWidths::correctRow(const Row* x, const Row* theta, const Row* columns, double& drop) const {
  // The directions in pairs, so that the row is read from memory once for two of them: theta with
  // the first correction (one observation a select, LinUCB's usual case, is a single pass), then
  // the remaining corrections two at a time (an odd last one paired with itself).
  const auto d = static_cast<std::size_t>(dim_);
  const auto pending = static_cast<std::size_t>(corrections_.cols());
  double mean = 0.0;
  drop = 0.0;
  std::size_t next = 0;
  if (theta != nullptr) {
    if (pending == 0) {
      pairOf(x, theta, theta, d, mean, mean);
      return mean;
    }
    double product = 0.0;
    pairOf(x, columns, theta, d, product, mean);
    drop = product * product;
    next = 1;
  }
  for (; next < pending; next += 2) {
    const Row* second = columns + (next + 1 < pending ? next + 1 : next) * d;
    double a = 0.0, b = 0.0;
    pairOf(x, columns + next * d, second, d, a, b);
    drop += a * a;
    if (next + 1 < pending) drop += b * b;
  }
  return mean;
}

template <class Row>
KeptWidths::Directions<Row> KeptWidths::directions(const Vector* theta, std::vector<float>& singles) const {
  if constexpr (std::is_same_v<Row, double>) {
    return {theta != nullptr ? theta->data() : nullptr, corrections_.data()};
  } else {
    // theta (when given), then the corrections, rounded to float once for the whole pass.
    const auto d = static_cast<std::size_t>(dim_);
    const auto columns = static_cast<std::size_t>(corrections_.size());
    singles.resize((theta != nullptr ? d : 0) + columns);
    float* out = singles.data();
    if (theta != nullptr) out = std::transform(theta->data(), theta->data() + d, out, [](double v) { return static_cast<float>(v); });
    std::transform(corrections_.data(), corrections_.data() + columns, out, [](double v) { return static_cast<float>(v); });
    return {theta != nullptr ? singles.data() : nullptr, singles.data() + (theta != nullptr ? d : 0)};
  }
}

void KeptWidths::correctRows(const ArmSet& arms, const std::vector<std::uint32_t>& rows, const Vector* theta, double* means) {
  if (corrections_.cols() == 0 && theta == nullptr) return;
  // The float copy of the rows when the arms keep one: half the bytes to read, twice the lanes.
  if (arms.hasFloatRows()) {
    correctListed<float>(arms, rows, [&](std::size_t row) { return arms.floatRowData(row); }, theta, means);
  } else {
    correctListed<double>(arms, rows, [&](std::size_t row) { return arms.rowData(row); }, theta, means);
  }
  corrections_.resize(dim_, 0);
}

template <class Row>
void KeptWidths::correctRun(const Row* x, std::size_t first, std::size_t count, const Directions<Row>& to, double* means) {
  // Rows first .. first + count - 1, consecutive in memory: a pointer steps through them. One
  // observation a select (the usual case) is a single pair of products, inlined here: at d = 32 a
  // call per row costs a fifth of the row.
  const auto d = static_cast<std::size_t>(dim_);
  double* widths = widths_.data() + first;
  if (corrections_.cols() == 1 && to.theta != nullptr) {
    for (std::size_t i = 0; i < count; ++i, x += d) {
      double product = 0.0;
      pairOf(x, to.columns, to.theta, d, product, means[i]);
      widths[i] -= product * product;
    }
    return;
  }
  for (std::size_t i = 0; i < count; ++i, x += d) {
    double drop = 0.0;
    const double mean = correctRow(x, to.theta, to.columns, drop);
    widths[i] -= drop;
    if (to.theta != nullptr) means[i] = mean;
  }
}

template <class Row, class RowAt>
void KeptWidths::correctListed(const ArmSet& arms, const std::vector<std::uint32_t>& rows, RowAt rowAt, const Vector* theta,
                               double* means) {
  // The listed rows in runs of consecutive rows within one of the arm set's blocks (the elimination
  // policies list the arms in play in row order: long runs until many are eliminated).
  std::vector<float> singles;
  const Directions<Row> to = directions<Row>(theta, singles);
  for (std::size_t i = 0; i < rows.size();) {
    const std::size_t first = rows[i];
    const std::size_t limit = std::min(arms.contiguousRows(first), rows.size() - i);
    std::size_t run = 1;
    while (run < limit && rows[i + run] == first + run) ++run;
    correctRun(rowAt(first), first, run, to, theta != nullptr ? means + i : nullptr);
    i += run;
  }
}

template <class Row, class RowAt>
void KeptWidths::correctEvery(const ArmSet& arms, RowAt rowAt, const Vector& theta, double* means) {
  // One pass over the rows, a block of the arm set at a time: each row's corrections and x^T theta
  // from one read of it.
  std::vector<float> singles;
  const Directions<Row> to = directions<Row>(&theta, singles);
  for (std::size_t first = 0; first < arms.size();) {
    const std::size_t count = arms.contiguousRows(first);
    correctRun(rowAt(first), first, count, to, means + first);
    first += count;
  }
}

void KeptWidths::bringUpToDate(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::uint32_t>& rows,
                               const Vector& theta, double* means) {
  if (!valid_ || widths_.size() != arms.size()) {
    widths_.assign(arms.size(), 0.0);
    corrections_.resize(dim_, 0);
    nextExact_ = 0;
    valid_ = true;
    compute(arms, ridge, rows);
    correctRows(arms, rows, &theta, means);
    return;
  }
  correctRows(arms, rows, &theta, means);
  if (rows.empty()) return;
  const std::size_t span = kExactSpan * static_cast<std::size_t>(dim_);
  const std::size_t slice = (rows.size() + span - 1) / span;
  std::vector<std::uint32_t> refreshed;
  refreshed.reserve(slice);
  std::size_t next = nextExact_ % rows.size();
  for (std::size_t i = 0; i < slice; ++i) {
    refreshed.push_back(rows[next]);
    next = next + 1 == rows.size() ? 0 : next + 1;
  }
  compute(arms, ridge, refreshed);
  nextExact_ = next;
}

void KeptWidths::bringUpToDateEvery(const ArmSet& arms, const RidgeRegression& ridge, const Vector& theta, double* means) {
  const std::size_t n = arms.size();
  if (!valid_ || widths_.size() != n) {
    // The first computation: O(K d) before any observation (compute's shortcut), O(K d^2) once
    // otherwise (a state saved without widths, or updates before the first select).
    recompute(arms, ridge);
  }
  if (arms.hasFloatRows()) {
    correctEvery<float>(arms, [&](std::size_t row) { return arms.floatRowData(row); }, theta, means);
  } else {
    correctEvery<double>(arms, [&](std::size_t row) { return arms.rowData(row); }, theta, means);
  }
  corrections_.resize(dim_, 0);
  if (n == 0) return;
  const std::size_t span = kExactSpan * static_cast<std::size_t>(dim_);
  const std::size_t slice = (n + span - 1) / span;
  std::vector<std::uint32_t> refreshed(slice);
  std::size_t next = nextExact_ % n;
  for (std::size_t i = 0; i < slice; ++i) {
    refreshed[i] = static_cast<std::uint32_t>(next);
    next = next + 1 == n ? 0 : next + 1;
  }
  compute(arms, ridge, refreshed);
  nextExact_ = next;
}

void KeptWidths::remap(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::size_t>& sourceRow,
                       const std::vector<std::uint32_t>& rows) {
  if (!valid_) return;
  std::vector<double> moved(arms.size(), 0.0);
  for (std::size_t row = 0; row < arms.size(); ++row) {
    if (sourceRow[row] != kNew) moved[row] = widths_[sourceRow[row]];
  }
  widths_ = std::move(moved);
  // The corrections reach the arms that stayed; the new ones are computed with today's V^-1.
  std::vector<std::uint32_t> stayed, arrived;
  for (const std::uint32_t row : rows) (sourceRow[row] == kNew ? arrived : stayed).push_back(row);
  correctRows(arms, stayed, nullptr, nullptr);
  compute(arms, ridge, arrived);
}

void KeptWidths::applyCorrections(const ArmSet& arms, std::size_t kept) {
  if (corrections_.cols() == 0) return;
  std::vector<std::uint32_t> rows(kept);
  for (std::size_t row = 0; row < kept; ++row) rows[row] = static_cast<std::uint32_t>(row);
  correctRows(arms, rows, nullptr, nullptr);
}

void KeptWidths::observe(const RidgeRegression& ridge) {
  if (!valid_) return;
  const Eigen::Index column = corrections_.cols();
  corrections_.conservativeResize(dim_, column + 1);
  corrections_.col(column) = ridge.lastInverseTimesX() / std::sqrt(ridge.lastDenominator());
}

void KeptWidths::appendRows(const ArmSet& arms, const RidgeRegression& ridge, std::size_t count) {
  if (!valid_) return;
  // The rows that have widths: the new rows are in `arms` already, not yet here.
  applyCorrections(arms, widths_.size());
  const std::size_t first = arms.size() - count;
  widths_.resize(arms.size());
  std::vector<std::uint32_t> added(count);
  for (std::size_t i = 0; i < count; ++i) added[i] = static_cast<std::uint32_t>(first + i);
  compute(arms, ridge, added);
}

void KeptWidths::followRemoval(const ArmSet& arms, const Id* ids, std::size_t count) {
  if (!valid_) return;
  // Simulated, since the arms are still in place.
  std::unordered_map<Id, std::size_t> movedRow;
  std::unordered_map<std::size_t, Id> movedId;
  const auto rowOf = [&](Id id) {
    const auto found = movedRow.find(id);
    return found == movedRow.end() ? arms.rowOf(id) : found->second;
  };
  const auto idAt = [&](std::size_t row) {
    const auto found = movedId.find(row);
    return found == movedId.end() ? arms.idAt(row) : found->second;
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

void KeptWidths::save(StateWriter& out) const {
  out.u8(valid_ ? 1 : 0);
  if (!valid_) return;
  out.u64(nextExact_);
  out.f64s(widths_.data(), widths_.size());
  out.u64(static_cast<std::uint64_t>(corrections_.cols()));
  out.matrix(corrections_);
}

void KeptWidths::load(StateReader& in, std::size_t rows) {
  valid_ = in.u8() != 0;
  if (!valid_) return;
  // Any position is valid: it only decides which rows are next recomputed exactly.
  nextExact_ = in.u64();
  widths_ = in.f64s();
  in.check(widths_.size() == rows, "one width per arm");
  for (const double w : widths_) in.check(std::isfinite(w), "a width is not finite");
  // Corrections pile up between selects (a slate's updates, or updates without selects): bounded
  // by what the payload holds, d doubles each.
  const std::uint64_t columns = in.u64();
  in.check(columns <= in.remaining() / (sizeof(double) * static_cast<std::size_t>(dim_)), "more corrections than the state holds");
  corrections_ = in.matrix(dim_, static_cast<Eigen::Index>(columns));
  for (Eigen::Index i = 0; i < corrections_.size(); ++i) in.check(std::isfinite(corrections_.data()[i]), "a correction is not finite");
}

}  // namespace sublinear
