#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sublinear/core/id.hpp"

namespace sublinear {

class Random;
class SemiBanditPolicy;
class StateReader;
class StateWriter;

// The bins BIN_{q,r} of rounded features and the order a query puts them in (Tzeng et al.,
// arXiv:2405.17968, Sec. 4.2-4.3), FasterCUCB's data structure without the matroid.
//
// - Features f_k = (mu^_k, 1/sqrt(N_k)), query q = (1, lambda_t): the UCB index is <f_k, q>.
// - Rounding (Sec. 4.2): each coordinate is rounded up to the next power of (1 + eta); arm k lands
//   in BIN_{q,r} with dominating point dom(f_k) >= f_k and <dom(f_k), q> < (1 + eta) <f_k, q>
//   (Eq. 8). A coordinate equal to 0 is its own bin (Eq. 5-6). The grid is not truncated to
//   [alpha_lb, alpha_ub] x [beta_lb, beta_ub]: levels are integers of either sign, so Assumption
//   4.1's bounds are not needed, and mu^ = 0 (Bernoulli rewards) is allowed. Only non-empty bins
//   exist (at most min(K, W^2)).
// - Hitting set (Sec. 4.3, Algorithm 6): for queries (1, lambda) the cells of the arrangement are
//   the intervals of lambda between the values where two dominating points swap order; a
//   representative h of a cell induces the order of every query in it. Because lambda_t only
//   grows, the representatives are instantiated lazily, in increasing order, one at a time: the
//   structure for h is the list of non-empty bins sorted by <dom, h>, valid until the first
//   crossing of two neighbours (the first swap as lambda grows is always between neighbours, so
//   the cell's upper end is found in O(bins)). When lambda_t leaves the cell, the next
//   representative's structure is built by re-sorting the bins (O(B log B), no per-arm work).
// - UPDATE-FEATURE is remove() then place(): O(log B) lookup + O(B) list insertion; a bin that
//   appears or empties shortens the cell by its neighbours' crossings.
// - Inside a bin, arms are grouped by class (Matroid::armClasses: parallel edges, arms with the
//   same right neighbours), so that a scan for independence tests one arm of a class where the
//   others would give the same answer.
// - Components: a partition matroid is the direct sum of its groups (rank 1 each), so each group
//   keeps its own bins and cell, and its best arm is the first arm of its first bin; uniform,
//   graphic and transversal matroids are one component.
class RoundedFeatureBins {
 public:
  struct Bin {
    int alphaLevel = 0;
    int betaLevel = 0;
    double domAlpha = 0.0;  // the dominating point dom_{q,r} (Eq. 7)
    double domBeta = 0.0;
    // The bin's arms grouped by class (Matroid::armClasses), groups in random order.
    std::vector<std::vector<Id>> groups;
    std::unordered_map<std::uint32_t, std::uint32_t> groupOfClass;
  };
  // The structure of one representative h for one component.
  struct Component {
    std::map<std::pair<int, int>, std::uint32_t> binOfLevels;
    std::vector<std::uint32_t> order;  // non-empty bins by <dom, h>, best first
    double representative = 0.0;       // the cell is [representative, cellHigh] in lambda
    double cellHigh = -1.0;
  };
  static constexpr std::uint32_t kNoBin = 0xffffffffu;

  // componentOfArm: each arm's component (all 0 but for a partition matroid's groups);
  // classOfArm: Matroid::armClasses().
  RoundedFeatureBins(double eta, std::vector<std::uint32_t> componentOfArm, std::size_t componentCount,
                     std::vector<std::uint32_t> classOfArm);

  // Whether the initial pulls are over and every pulled arm has its bin.
  bool built() const { return built_; }
  std::size_t binCount() const { return binCount_; }
  const Bin& bin(std::uint32_t bin) const { return bins_[bin]; }
  // kNoBin before the arm's first pull.
  std::uint32_t binOf(Id arm) const { return binOfArm_[arm]; }
  const std::vector<Component>& components() const { return components_; }
  const Component& componentOf(Id arm) const { return components_[componentOfArm_[arm]]; }
  // <dom, (1, lambda)> of the bin's dominating point.
  double weight(std::uint32_t bin, double lambda) const { return bins_[bin].domAlpha + lambda * bins_[bin].domBeta; }
  // Whether bin x precedes bin y in the order of the query (1, lambda).
  bool ahead(std::uint32_t x, std::uint32_t y, double lambda) const;
  // The bin's position in its component's order.
  std::size_t positionOf(const Component& component, std::uint32_t bin) const;

  // Puts an arm with empirical mean `mean` and count weight `weight` (its pulls without forgetting;
  // see SemiBanditPolicy::weight) in its bin. maintainOrder: insert a new bin into its component's
  // order (UPDATE-FEATURE) rather than append it (INITIALIZE, whose order is sorted by the first query).
  void place(Id arm, double mean, double weight, Random& random, bool maintainOrder);
  void remove(Id arm);
  // INITIALIZE (Algorithm 2) is over: every playable arm has been placed. No representative yet:
  // the first query enters its cell.
  void completeInitialization();
  // Enters the cell of lambda in every component whose cell does not hold it; returns how many
  // did (their order changed).
  std::size_t followQuery(double lambda);

  // The bins' arm groups, the free bins, and each component's cell and order. The bins' levels
  // follow from their arms' features, which load() reads from the policy restored before.
  void save(StateWriter& out) const;
  void load(StateReader& in, const SemiBanditPolicy& policy);

 private:
  int level(double value) const;
  int betaLevel(double weight);
  double corner(int level) const;
  double crossing(const Component& component, std::uint32_t upper, std::uint32_t lower) const;
  void enterCell(Component& component, double lambda);

  double logStep_;  // log(1 + eta)
  std::vector<Component> components_;
  std::vector<std::uint32_t> componentOfArm_;
  std::vector<std::uint32_t> classOfArm_;
  std::vector<Bin> bins_;
  std::vector<std::uint32_t> freeBins_;
  std::vector<std::uint32_t> binOfArm_;
  std::vector<std::uint32_t> slotOfArm_;  // position in its bin's group
  std::size_t binCount_ = 0;
  // level(1/sqrt(N)) for the small N (below kCachedPulls), where most updates happen.
  std::vector<int> betaLevelOfPulls_;
  bool built_ = false;
};

}  // namespace sublinear
