#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// Online measurement of an approximate index's answers, shared by the policies that search one
// (Sub-TS, Sub-Elim): on a random fraction of the searches that could miss (MipsIndex::approximates:
// not while an HnswIndex's graph is still empty) the policy also asks the index for the exact answer
// and records whether the approximate one missed it, and by how much. The fraction is drawn so
// that audits cost about `auditBudget` of the searches' approximate work (exhaustive scans inside a
// search, such as an HnswIndex's scan of the items not yet in its graph, cannot miss). When the miss
// rate since the last change is clearly above `targetMissRate` (the lower end of a one-sided 95%
// Wilson interval, from the second miss on, however few the audits), the policy's shortlist doubles,
// up to `maxShortlist`. Audits have a floor rate (floorRate()) so that the estimate exists where
// the budget rule alone would audit a handful of times in a run (high d and K).
//
// An audit's exact search runs in slices (issue 53): an exact scan inside the call that drew the
// audit made that call the tail (a SubTS user over 10^6 x 32 arms: select p50 0.15 ms, p99 14 ms,
// the time of one scan). The audited search's query, filters and best score are kept as the
// pending audit, and each later call of the policy advances its scan by one slice of the index's
// rows (MipsIndex::searchRowsExactly), from the last row down; the audit is recorded when the scan
// reaches row 0, exactly as one call's scan would record it on the same rows. A slice is
// `auditSlice` times the mean work of the policy's searches (its approximate inner products), and
// at least kMinimumSliceFloats of rows: bench/results/tail.md for the choice. Items change meanwhile: the scan covers
// the rows present when each slice runs. Removal moves the last row into the hole, from the part
// already scanned (or the part still to scan, which the scan reaches anyway), so every item held
// throughout the audit is scanned at least once; items added since are scanned when their rows
// are still ahead, and items removed count when their slice saw them: the exact best is the best
// of items held at some time during the audit, still a sample of the miss rate of answers given
// while the index changes. Only a wholesale reordering of rows (an HnswIndex orders its graph's
// rows for locality as the graph completes, a few times in a lifetime) can hide an item from an
// audit pending then, which may record a hit for a miss: at most one audit per reordering.
// At most one audit is pending: a draw that comes while one is (possible early on: the floor's
// audits 64 searches apart, a scan of 10^6 arms 100 slices long) is owed, and the next search
// that could miss after the pending one completes is audited instead. Which search is audited
// still does not depend on its outcome, so the estimate stays unbiased, and the number of audits
// is the number drawn (up to kMostOwedAudits owed at once).
//
// Options (option_groups::approximationAudit):
//   auditBudget    (0.1)   audit work / search work, in [0, 1]; 0 turns audits off
//   targetMissRate (0.05)  in (0, 1]; 1 never raises the effort
//   maxShortlist   (64 x shortlist, at most 100,000)
//   auditSlice     (8)     a slice, in mean searches' work; 0 scans in the call that draws the audit
class ApproximationAudit {
 public:
  // Until this many audits were made, a search that could miss is audited with at least
  // kEarlyAuditRate, so that the miss rate is estimated early even where the budget rule audits
  // rarely (high d and K); after them the floor decays as kEarlyAuditRate kEarlyAudits / audits.
  static constexpr std::uint64_t kEarlyAudits = 8;
  static constexpr double kEarlyAuditRate = 1.0 / 64.0;
  // The least probability with which a search that could miss is audited, whatever the budget:
  // kEarlyAuditRate for the first kEarlyAudits audits, then 1 / (8 audits), about sqrt(n / 4)
  // audits in n searches.
  double floorRate() const;

  // `shortlist` is the policy's initial shortlist (the default of maxShortlist derives from it);
  // the audits draw from their own stream, so that they never change the policy's draws.
  ApproximationAudit(const Json& options, std::size_t shortlist, std::uint64_t seed);

