#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// FasterCUCB (paper 002, Algorithms 2-5): CUCB whose basis comes from the dominating points of
// rounded features instead of a greedy pass over all K arms.
//
// - Features f_k = (mu^_k, 1/sqrt(N_k)), query q = (1, lambda_t): the UCB index is <f_k, q>.
// - Rounding (Sec. 4.2): each coordinate is rounded up to the next power of (1 + eta),
//   eta = epsilon / 3; arm k lands in BIN_{q,r} with dominating point dom(f_k) >= f_k and
//   <dom(f_k), q> < (1 + eta) <f_k, q> (Eq. 8). A coordinate equal to 0 is its own bin (Eq. 5-6).
//   The grid is not truncated to [alpha_lb, alpha_ub] x [beta_lb, beta_ub]: levels are integers
//   of either sign, so Assumption 4.1's bounds are not needed, and a = 0 (Bernoulli rewards) is
//   allowed. Only non-empty bins exist (at most min(K, W^2)).
// - Hitting set (Sec. 4.3, Algorithm 6): for queries (1, lambda) the cells of the arrangement are
//   the intervals of lambda between the values where two dominating points swap order; a
//   representative h of a cell induces the order of every query in it. Because lambda_t only
//   grows, the representatives are instantiated lazily, in increasing order, one at a time: the
//   structure for h is the list of non-empty bins sorted by <dom, h>, valid until the first
//   crossing of two neighbours (the first swap as lambda grows is always between neighbours, so
//   the cell's upper end is found in O(bins)). When lambda_t leaves the cell, the next
//   representative's structure is built by re-sorting the bins (O(B log B), no per-arm work).
// - UPDATE-FEATURE moves an arm between bins (O(log B) lookup + O(B) list insertion); a bin that
//   appears or empties shortens the cell by its neighbours' crossings.
// - FIND-BASE runs the greedy algorithm over bins in the cell's order (arms in a bin are
//   interchangeable for the query): for the uniform matroid it takes the first D arms
//   (O(D + bins visited)); a partition matroid is the direct sum of its groups, each with its own
//   bins and cell, and takes the first arm of each group (O(D) plus the re-sorts of groups whose
//   cell ended). Graphic and transversal matroids keep a maximum-weight basis B of the cell's
//   order, repaired by basis exchange (the maintained basis, below) or rebuilt each round by the
//   greedy (offering arms to the incremental oracle in bin order until the basis is full),
//   whichever measures cheaper; a new cell always rebuilds. Inside a bin, arms are grouped by class
//   (Matroid::armClasses: parallel edges, arms with the same right neighbours), and a scan tests
//   one arm of a class where the others would give the same answer.
//   The basis is exact over the dominating weights, so every basis is a (1 + eta)-approximate
//   maximum-weight basis under the UCB indices (Lemma 4.6 with an exact structure), within the
//   required (1 + epsilon).
// - The maintained basis (graphic, transversal). Only arms of B are ever updated (update() takes
//   the selected basis). When an arm e of B moves to a bin ahead of (or equal to) its old one, B
//   stays maximum. When it moves behind, the new maximum basis is B - e + f for the best arm f
//   outside B with B - e + f independent, if f is ahead of e's new bin, and B otherwise (the
//   single-element exchange property of matroids). Every such f lies in e's fundamental circuit,
//   so f was not ahead of e's old bin (B was maximum): the search scans only the bins from e's old
//   position to its new one. Cost per update of a basis arm: O(log B) to locate it, and when it
//   moved behind, O(D · T_member) to load B - e into the oracle plus O(A · T_member) for the A
//   classes present in the bins between its old and new position. A is at most (bins passed) x
//   (classes): for a graph on n vertices at most n(n-1)/2 per bin whatever K, but with as many
//   classes as arms (a simple graph) it is bounded only by K: Holm et al.'s polylogarithmic
//   dynamic spanning forest, which the paper cites for graphic matroids, is not implemented.
//   With every basis arm demoted, repair costs O(D^2 · T_member) a round, more than a greedy
//   rebuild when the greedy completes the basis after few arms (random graphs, bench/matroid.mjs).
//   So both are measured, in oracle calls per round over windows of 32 rounds, and the cheaper
//   is used: of every 8 windows one measures each way and six use the cheaper (stats:
//   basisMaintenance, oracleCalls). Both give the same exact basis of the dominating weights.
//
// Options: epsilon in (0, 1) (default 1 / log T, Algorithm 5 with m = 1, clamped to [0.01, 0.5]),
// and the common ones; a >= 0 is required (the rounding is multiplicative).
class FasterCucb : public SemiBanditPolicy {
 public:
  FasterCucb(const Matroid& matroid, const Json& options);
  std::string type() const override { return "faster-cucb"; }
  double epsilon() const { return epsilon_; }
  double eta() const { return eta_; }
  // <dom(f_k), (1, lambda)> of a pulled arm, after the initial pulls.
  double roundedIndex(Id arm, double lambda) const;
  std::size_t binCount() const { return binCount_; }
  Json stats() const override;
  // After the base fields: the bins' arm groups, the free bins, each component's cell and order,
  // the maintained basis and the counters. The bins' levels follow from their arms.
  void save(StateWriter& out) const override;
  void load(StateReader& in) override;

