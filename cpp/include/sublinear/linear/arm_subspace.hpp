#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/core/options.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"

namespace sublinear {

// Where the arms live: an orthonormal basis B (d x modelDim) of the arms' principal directions, so
// that a Thompson policy learns theta in modelDim dimensions (z = B^T x) and queries its unchanged
// index with B theta~. Linear TS over d dimensions spreads its Gaussian perturbation over every
// direction, and directions that the arms hold little of stay as uncertain as the prior made them
// (V = lambda I there): on real embeddings (Fashion-MNIST's 784 pixels) their sum keeps the sampled
// scores noisy for the whole run. Keeping only the directions that carry a fraction `energy` of
// the arms' sum of squared norms removes that noise at the price of the small residual x - B B^T x
// the model cannot describe, and makes the model modelDim^2 doubles instead of d^2.
//
// The basis comes from the uncentred second moment of the arms (directions, not variance about the
// mean: a linear reward sees the mean too), by randomized subspace iteration (Halko, Martinsson and
// Tropp, "Finding structure with randomness", arXiv:0909.4061) over an evenly strided sample of at
// most kSampleRows arms. Columns beyond the effective rank are zero: the model keeps its dimension
// (its state is allocated once) and those coordinates never reach a score.
class ArmSubspace {
 public:
  static constexpr std::size_t kSampleRows = 2048;
  // Oversampling and power iterations of the randomized range finder.
  static constexpr int kOversampling = 8;
  static constexpr int kPowerIterations = 1;
  // Directions kept whatever the energy says (fewer only when the arms hold fewer): on Fashion-MNIST
  // two directions hold 71% of the energy, and a model of two learned nothing more after the first
  // quarter (bench/results/subspace.md).
  static constexpr int kMinimumRank = 8;

  ArmSubspace(int dim, int modelDim, double energy, std::uint64_t seed);

  int dim() const { return static_cast<int>(basis_.rows()); }
  int modelDim() const { return static_cast<int>(basis_.cols()); }
  bool fitted() const { return fits_ > 0; }
  std::uint64_t fits() const { return fits_; }
  const Matrix& basis() const { return basis_; }
  // The arms changed enough since the last fit to fit again: never fitted, doubled, or lost half.
  bool due(std::size_t armCount) const;
  void noteRemoved(std::size_t count) { removedSinceFit_ += count; }
  // Fits the basis to `arms` (at least one arm) and returns M = B_new^T B_old, with which a model
  // fitted in the old coordinates moves to the new ones (z_new ~ M z_old for arms in the old span).
  Matrix fit(const ArmSet& arms);

  // B^T x for d features.
  Vector project(const double* features) const;
  // B z.
  Vector lift(const Vector& model) const { return basis_ * model; }

  // stats().subspace: rank (non-zero columns), energy (the fraction of the sample's energy they
  // hold), fits.
  Json stats() const;
  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  Matrix basis_;
  double energy_;
  std::uint64_t seed_;
  int rank_ = 0;
  double capturedEnergy_ = 0.0;
  std::uint64_t fits_ = 0;
  std::uint64_t sizeAtFit_ = 0;
  std::uint64_t removedSinceFit_ = 0;
};

}  // namespace sublinear
