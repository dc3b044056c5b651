#include "sublinear/linear/staged_elimination.hpp"

#include <cmath>
#include <optional>

// What a stage search of StagedElimination does besides its bounds: when they run out of their
// budget, an exact scan of a small stage, an uncertified play over a large one, or the stage's
// index, whose approximate answers are audited against an exact scan.

namespace sublinear {

std::optional<Id> StagedElimination::answerStage(int stage, const std::vector<float>& query, SearchOptions& searchOptions) {
  ++queries_;
  // The bounds' answer settles the search when it is the stage's most uncertain arm (played if it
  // passes the acceptance test, the stage re-partitioned if not) or passes the test anyway.
  const BoundAnswer bound = boundsFirst_ ? searchBounds(stage) : BoundAnswer{};
  const bool accepted = bound.found && beta_ * bound.inverseNorm >= acceptance(stage);
  if (bound.certified) ++certifiedAnswers_;
  MipsIndex& index = *stages_[static_cast<std::size_t>(stage)].index;
  // A search that ran out over a stage small enough scans it (exactly, and at most about the
  // bounds search's own cost: boundsBudget). Over a larger stage it plays its best arm when it
  // passes the acceptance test, and also when the index would scan (or build) more than a call may
  // spend: the search goes on from tighter bounds at the next call. Any arm is a valid play (the
  // confidence bounds hold whatever is played); an arm below the test only explores less.
  if (bound.certified && accepted) return bound.id;
  const bool ranOut = bound.found && !bound.certified;
  const bool scanStage = ranOut && index.size() <= kLargestScannedStage;
  if (ranOut && !scanStage && (accepted || !graphOverEveryItem(index))) {
    ++uncertifiedPlays_;
    return bound.id;
  }
  if (!bound.certified) {
    if (boundsFirst_) ++boundFallbacks_;
    SearchResult answer;
    if (scanStage) {
      answer = index.searchExactly(query.data(), query.size(), 1);
    } else {
      const std::uint64_t workBefore = index.approximateInnerProducts();
      answer = index.search(query.data(), query.size(), 1, searchOptions);
      const bool drawn = audit_.due(index, workBefore);
      if (!audit_.sliced() && drawn) {
        audit(index, query, answer);
        searchOptions.shortlist = shortlist_;
      } else if (audit_.sliced()) {
        // Scanned a slice a selection from the next one on (advanceAudit).
        audit_.offer(index, drawn, query, SearchOptions{}, answer.ids.empty() ? -INFINITY : answer.scores.front(),
                     static_cast<std::uint32_t>(stage));
      }
    }
    if (!answer.ids.empty()) {
      const Id candidate = answer.ids.front();
      countInnerProducts(1);
      if (uncertainty(arms_.featuresOf(candidate)) >= acceptance(stage)) return candidate;
    }
  }
  return std::nullopt;
}

std::vector<Id> StagedElimination::mostUncertain(int stage, std::size_t count, const std::vector<float>& query, const SearchOptions& filters,
                                       const Eligibility& eligible) {
  MipsIndex& index = *stages_[static_cast<std::size_t>(stage)].index;
  ++queries_;
  std::vector<Id> ids;
  if (boundsFirst_) {
    bool certified = false;
    const std::vector<UncertaintyBounds::Entry> found = searchBounds(stage, count, eligible, certified);
    for (const auto& entry : found) ids.push_back(entry.second);
    if (certified) {
      ++certifiedAnswers_;
      return ids;
    }
    // As one arm's search: a stage too large to scan plays what its bounds found, unless a graph
    // over every item answers cheaply.
    if (ids.size() == count && index.size() > kLargestScannedStage && !graphOverEveryItem(index)) {
      ++uncertifiedPlays_;
      return ids;
    }
    ++boundFallbacks_;
  }
  // The stage index under the filters: an exact scan of the eligible members for Linear Elim (or
  // for a stage small enough), the index's filtered search otherwise. Its answer holds
  // min(count, eligible members) arms.
  const bool scan = !boundsFirst_ || index.size() <= kLargestScannedStage;
  const SearchResult answer = scan && boundsFirst_ ? index.searchExactly(query.data(), query.size(), count, filters)
                                                   : index.search(query.data(), query.size(), count, filters);
  return answer.ids;
}

bool StagedElimination::graphOverEveryItem(MipsIndex& index) {
  return index.approximates() && index.build(0) == 0;
}

void StagedElimination::advanceAudit() {
  if (!audit_.pending()) return;
  // The stage whose search is audited; its members may have changed since (ApproximationAudit).
  audit_.advance(*stages_[audit_.pendingSource()].index, shortlist_);
}

void StagedElimination::audit(MipsIndex& index, const std::vector<float>& query, const SearchResult& answer) {
  const std::uint64_t workBefore = index.innerProducts();
  const SearchResult exact = index.searchExactly(query.data(), query.size(), 1);
  if (exact.ids.empty()) return;
  // A miss is a stage arm of larger uncertainty than the answer: the lifted scores are
  // ||x||^2_{V^-1} / d^2, computed by the same kernel for both.
  shortlist_ = audit_.record(answer.ids.empty() ? -INFINITY : answer.scores.front(), exact.scores.front(),
                             index.innerProducts() - workBefore, shortlist_);
}

}  // namespace sublinear
