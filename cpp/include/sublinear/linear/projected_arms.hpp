#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/core/options.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/arm_subspace.hpp"

namespace sublinear {

// A policy's own arms in their principal subspace, for the policies that score every arm's row
// (LinUCB, the elimination policies): the basis B (ArmSubspace) and the projected rows z = B^T x,
// with the arms' ids, labels and row order, so that the policy scores them as it would score arms of
// modelDim features. Whoever changes the arms tells it (append, remove); refit fits the basis again
// (when due: the first batch, or the arms doubled or lost half) and projects every arm afresh. Only
// the basis is saved: the rows are made again from it and the arms, with the same bits.
// (Over a catalogue the catalogue keeps one such set for all its users: Catalogue::projectedArms.)
class ProjectedArms {
 public:
  // floatRows: the rows keep the float copy the kept widths' scan reads (ArmSet::keepFloatRows).
  ProjectedArms(int dim, int modelDim, double energy, std::uint64_t seed, bool floatRows);

  const ArmSet& rows() const { return rows_; }
  const ArmSubspace& basis() const { return subspace_; }
  bool due(std::size_t armCount) const { return subspace_.due(armCount); }
  // Fits the basis to `arms` and projects every arm afresh; returns M = B_new^T B_old (a model in the
  // old coordinates moves by it: LinearModel::move).
  Matrix refit(const ArmSet& arms);
  // The last `count` arms of `arms`, just added, projected and appended.
  void append(const ArmSet& arms, std::size_t count);
  // The arms leave (ArmSet::remove's row moves, as the arms' own).
  void remove(const Id* ids, std::size_t count);
  Vector project(const double* features) const { return subspace_.project(features); }
  // The projections by `basis` of arms' rows first .. first + count - 1, appended to `into` with
  // their ids and labels (also the catalogue's projected rows: Catalogue::projectedArms).
  static void appendProjections(const ArmSubspace& basis, const ArmSet& arms, std::size_t first, std::size_t count, ArmSet& into);
  Vector lift(const Vector& model) const { return subspace_.lift(model); }

  // stats().subspace: the basis's, and projectedBytes (the rows, modelDim x 12 bytes an arm).
  Json stats() const;
  void save(StateWriter& out) const { subspace_.save(out); }
  // The basis, then the rows of `arms` (already loaded) projected by it.
  void load(StateReader& in, const ArmSet& arms);

 private:

  ArmSubspace subspace_;
  ArmSet rows_;
  bool floatRows_;
};

}  // namespace sublinear
