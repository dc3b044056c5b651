#pragma once

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// PCA-MIPS (Bachrach et al. 2014, "Speeding up the Xbox recommender system..."): the Euclidean
// transform x -> (x, sqrt(M^2 - |x|^2)), M the largest norm, turns MIPS into nearest-neighbour
// search; a PCA tree then splits the transformed items at the median of their projections, level l
// of the tree using the l-th principal direction of the whole (centered) transformed set, `depth`
// levels deep. A query (q M/|q|, 0) -- scaled onto the sphere of radius M where the transformed
// items lie; MIPS is indifferent to the query's scale -- descends to one leaf, and the leaf's items
// are the candidates, ranked exactly. Depth 0 is the exact scan.
//
// Principal directions: for dim + 1 <= 256 the covariance is formed and Eigen's
// SelfAdjointEigenSolver gives its eigenvectors; above that (forming a 10^4 x 10^4 covariance costs
// n dim^2) randomized subspace iteration (three passes of X^T X over depth + 10 directions) followed by
// SelfAdjointEigenSolver on the small projected covariance (Rayleigh-Ritz). Products are plain loops
// in a fixed order so the native and wasm builds agree. If depth exceeds dim + 1 the directions repeat.
//
// Fewer candidates than asked (a small or empty leaf, likely when 2^depth approaches the size): the
// search widens to the smallest subtree above the leaf that holds enough items, so it returns
// min(k, size) results like every index.
//
// Changes: an added item descends to its leaf, a removed one leaves its leaf (O(dim depth) and
// O(leaf size)). The tree is rebuilt at the next search when an added item is longer than M (the
// transform no longer holds) or when the additions and removals since the last build exceed half
// the size it was built at (medians and directions are stale, leaves unbalanced).
class PcaTreeIndex final : public MipsIndex {
 public:
  static constexpr std::size_t kMaxDepth = 20;
  static constexpr std::size_t kDirectCovarianceLimit = 256;

  // Items per leaf the default depth aims at (1024 to 2047 after the median splits), so the depth
  // follows the size: a fixed depth leaves small sets in tiny leaves that hold almost none of the
  // true top 10. Recall falls with the depth much more than with the leaf size, so the leaves stay
  // large: leaves of a few hundred items would still miss most of the true top 10.
  static constexpr std::size_t kLeafTarget = 1024;

  // Options (option_groups::pcaTree()): depth in [0, kMaxDepth] (default: defaultDepth(size) at
  // each build), seed.
  PcaTreeIndex(std::size_t dim, const Json& options);
  std::string type() const override { return "pca-tree"; }
  Json stats() const override;

 protected:
  void onAdd(const Id* ids, std::size_t count) override;
  void onRemove(const Id* ids, std::size_t count) override;
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  void saveStructure(StateWriter& out) const override;
  void loadStructure(StateReader& in) override;
  // A current tree is only read by a search. Filtered searches use the base class's rule, which reads
  // the counters earlier searches wrote: they run in order.
  bool searchesConcurrently(const SearchOptions& options) const override { return !options.filtersAnything(); }
  // The rebuild the first search would make of a stale tree.
  void prepareConcurrentSearches() override;

 private:
  // The largest depth whose leaves hold at least kLeafTarget of `size` items.
  static std::size_t defaultDepth(std::size_t size);
  void rebuild();
  void computeDirections(const std::vector<double>& transformed, std::size_t n);
  // Leaf reached by a transformed vector (dim + 1 entries).
  std::size_t leafOf(const double* transformed) const;
  void transform(const float* vector, double* out) const;
  void centeredTransform(const float* vector, double* out) const;
  void collectLeaves(std::size_t node, std::vector<Id>& out) const;

  bool fixedDepth_;
  std::size_t depth_;
  Random random_;
  bool built_ = false;
  bool stale_ = true;
  double maxNorm_ = 0;
  std::size_t sizeAtBuild_ = 0, changesSinceBuild_ = 0, builds_ = 0;
  std::atomic<std::uint64_t> widened_{0};  // a batch's searches count into it concurrently
  std::vector<double> mean_;                 // of the transformed items at the last build
  std::vector<double> directions_;           // depth_ rows of dim + 1
  std::vector<double> thresholds_;           // per internal node (heap order: children 2i+1, 2i+2)
  std::vector<std::uint32_t> subtreeCount_;  // items under every node
  std::vector<std::vector<Id>> leaves_;
  std::unordered_map<Id, std::uint32_t> leafOfItem_;  // looked up only, never iterated
};

}  // namespace sublinear
