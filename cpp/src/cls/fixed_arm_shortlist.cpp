#include "sublinear/cls/fixed_arm_shortlist.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/cls/upper_bound_index.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

FixedArmShortlist::FixedArmShortlist(std::size_t dim, const Json& index, double widthScale) : dim_(dim), widthScale_(widthScale) {
  if (index.is_null()) return;
  const OptionGroup& specs = option_groups::clsShortlist();
  shortlist_ = static_cast<std::size_t>(readIntegerOption(specs, index, "shortlist"));
  certify_ = readBoolOption(specs, index, "certify");
  delta_ = readOption(specs, index, "delta");
  indexSpec_ = index;
  indexSpec_.erase("shortlist");
  indexSpec_.erase("certify");
  indexSpec_.erase("delta");
  UpperBoundIndex probe(dim_, false, indexSpec_);
}

FixedArmShortlist::~FixedArmShortlist() = default;

void FixedArmShortlist::setArms(const double* features, std::size_t rows, bool lifted) {
  std::unique_ptr<UpperBoundIndex> index;
  if (!indexSpec_.is_null()) {
    index = std::make_unique<UpperBoundIndex>(dim_, lifted, indexSpec_);
    index->build(features, rows);
  }
  features_.assign(features, features + rows * dim_);
  count_ = rows;
  index_ = std::move(index);
}

FixedArmShortlist::Choice FixedArmShortlist::choose(const SuperArmConstraint& constraint, const Vector& center,
                                                    const Matrix& inverseGram, double multiplier, const Scorer& score) {
  ++shortlistRounds_;
  const double unset = std::numeric_limits<double>::quiet_NaN();
  if (cachedScores_.size() != count_) {
    cachedScores_.assign(count_, unset);
    cachedWidths_.assign(count_, unset);
  }
  for (const Id row : cachedRows_) cachedScores_[row] = unset;
  cachedRows_.clear();
  std::size_t retrieve = std::min(count_, std::max(constraint.k, shortlist_ == 0 ? 4 * constraint.k : shortlist_));
  Choice choice;
  while (true) {
    const UpperBoundIndex::Candidates candidates = index_->retrieve(center, inverseGram, multiplier, widthScale_, retrieve);
    std::vector<double> scores(candidates.rows.size());
    std::vector<double> widths(candidates.rows.size());
    for (std::size_t i = 0; i < candidates.rows.size(); ++i) {
      // A grown shortlist contains the previous one: score each arm once per round.
      const Id row = candidates.rows[i];
      if (std::isnan(cachedScores_[row])) {
        cachedScores_[row] = score(row, &cachedWidths_[row]);
        cachedRows_.push_back(row);
      }
      scores[i] = cachedScores_[row];
      widths[i] = cachedWidths_[row];
    }
    const std::vector<std::size_t> best = SuperArmOracle::selectAmong(candidates.rows, scores, constraint);
    choice.rows.clear();
    choice.widths.clear();
    for (const std::size_t position : best) {
      choice.rows.push_back(candidates.rows[position]);
      choice.widths.push_back(widths[position]);
    }
    if (candidates.rows.size() >= count_) {
      ++certifiedRounds_;
      break;
    }
    // Certificate: every arm outside the shortlist has bound <= the last candidate's bound, and
    // score <= bound; if the k-th chosen score reaches it, no outside arm could have entered
    // (up to the float precision of the index, tolerance tau).
    if (choice.rows.size() == constraint.k && !candidates.bounds.empty()) {
      const double outside = candidates.bounds.back();
      const double tau = 1e-5 * (1.0 + std::fabs(outside));
      if (scores[best.back()] >= outside - tau) {
        ++certifiedRounds_;
        break;
      }
    }
    // An approximate index may return fewer candidates than asked, even when asked for all.
    if (!certify_ || retrieve >= count_) break;
    retrieve = std::min(count_, retrieve * 4);
  }
  return choice;
}

void FixedArmShortlist::observeWidths(const std::vector<double>& widths) {
  if (widths.empty()) return;
  std::vector<double> sorted = widths;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  if (median > 0.0 && std::isfinite(median)) widthScale_ = median;
}

Json FixedArmShortlist::indexStats() const { return index_ ? index_->stats() : Json(); }

void FixedArmShortlist::saveIndex(StateWriter& out) const {
  if (index_) index_->save(out);
}

void FixedArmShortlist::load(StateReader& in, std::vector<double> features, std::size_t rows, bool lifted,
                             std::uint64_t shortlistRounds, std::uint64_t certifiedRounds, double widthScale) {
  // The index follows a fixed arm set exactly when the options ask for one.
  std::unique_ptr<UpperBoundIndex> index;
  if (rows > 0 && !indexSpec_.is_null()) {
    index = std::make_unique<UpperBoundIndex>(dim_, lifted, indexSpec_);
    index->load(in, features.data(), rows);
  }
  features_ = std::move(features);
  count_ = rows;
  index_ = std::move(index);
  shortlistRounds_ = shortlistRounds;
  certifiedRounds_ = certifiedRounds;
  widthScale_ = widthScale;
}

}  // namespace sublinear
