#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/mips/bounded_me_solver.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// MIPS as best-arm identification with bounded pulls (Liu et al., arXiv:1812.06360): item i is an
// arm whose reward list is (x_ij q_j)_j, a pull multiplies one more coordinate, and BoundedME
// (Algorithm 1) keeps the K arms it cannot rule out; the base class then scores those K exactly. No
// structure is built: adding an item only stores it.
//
// Sampling coordinates without replacement, as streams. Each item is stored a second time with its
// columns permuted by one uniformly random permutation sigma drawn from the seed, cut into panels of
// kBlock columns; a panel holds its columns for every item contiguously (item-major inside the
// panel). Every query draws a fresh random order of the panels and pulls coordinates in that order,
// so a round reads, panel by panel, the same few columns of every surviving item in ascending item
// order: a forward stream the hardware prefetches, instead of one cache miss per item and segment.
// Because sigma is uniform and independent of the query's panel order, the coordinates a query pulls
// form, for that query, exactly a uniformly random permutation shared by all arms: the per-query
// guarantee of Theorem 1 holds as stated. (Different queries share sigma, so their errors are not
// independent of each other.) The copy doubles the memory of the index; adding an item scatters it
// into the panels (O(dim)), removing one moves the last item into its place (O(dim)).
//
// Scale of epsilon: rewards x_j q_j lie in [a, b] with a = min_j min(q_j lo_j, q_j hi_j) and
// b = max_j max(q_j lo_j, q_j hi_j), lo_j/hi_j the per-coordinate minimum/maximum of the stored
// data. As in BoundedMESolver, epsilon is a fraction of that range, so with probability >= 1 - delta
// the K-th returned item's inner product is within epsilon * (b - a) * dim of the true K-th best
// (stats().suboptimalityBound reports that number for the last search). The bounds are kept on add;
// removals leave them valid but loose until a lazy recomputation.
class BoundedMEIndex final : public MipsIndex {
 public:
  // 256 columns: long enough that a panel's partial product amortises its loop set-up (shorter panels
  // spend a larger share of each pull on it), short enough that a 10^4-dim query still draws an order
  // over 40 panels.
  static constexpr std::size_t kBlock = 256;

  // Options: epsilon and delta in (0, 1) (default 0.1 each), seed.
  BoundedMEIndex(std::size_t dim, const Json& options);
  std::string type() const override { return "bounded-me"; }
  Json stats() const override;

 protected:
  void onAdd(const Id* ids, std::size_t count) override;
  void onRemove(const Id* ids, std::size_t count) override;
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  void saveStructure(StateWriter& out) const override;
  void loadStructure(StateReader& in) override;

 private:
  void recomputeBounds();
  struct Segment {
    std::size_t panel, begin, end;  // columns [begin, end) of the panel
  };
  // The panel columns that positions [from, to) of the current query's pull order cover.
  void segmentsFor(std::size_t from, std::size_t to, std::vector<Segment>& out) const;
  std::size_t panelWidth(std::size_t panel) const { return std::min(kBlock, dim() - panel * kBlock); }

  BoundedMESolver solver_;
  Random random_;
  std::vector<std::uint32_t> sigma_;          // permuted column c holds original coordinate sigma_[c]
  std::vector<std::vector<float>> panels_;    // panel p: row r's columns at [r * width, (r + 1) * width)
  std::vector<Id> rowIds_;
  std::unordered_map<Id, std::size_t> rowOf_;  // looked up only, never iterated
  std::vector<float> low_, high_;     // per stored column, over the stored items
  std::size_t removalsSinceBounds_ = 0;
  bool boundsStale_ = false;

  // Per query.
  std::vector<float> permutedQuery_;
  std::vector<std::uint32_t> blockOrder_;
  std::vector<Segment> segments_;

  std::uint64_t pulls_ = 0;
  std::uint64_t pullsNotCounted_ = 0;  // pulls below one full inner product, carried to the next search
  std::uint64_t rounds_ = 0;
  double lastRewardLow_ = 0, lastRewardHigh_ = 0;
};

}  // namespace sublinear
