#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sublinear/matroid/maximum_weight_basis.hpp"
#include "sublinear/matroid/rounded_feature_bins.hpp"
#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// FasterCUCB (Tzeng et al., arXiv:2405.17968, Algorithms 2-5): CUCB whose basis comes from the
// dominating points of rounded features instead of a greedy pass over all K arms. The features
// (mu^_k, 1/sqrt(N_k)) live in RoundedFeatureBins (rounding, bins and the cell of the query (1,
// lambda_t)); FIND-BASE runs the greedy algorithm over the bins in the cell's order, arms in a bin
// being interchangeable for the query:
// - uniform matroid: the first D arms (O(D + bins visited));
// - partition matroid, the direct sum of its groups, each with its own bins and cell: the first arm
//   of each group (O(D) plus the re-sorts of groups whose cell ended);
// - graphic and transversal matroids: the MaximumWeightBasis of the cell's order, repaired after
//   each update or rebuilt each round, whichever measures cheaper.
// The basis is exact over the dominating weights, so every basis is a (1 + eta)-approximate
// maximum-weight basis under the UCB indices (Lemma 4.6 with an exact structure), within the
// required (1 + epsilon), eta = epsilon / 3.
//
// Forgetting (SemiBanditPolicy): the bins hold (mu^_k, 1 / sqrt(M_k)) of the count weights M_k and
// the query is (1, lambda_t / sqrt(G)), so a discount or forget(f) moves no arm; a window's departing
// observation re-places its arm (and rebuilds a maintained basis); a restart rebuilds the bins after
// its initial pulls.
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
  std::size_t binCount() const { return bins_.binCount(); }
  Json stats() const override;
  // After the base fields: the bins (RoundedFeatureBins::save), then the maintained basis and the
  // counters (MaximumWeightBasis::save).
  void save(StateWriter& out) const override;
  void load(StateReader& in) override;

 protected:
  std::vector<Id> chooseBasis(std::int64_t t) override;
  void armUpdated(Id arm, double reward) override;
  void initialPullsCompleted() override;
  void observationLeft(Id arm, double reward, bool emptied) override;
  void countsWeighed(double factor) override;
  void weightsRenormalised() override;

 private:
  RoundedFeatureBins emptyBins() const;
  double epsilon_;
  double eta_;
  RoundedFeatureBins bins_;
  enum class Walk { TopArms, OneArmPerComponent, Oracle } walk_;
  // Used by Walk::Oracle only; the others keep it empty.
  MaximumWeightBasis basis_;
  std::uint64_t cellsEntered_ = 0;
  std::uint64_t binsVisited_ = 0;
};

}  // namespace sublinear