  // Whether audits run at all on `index`: a positive budget and an index that is not the exact scan.
  bool active(const MipsIndex& index) const { return budget_ > 0.0 && index.type() != "exact"; }
  // After a search of `index` that began when index.approximateInnerProducts() read
  // `approximateWorkBefore`: audit this one? Only when audits are active and this answer could miss
  // (MipsIndex::approximates); the random draw is made only then, so answers that cannot miss leave
  // the audits' stream alone.
  bool due(const MipsIndex& index, std::uint64_t approximateWorkBefore);
  // Records one audit: the index's best score (-infinity when it answered nothing) against the
  // exact best, with the audit's work. Returns the shortlist to use from now on.
  std::size_t record(double found, double best, std::uint64_t work, std::size_t shortlist);

  // auditSlice's default: a slice of 8 searches' work. A row of the scan streams where a search's
  // inner products wander over the graph: in wasm at 200,000 x 32 a scanned row took 5.8 ns and a
  // select 82 ns per inner product of its search, so a slice of 8 searches' work costs about half a
  // select's time, and a scan of 10^6 such rows ends in some 100 calls (bench/results/tail.md).
  static constexpr double kDefaultSlice = 8.0;
  // Whether audits run in slices (auditSlice > 0); otherwise the policy scans in the drawing call.
  bool sliced() const { return slice_ > 0.0; }
  // The least rows a slice reads, in floats of the index's rows (128 KiB): below this a slice costs
  // less than the call's fixed work, and a scan of 10^6 rows would take thousands of calls.
  static constexpr std::size_t kMinimumSliceFloats = 32768;
  // Draws owed at once beyond the pending audit; more are dropped (a budget whose audits outrun
  // their slices: auditBudget near 1 with a tiny auditSlice).
  static constexpr std::uint64_t kMostOwedAudits = 8;
  // After a search of `index` for `query` under `filters` (its exclusions and attribute conditions)
  // whose best score was `found` (-infinity for no answer), with due()'s verdict `drawn`: begins
  // the audit of this search when drawn, or when a draw is owed and this answer could miss, unless
  // an audit is pending (a draw is owed then). `source` is the policy's name for the index searched
  // (Sub-Elim's stage), given back by pendingSource().
  void offer(const MipsIndex& index, bool drawn, const std::vector<float>& query, const SearchOptions& filters, float found,
             std::uint32_t source = 0);
  bool pending() const { return pending_.has_value(); }
  std::uint32_t pendingSource() const { return pending_ ? pending_->source : 0; }
  // Advances the pending audit's scan of `index` (the one its search searched) by one slice; when
  // the scan completes, records the audit (record(): `shortlist` becomes the one to use) and
  // returns the arm that beat the audited answer, if one did.
  std::optional<Id> advance(MipsIndex& index, std::size_t& shortlist);
  // The rows one slice of `index` scans.
  std::size_t sliceRows(const MipsIndex& index) const;

  std::size_t maxShortlist() const { return maxShortlist_; }
  // stats().approximation: audits, misses, missRate, meanGap, regretRisk (meanGap x selections),
  // effortRaises, auditInnerProducts.
  Json stats(bool audited, std::uint64_t selections) const;

  // The pending audit's query must have `queryDim` entries (the policy's index's dim).
  void save(StateWriter& out) const;
  void load(StateReader& in, std::size_t queryDim);

 private:
  // An audit whose exact scan is under way: rows [0, rowsAhead) of the index are still to scan.
  struct Pending {
    std::vector<float> query;
    SearchOptions filters;
    float found = 0.0f;
    std::uint32_t source = 0;
    std::uint64_t rowsAhead = 0;
    bool hasBest = false;
    float best = 0.0f;
    Id bestId = 0;
    std::uint64_t work = 0;
  };
  // The mean search work a slice is a multiple of follows the last kWorkMemory searches or so.
  static constexpr double kWorkMemory = 64.0;

  double budget_;
  double targetMissRate_;
  std::size_t maxShortlist_;
  double slice_;
  double meanSearchWork_ = 0.0;
  std::optional<Pending> pending_;
  std::uint64_t owed_ = 0;
  Random random_;
  std::uint64_t audits_ = 0;
  std::uint64_t misses_ = 0;
  double gapSum_ = 0.0;
  std::uint64_t windowAudits_ = 0;  // since the shortlist last changed
  std::uint64_t windowMisses_ = 0;
  std::uint64_t effortRaises_ = 0;
  std::uint64_t innerProducts_ = 0;
};

}  // namespace sublinear
