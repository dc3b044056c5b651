#include "sublinear/linear/kept_widths.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace sublinear {

namespace {
// Rows are processed in blocks; a block never straddles two of the arm set's pieces (kBlock divides
// RowStore::kBlockRows).
constexpr std::size_t kBlock = 512;
// Each call recomputes ceil(n / (kExactSpan d)) widths exactly, so every width is exact again after
// kExactSpan d calls. The exact rows cost d^2 each in Eigen's scalar product (about 0.3 GMAC/s):
// at span 1, 70% of LinUCB's select at 10^4 x 128; the corrections' rounding over 8 d calls stays
// near 1e-12 of the widths (tests/cpp/elimination_widths_test.cpp checks 1e-9).
constexpr std::size_t kExactSpan = 8;
static_assert(RowStore<double>::kBlockRows % kBlock == 0, "a block of rows must lie in one piece of the arm set");
}  // namespace

void KeptWidths::recompute(const ArmSet& arms, const RidgeRegression& ridge) {
  widths_.assign(arms.size(), 0.0);
  corrections_.resize(dim_, 0);
  nextExact_ = 0;
  valid_ = true;
  for (std::size_t start = 0; start < arms.size(); start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, arms.size() - start));
    const auto block = arms.rows(start, static_cast<std::size_t>(rows));
    const Matrix transformed = block * ridge.inverseGram();
    Eigen::Map<Vector>(widths_.data() + start, rows) = transformed.cwiseProduct(block).rowwise().sum();
  }
}

void KeptWidths::compute(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::uint32_t>& rows) {
  if (ridge.observations() == 0) {
    // V^-1 = c I before any observation (RidgeRegression's start, with or without a prior): O(d).
    const double scale = ridge.inverseGram()(0, 0);
    for (const std::uint32_t row : rows) widths_[row] = scale * Eigen::Map<const Vector>(arms.rowData(row), dim_).squaredNorm();
    return;
  }
  // Gathered in blocks and multiplied by V^-1 at once: V^-1 (d^2 doubles, 4.9 MB at d = 784) is read
  // once a block instead of once a row.
  Matrix gathered;
  for (std::size_t first = 0; first < rows.size(); first += kBlock) {
    const auto count = static_cast<Eigen::Index>(std::min(kBlock, rows.size() - first));
    gathered.resize(count, dim_);
    for (Eigen::Index i = 0; i < count; ++i) gathered.row(i) = Eigen::Map<const Vector>(arms.rowData(rows[first + static_cast<std::size_t>(i)]), dim_);
    const Matrix transformed = gathered * ridge.inverseGram();
    const Vector values = transformed.cwiseProduct(gathered).rowwise().sum();
    for (Eigen::Index i = 0; i < count; ++i) widths_[rows[first + static_cast<std::size_t>(i)]] = values[i];
  }
}

void KeptWidths::correctRows(const ArmSet& arms, const std::vector<std::uint32_t>& rows, const Vector* theta, double* means) {
  const Eigen::Index pending = corrections_.cols();
  if (pending == 0 && theta == nullptr) return;
  // theta (when given) beside the corrections, so that each row is read once for both.
  Matrix directions(dim_, pending + (theta != nullptr ? 1 : 0));
  directions.leftCols(pending) = corrections_;
  if (theta != nullptr) directions.col(pending) = *theta;
  Vector products(directions.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    products.noalias() = directions.transpose() * Eigen::Map<const Vector>(arms.rowData(rows[i]), dim_);
    widths_[rows[i]] -= products.head(pending).squaredNorm();
    if (theta != nullptr) means[i] = products[pending];
  }
  corrections_.resize(dim_, 0);
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
    widths_.assign(n, 0.0);
    corrections_.resize(dim_, 0);
    nextExact_ = 0;
    valid_ = true;
    if (ridge.observations() == 0) {
      std::vector<std::uint32_t> every(n);
      for (std::size_t row = 0; row < n; ++row) every[row] = static_cast<std::uint32_t>(row);
      compute(arms, ridge, every);
    } else {
      recompute(arms, ridge);
    }
  }
  // One column of corrections (one update a select) is a matrix-vector product like the means'.
  const Eigen::Index pending = corrections_.cols();
  for (std::size_t start = 0; start < n; start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, n - start));
    const auto block = arms.rows(start, static_cast<std::size_t>(rows));
    Eigen::Map<Vector> widths(widths_.data() + start, rows);
    if (pending == 1) {
      widths -= (block * corrections_.col(0)).cwiseAbs2();
    } else if (pending > 1) {
      widths -= (block * corrections_).cwiseAbs2().rowwise().sum();
    }
    Eigen::Map<Vector>(means + start, rows).noalias() = block * theta;
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
  for (std::size_t start = 0; start < kept; start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, kept - start));
    const Matrix projected = arms.rows(start, static_cast<std::size_t>(rows)) * corrections_;
    Eigen::Map<Vector>(widths_.data() + start, rows) -= projected.cwiseAbs2().rowwise().sum();
  }
  corrections_.resize(dim_, 0);
}

void KeptWidths::observe(const RidgeRegression& ridge, const Vector& x) {
  if (!valid_) return;
  const Vector u = ridge.inverseGram() * x;
  const Eigen::Index column = corrections_.cols();
  corrections_.conservativeResize(dim_, column + 1);
  corrections_.col(column) = u / std::sqrt(1.0 + x.dot(u));
}

void KeptWidths::appendRows(const ArmSet& arms, const RidgeRegression& ridge, std::size_t count) {
  if (!valid_) return;
  // The rows that have widths: the new rows are in `arms` already, not yet here.
  applyCorrections(arms, widths_.size());
  const std::size_t first = arms.size() - count;
  widths_.resize(arms.size());
  for (std::size_t row = first; row < arms.size(); ++row) {
    const double norm = ridge.inverseNorm(Eigen::Map<const Vector>(arms.rowData(row), dim_));
    widths_[row] = norm * norm;
  }
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
