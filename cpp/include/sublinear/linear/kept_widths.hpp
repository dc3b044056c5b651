#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"

namespace sublinear {

// Per-arm widths w_a = ||x_a||^2_{V^-1} kept at scan cost, for the policies that need every arm's
// confidence width at every step (LinUCB, and the elimination policies at high d or over a
// catalogue). An observation x turns V^-1 into V^-1 - c c^T with c = V^-1 x / sqrt(1 + x^T V^-1 x)
// (Sherman-Morrison), so every w_a drops by (x_a^T c)^2: bringUpToDate applies the pending
// corrections in one pass over the rows, O(K d) per observation instead of the O(K d^2) of
// recomputing every width. Against the rounding the corrections accumulate, ceil(n / (8 dim)) of
// the n rows are recomputed exactly at each call, round the rows, so that no call pays O(K d^2) (30 s
// at 60,000 x 784 in wasm) and every width is exact again after 8 dim calls. A first computation before
// any observation, when V^-1 is (lambda + prior weight)^-1 I, is ||x||^2 (lambda + weight)^-1:
// O(K d), so a new user over a large catalogue starts at once.
//
// Over a subset of rows (the elimination policies' arms in play; the other rows' widths go stale and
// are computed afresh when needed) the corrections and the recomputed slices reach only those rows.
//
// When the arm set keeps a float copy of its rows (ArmSet::keepFloatRows, which the policies that
// keep widths ask for), the corrections and the means read it, and multiply it in float lanes by
// float copies of theta and of the corrections (lanes::floatDotPair: four lanes a SIMD operation
// where doubles take two); the products are widened to double, and the widths are kept and
// recomputed in double. The widths then carry single-precision rounding (2^-24 an operation, of the
// order of the rows' own rounding; a relative error of a few 1e-6 at most between two exact
// recomputations, which read the doubles). At d = 32 and 10^5 arms the scan was most of a select and
// its double lanes made LinUCB x5 of Linear TS, whose scan is one float dot product an arm.
//
// Rows are the arm set's rows: whoever changes the arms tells the widths (appendRows,
// followRemoval, or remap when the arms changed without notice, as a catalogue's do: kept widths
// move with their arms and catch up, new arms' widths are computed directly).
class KeptWidths {
 public:
  explicit KeptWidths(int dim) : dim_(dim), corrections_(dim, 0) {}

  bool valid() const { return valid_; }
  // Forgets every width: the rows or the model changed coordinates (a catalogue's refit), so the
  // next bringUpToDate computes them afresh.
  void invalidate() {
    valid_ = false;
    widths_.clear();
    corrections_.resize(dim_, 0);
    nextExact_ = 0;
  }
  // V^-1 was multiplied by `factor` (a discount, Forgetting): every width w = x^T V^-1 x by it, and
  // the pending corrections c, whose squares it subtracts, by its root. O(K + d n).
  void scale(double factor) {
    if (!valid_) return;
    for (double& width : widths_) width *= factor;
    corrections_ *= std::sqrt(factor);
  }
  std::size_t size() const { return widths_.size(); }
  // The widths (meaningful after bringUpToDate, until the next observation or change of the arms).
  const double* data() const { return widths_.data(); }
  double operator[](std::size_t row) const { return widths_[row]; }

  // Called just after the regression took an observation x (LinearModel::Listener's afterObservation): the
  // correction c = u / sqrt(1 + x^T u) from its u = V^-1 x (the old V^-1), which the regression
  // computed for its own update; nothing to record before the first computation.
  void observe(const RidgeRegression& ridge);
  // The last `count` rows of `arms` were just appended: the others catch up, the new ones are
  // computed directly with today's V^-1.
  void appendRows(const ArmSet& arms, const RidgeRegression& ridge, std::size_t count);
  // The arms `ids` are about to leave `arms` (ArmSet::remove moves the last row into each hole in
  // turn): the widths follow the same moves.
  void followRemoval(const ArmSet& arms, const Id* ids, std::size_t count);
  // For remap: the row each arm now at a row held before, or kNew for an arm that is new.
  static constexpr std::size_t kNew = static_cast<std::size_t>(-1);
  // Rows of `arms` stamped after `seenStamp` (a catalogue changed their features: ArmSet::stampOf)
  // become kNew in sourceRow: what was kept for them belongs to their old features.
  static void renewChangedRows(const ArmSet& arms, std::uint64_t seenStamp, std::vector<std::size_t>& sourceRow) {
    if (!arms.hasStamps()) return;
    for (std::size_t row = 0; row < sourceRow.size(); ++row) {
      if (arms.stampOf(row) > seenStamp) sourceRow[row] = kNew;
    }
  }

