#pragma once

#include <cstddef>
#include <cstdint>

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
// Options (option_groups::approximationAudit):
//   auditBudget    (0.1)   audit work / search work, in [0, 1]; 0 turns audits off
//   targetMissRate (0.05)  in (0, 1]; 1 never raises the effort
//   maxShortlist   (64 x shortlist, at most 100,000)
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

  std::size_t maxShortlist() const { return maxShortlist_; }
  // stats().approximation: audits, misses, missRate, meanGap, regretRisk (meanGap x selections),
  // effortRaises, auditInnerProducts.
  Json stats(bool audited, std::uint64_t selections) const;

  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  double budget_;
  double targetMissRate_;
  std::size_t maxShortlist_;
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