 protected:
  std::vector<Id> chooseBasis(std::int64_t t) override;
  void armUpdated(Id arm, double reward) override;
  void initialPullsCompleted() override;

 private:
  struct Bin {
    int alphaLevel = 0;
    int betaLevel = 0;
    double domAlpha = 0.0;  // the dominating point dom_{q,r} (Eq. 7)
    double domBeta = 0.0;
    // The bin's arms grouped by class (Matroid::armClasses), groups in random order.
    std::vector<std::vector<Id>> groups;
    std::unordered_map<std::uint32_t, std::uint32_t> groupOfClass;
  };
  // The structure of one representative h, for one direct summand of the matroid: a partition
  // matroid is the direct sum of its groups (rank 1 each), so each group keeps its own bins and
  // cell, and its best arm is the first arm of its first bin; uniform, graphic and transversal
  // matroids are one component.
  struct Component {
    std::map<std::pair<int, int>, std::uint32_t> binOfLevels;
    std::vector<std::uint32_t> order;  // non-empty bins by <dom, h>, best first
    double representative = 0.0;       // the cell is [representative, cellHigh] in lambda
    double cellHigh = -1.0;
  };

  int level(double value) const;
  int betaLevel(std::uint64_t pulls);
  double corner(int level) const;
  double weight(std::uint32_t bin, double lambda) const { return bins_[bin].domAlpha + lambda * bins_[bin].domBeta; }
  bool ahead(std::uint32_t x, std::uint32_t y, double lambda) const;
  double crossing(const Component& component, std::uint32_t upper, std::uint32_t lower) const;
  void enterCell(Component& component, double lambda);
  void placeArm(Id arm, bool maintainOrder);
  void unplaceArm(Id arm);
  std::size_t positionOf(const Component& component, std::uint32_t bin) const;
  std::vector<Id> greedyOverBins();
  // Restores a maximum basis after basis arm `arm` moved from the bin at `oldPosition` (positions
  // at and behind it hold the bins not ahead of the old one) to a bin behind it.
  void exchangeAfterDemotion(Id arm, std::size_t oldPosition);
  // At the end of each measurement window, picks exchange repair or a greedy rebuild every round.
  void chooseMaintenance(std::int64_t t);

  double epsilon_;
  double eta_;
  double logStep_;  // log(1 + eta)
  std::vector<Component> components_;
  std::vector<std::uint32_t> componentOfArm_;
  std::vector<Bin> bins_;
  std::vector<std::uint32_t> freeBins_;
  std::vector<std::uint32_t> binOfArm_;
  std::vector<std::uint32_t> slotOfArm_;  // position in its bin's group
  std::size_t binCount_ = 0;
  // level(1/sqrt(N)) for the small N (below kCachedPulls), where most updates happen.
  std::vector<int> betaLevelOfPulls_;
  bool binsBuilt_ = false;
  enum class Walk { TopArms, OneArmPerComponent, Oracle } walk_;
  std::unique_ptr<IndependenceOracle> oracle_;
  std::vector<std::uint32_t> classOfArm_;
  // The maintained basis (Walk::Oracle): valid from the greedy at a cell's entry until the next.
  std::vector<Id> basis_;
  std::vector<std::uint32_t> basisSlotOfArm_;  // kNotInBasis for arms outside basis_
  bool basisValid_ = false;
  std::uint64_t basisRebuilds_ = 0;
  std::uint64_t basisExchanges_ = 0;
  // The measured choice between the two ways to keep the basis, in oracle calls per round.
  bool rebuildEveryRound_ = false;
  std::uint64_t oracleCalls_ = 0;
  std::int64_t window_ = 0;
  std::int64_t windowStart_ = 0;
  std::uint64_t windowCalls_ = 0;
  double exchangeCost_ = -1.0;  // negative: not measured yet
  double rebuildCost_ = -1.0;
  std::uint64_t cellsEntered_ = 0;
  std::uint64_t binsVisited_ = 0;
};

}  // namespace sublinear