  // The subset forms (rows: indices into the arm set's rows). bringUpToDate: the rows current (their
  // first computation, or the pending corrections and a slice of exact recomputations). remap: as
  // above, the corrections reaching only `rows` among the arms that stayed. compute: the rows
  // recomputed directly (arms back in play after their widths went stale).
  // It also writes x^T theta for each listed row into means[i], in the same read of the row.
  void bringUpToDate(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::uint32_t>& rows, const Vector& theta,
                     double* means);
  // The subset form over every row (LinUCB): the pending corrections and x^T theta (into
  // means[row]) from one read of each row, then a slice of the rows recomputed exactly, round the
  // arms.
  void bringUpToDateEvery(const ArmSet& arms, const RidgeRegression& ridge, const Vector& theta, double* means);
  void remap(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::size_t>& sourceRow,
             const std::vector<std::uint32_t>& rows);
  void compute(const ArmSet& arms, const RidgeRegression& ridge, const std::vector<std::uint32_t>& rows);

  // The flag, then (when valid) the corrections since the exact computation, the widths and the
  // pending corrections: a restored policy continues with the same bits.
  void save(StateWriter& out) const;
  // `rows`: the widths the state must hold (the arm set's size).
  void load(StateReader& in, std::size_t rows);

  // The widths alone (8 bytes an arm), without the pending corrections (d doubles each).
  std::size_t perArmBytes() const { return widths_.capacity() * sizeof(double); }
  std::size_t bytes() const { return widths_.capacity() * sizeof(double) + static_cast<std::size_t>(corrections_.size()) * sizeof(double); }

 private:
  void recompute(const ArmSet& arms, const RidgeRegression& ridge);
  // The pending corrections applied to the first `rows` widths.
  void applyCorrections(const ArmSet& arms, std::size_t rows);
  // The pending corrections applied to the listed rows only (the others' widths go stale), and
  // with theta given, means[i] = x^T theta of each in the same read.
  void correctRows(const ArmSet& arms, const std::vector<std::uint32_t>& rows, const Vector* theta, double* means);
  // theta and the pending corrections as a pass reads them: the doubles themselves for double rows,
  // float copies (into `singles`) for float rows.
  template <class Row>
  struct Directions {
    const Row* theta;    // null when the pass computes no means
    const Row* columns;  // the pending corrections, d entries each
  };
  template <class Row>
  Directions<Row> directions(const Vector* theta, std::vector<float>& singles) const;
  // The pending corrections (and means) of the listed rows, or of every row, reading each row
  // through rowAt (the doubles, or the arm set's float copy); the corrections stay pending.
  template <class Row, class RowAt>
  void correctListed(const ArmSet& arms, const std::vector<std::uint32_t>& rows, RowAt rowAt, const Vector* theta, double* means);
  template <class Row, class RowAt>
  void correctEvery(const ArmSet& arms, RowAt rowAt, const Vector& theta, double* means);
  // `count` consecutive rows from row `first`, x pointing at the first one's entries; means (when
  // the directions hold theta) receives their x^T theta.
  template <class Row>
  void correctRun(const Row* x, std::size_t first, std::size_t count, const Directions<Row>& to, double* means);
  // One row x: the sum of its pending corrections' squares into `drop`, and x^T theta returned
  // (theta may be null: 0 returned), from one read of the row, in the row's precision.
  template <class Row>
  double correctRow(const Row* x, const Row* theta, const Row* columns, double& drop) const;

  int dim_;
  bool valid_ = false;
  std::vector<double> widths_;
  // Pending Sherman-Morrison vectors c, one column each, and the position (among the rows, or the
  // subset) of the next row to recompute exactly.
  Matrix corrections_;
  std::size_t nextExact_ = 0;
};

}  // namespace sublinear
