#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sublinear/cls/arm_features.hpp"
#include "sublinear/cls/super_arm_oracle.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/ridge_regression.hpp"

namespace sublinear {

class StateReader;
class StateWriter;
class UpperBoundIndex;

// A CLS policy's fixed arm set (setArms) and the shortlist an UpperBoundIndex over it retrieves, so
// that a round scores a few arms exactly instead of all of them. Every arm's score is at most its
// bound in the index; the shortlist grows until the k-th chosen score reaches the bound of the
// last candidate (then no arm outside could have been chosen: the round is certified), or, with
// certify off, is taken as retrieved.
//
// The policy's `index` option: { type, shortlist, certify, delta, ...index options }, where
// shortlist is the first retrieval (default 4 k), certify whether it grows until certified
// (default true) and delta the failure probability allowed to bounds of unbounded width
// multipliers (arm-wise TS's Gaussian draws, default 1e-3).
class FixedArmShortlist {
 public:
  // `dim`: the features' dimension; `index`: the policy's `index` option, an object or null for
  // none (every fixed arm is then scored); `widthScale`: the first s (see observeWidths). Fails now,
  // not at setArms, on an unknown index type or a bad index option.
  FixedArmShortlist(std::size_t dim, const Json& index, double widthScale);
  ~FixedArmShortlist();
  FixedArmShortlist(const FixedArmShortlist&) = delete;
  FixedArmShortlist& operator=(const FixedArmShortlist&) = delete;

  double delta() const { return delta_; }
  std::size_t count() const { return count_; }
  // The fixed arms (empty before setArms).
  ArmFeatures arms() const { return ArmFeatures::dense(features_.data(), count_, dim_); }
  // Whether rounds over the fixed arms can use the shortlist.
  bool indexed() const { return index_ != nullptr; }

  // Replaces the arm set by `rows` rows of dim doubles (checked by the caller) and indexes them;
  // `lifted`: whether the scores have a width term. Unchanged if the index fails.
  void setArms(const double* features, std::size_t rows, bool lifted);

  // The score of a fixed row this round, and its width term through `width`.
  using Scorer = std::function<double(Id row, double* width)>;
  struct Choice {
    std::vector<Id> rows;        // best score first; fewer than k when the index gave too few
    std::vector<double> widths;  // of each chosen row
  };
  // The best super arm among the shortlist for center c, inverse Gram A and width multiplier bound
  // m (0 without a width term). Each row is scored at most once per call.
  Choice choose(const SuperArmConstraint& constraint, const Vector& center, const Matrix& inverseGram, double multiplier,
                const Scorer& score);
  // s of the index's bound sqrt(w2) <= w2 / (2 s) + s / 2 follows the median width of the
  // policy's selections.
  void observeWidths(const std::vector<double>& widths);

  // { shortlistRounds, certifiedRounds } and, with an index, its stats.
  std::uint64_t shortlistRounds() const { return shortlistRounds_; }
  std::uint64_t certifiedRounds() const { return certifiedRounds_; }
  Json indexStats() const;

  // The saved fields, in the policy's layout: the counters and s with the policy's, then the arms,
  // then the index (MipsIndex::save).
  double widthScale() const { return widthScale_; }
  const std::vector<double>& features() const { return features_; }
  void saveIndex(StateWriter& out) const;
  // Restores what the fields above held; the index is read from `in` when there are arms and an
  // index is asked for. Unchanged if that fails (CORRUPT_STATE).
  void load(StateReader& in, std::vector<double> features, std::size_t rows, bool lifted, std::uint64_t shortlistRounds,
            std::uint64_t certifiedRounds, double widthScale);

 private:
  std::size_t dim_;
  std::vector<double> features_;
  std::size_t count_ = 0;
  Json indexSpec_;  // null: no index
  std::size_t shortlist_ = 0;
  bool certify_ = true;
  double delta_ = 1e-3;
  std::unique_ptr<UpperBoundIndex> index_;
  double widthScale_;
  std::uint64_t shortlistRounds_ = 0;
  std::uint64_t certifiedRounds_ = 0;
  // Scores of the current round's shortlisted arms (NaN = not scored yet).
  std::vector<double> cachedScores_;
  std::vector<double> cachedWidths_;
  std::vector<Id> cachedRows_;
};

}  // namespace sublinear
