#pragma once

#include <cstdint>
#include <vector>

#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// Transversal matroid of a bipartite graph ([K] ∪ V, E): a set of arms is independent when it can
// be matched to distinct right vertices. edges: [arm0, right0, arm1, right1, ...] with arm < K and
// right < numRight (repeated edges are merged). Arms without edges are loops. The oracle keeps a
// maximum matching of the held set and looks for an augmenting path from the new arm by BFS
// (Appendix C: O(D K) per query, in practice the edges among the held arms).
class TransversalMatroid : public Matroid {
 public:
  TransversalMatroid(std::size_t groundSetSize, std::size_t numRight, const std::vector<std::uint32_t>& edges);

  std::string kind() const override { return "transversal"; }
  std::size_t groundSetSize() const override { return edgeStart_.size() - 1; }
  std::size_t rank() const override { return rank_; }
  std::unique_ptr<IndependenceOracle> makeOracle() const override;
  std::unique_ptr<Matroid> clone() const override { return std::make_unique<TransversalMatroid>(*this); }
  void save(StateWriter& out) const override;
  // Arms with the same set of right neighbours form a class.
  std::vector<std::uint32_t> armClasses() const override;

  std::size_t numRight() const { return numRight_; }
  // Right vertices adjacent to `arm`: rights()[edgeStart(arm) .. edgeStart(arm + 1)).
  std::size_t edgeStart(Id arm) const { return edgeStart_[arm]; }
  const std::vector<std::uint32_t>& rights() const { return right_; }

 private:
  std::size_t numRight_;
  std::vector<std::size_t> edgeStart_;  // CSR offsets, K + 1 entries
  std::vector<std::uint32_t> right_;
  std::size_t rank_ = 0;
};

}  // namespace sublinear
