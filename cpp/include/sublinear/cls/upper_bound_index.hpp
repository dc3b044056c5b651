#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/cls/arm_features.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// A MIPS index that returns the arms of largest UPPER BOUND on a CLS score
//     score(x) = c^T x + m ||x||_{A}   (A = V^-1, 0 <= m' <= m for every arm),
// so that a shortlist from it can be scored exactly. The square root is what keeps the score from
// being an inner product; for any s > 0, sqrt(w) <= w / (2 s) + s / 2 (equality at w = s^2), so
//     score(x) <= c^T x + m (x^T A x) / (2 s) + m s / 2 = < lift(x), query > + m s / 2
// with lift(x) = (x, vec(x x^T)) as in Yang et al.'s (arXiv:2103.02729) Sub-Elim: vec packs the
// upper triangle with the off-diagonal entries scaled by sqrt(2), d + d(d+1)/2 floats. The bound is
// tight for arms whose width is s, so s is set to the typical width of recent selections. Without a
// width term (round-wise TS, Greedy) the lift is just x.
class UpperBoundIndex {
 public:
  // `spec` is the MIPS index spec ({ type, ...options }); `lifted` says whether widths are used.
  UpperBoundIndex(std::size_t dim, bool lifted, const Json& spec);
  ~UpperBoundIndex();

  static std::size_t liftedDim(std::size_t dim) { return dim + dim * (dim + 1) / 2; }

  // Indexes `count` rows of dim doubles (row r gets id r), replacing nothing: call once.
  void build(const double* features, std::size_t count);

  struct Candidates {
    std::vector<Id> rows;   // largest bound first
    std::vector<double> bounds; // the bound of each row (float precision of the index)
  };
  // The `count` rows of largest bound for center c, inverse Gram A, multiplier m and scale s.
  Candidates retrieve(const Vector& center, const Matrix& inverseGram, double multiplier, double scale,
                      std::size_t count);

  std::size_t size() const;
  Json stats() const;

  // The MIPS index's snapshot. load() runs on a fresh index made with the same arguments and checks
  // that the restored one indexes exactly the lifts of `count` rows of `features` (CORRUPT_STATE).
  void save(StateWriter& out) const;
  void load(StateReader& in, const double* features, std::size_t count);

 private:
  // The point indexed for a row of dim doubles: index_->dim() floats.
  void lift(const double* x, float* out) const;

  std::size_t dim_;
  bool lifted_;
  std::unique_ptr<MipsIndex> index_;
};

}  // namespace sublinear
