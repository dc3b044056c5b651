#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

// Low-rank factorisation of a sparse matrix R ~ U^T V by alternating least squares with weighted
// regularisation (ALS-WR, Zhou et al. 2008): each row factor solves
//   (sum_j v_j v_j^T + lambda n_i I) u_i = sum_j r_ij v_j
// over the n_i observed entries of its row, then each column factor likewise. Every solve is a
// d x d Cholesky factorisation, so an iteration costs O(nnz d^2 + (rows + columns) d^3). Sums run
// in a fixed order with plain loops, so native and wasm builds produce the same bits.
class AlternatingLeastSquares {
 public:
  struct Entry {
    std::uint32_t row;
    std::uint32_t column;
    double value;
  };

  AlternatingLeastSquares(int rank, int iterations, double lambda);

  // Fits the factors; rows and columns without entries get zero factors.
  void fit(const std::vector<Entry>& entries, std::size_t rows, std::size_t columns, Random& random);

  int rank() const { return rank_; }
  // rank x rows and rank x columns: column i is the factor of row / column i.
  const Matrix& rowFactors() const { return rowFactors_; }
  const Matrix& columnFactors() const { return columnFactors_; }
  double predict(std::size_t row, std::size_t column) const;

 private:
  // Solves every factor of `solved` given the factors of `fixed`, over entries grouped by `solved`.
  void solveSide(const std::vector<std::size_t>& offsets, const std::vector<std::uint32_t>& partners,
                 const std::vector<double>& values, const Matrix& fixed, Matrix& solved) const;

  int rank_;
  int iterations_;
  double lambda_;
  Matrix rowFactors_;
  Matrix columnFactors_;
};

}  // namespace sublinear
