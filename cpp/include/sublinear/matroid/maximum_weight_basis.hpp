#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/id.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

class RoundedFeatureBins;
class StateReader;
class StateWriter;

// A maximum-weight basis B of a matroid under the dominating weights <dom(f_k), (1, lambda)> of the
// bins' order (Tzeng et al., arXiv:2405.17968, Sec. 4.4: the dynamic algorithm A of Assumption
// 4.2), kept across rounds for the matroids whose FIND-BASE needs the independence oracle (graphic,
// transversal).
//
// B is either rebuilt by the greedy algorithm over the bins in order (offering arms to the
// incremental oracle until the basis is full) or repaired by basis exchange after each update of
// one of its arms, whichever measures cheaper; a new cell always rebuilds. Both give the same
// exact basis of the dominating weights, so every basis is a (1 + eta)-approximate maximum-weight
// basis under the UCB indices (Lemma 4.6 with an exact structure).
//
// Exchange repair. Only arms of B are ever updated (update() takes the selected basis). When an arm
// e of B moves to a bin ahead of (or equal to) its old one, B stays maximum. When it moves behind,
// the new maximum basis is B - e + f for the best arm f outside B with B - e + f independent, if f
// is ahead of e's new bin, and B otherwise (the single-element exchange property of matroids).
// Every such f lies in e's fundamental circuit, so f was not ahead of e's old bin (B was maximum):
// the search scans only the bins from e's old position to its new one. Cost per update of a basis
// arm: O(log B) to locate it, and when it moved behind, O(D · T_member) to load B - e into the
// oracle plus O(A · T_member) for the A classes present in the bins between its old and new
// position. A is at most (bins passed) x (classes): for a graph on n vertices at most n(n-1)/2 per
// bin whatever K, but with as many classes as arms (a simple graph) it is bounded only by K: Holm
// et al.'s polylogarithmic dynamic spanning forest, which the paper cites for graphic matroids, is
// not implemented. With every basis arm demoted, repair costs O(D^2 · T_member) a round, more than
// a greedy rebuild when the greedy completes the basis after few arms (random graphs).
//
// So both are measured, in oracle calls per round over windows of 32 rounds, and the cheaper is
// used: of every 8 windows one measures each way and six use the cheaper (stats: basisMaintenance,
// oracleCalls).
//
// The walks count their work into the policy's counters `binsVisited` and `armsScanned`.
class MaximumWeightBasis {
 public:
  // `maintained`: whether this basis is used at all (the policy's FIND-BASE needs the oracle).
  MaximumWeightBasis(const Matroid& matroid, bool maintained);

  bool maintained() const { return maintained_; }
  // The bins' order changed (a new cell): the next basis() rebuilds.
  void invalidate() { valid_ = false; }
  // Whether an update of `arm` must be followed by exchangeAfterDemotion when it moves behind.
  bool repairsAfterUpdate(Id arm) const { return maintained_ && valid_ && !rebuildEveryRound_ && slotOfArm_[arm] != kNotInBasis; }
  // FIND-BASE at round t over the bins' order (one component).
  const std::vector<Id>& basis(std::int64_t t, const RoundedFeatureBins& bins, std::uint64_t& binsVisited, std::uint64_t& armsScanned);
  // Restores a maximum basis after basis arm `arm` moved from the bin at `oldPosition` (positions
  // at and behind it hold the bins not ahead of the old one) to a bin behind it.
  void exchangeAfterDemotion(Id arm, std::size_t oldPosition, const RoundedFeatureBins& bins, std::uint64_t& binsVisited,
                             std::uint64_t& armsScanned);
  // { basisRebuilds, basisExchanges, oracleCalls, basisMaintenance } into `stats`.
  void addStats(Json& stats) const;

  // The basis, its flags, its counters and the measured costs. The saved counter array predates
  // this class and also holds two of the policy's counters (`policyCounters`), after the basis's.
  void save(StateWriter& out, const std::array<std::uint64_t, 2>& policyCounters) const;
  // Reads what save() wrote, checking the basis against the bins and the counters against the
  // policy's `rounds`; returns the policy's counters.
  std::array<std::uint64_t, 2> load(StateReader& in, const RoundedFeatureBins& bins, std::int64_t rounds);

 private:
  static constexpr std::uint32_t kNotInBasis = 0xffffffffu;

  std::vector<Id> greedyOverBins(const RoundedFeatureBins& bins, std::uint64_t& binsVisited, std::uint64_t& armsScanned);
  // At the end of each measurement window, picks exchange repair or a greedy rebuild every round.
  void chooseMaintenance(std::int64_t t);

  bool maintained_;
  std::size_t armCount_;
  std::size_t rank_;
  std::unique_ptr<IndependenceOracle> oracle_;
  // Valid from the greedy at a cell's entry until the next.
  std::vector<Id> basis_;
  std::vector<std::uint32_t> slotOfArm_;  // kNotInBasis for arms outside basis_
  bool valid_ = false;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t exchanges_ = 0;
  // The measured choice between the two ways to keep the basis, in oracle calls per round.
  bool rebuildEveryRound_ = false;
  std::uint64_t oracleCalls_ = 0;
  std::int64_t window_ = 0;
  std::int64_t windowStart_ = 0;
  std::uint64_t windowCalls_ = 0;
  double exchangeCost_ = -1.0;  // negative: not measured yet
  double rebuildCost_ = -1.0;
};

}  // namespace sublinear
