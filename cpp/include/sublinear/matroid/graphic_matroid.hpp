#pragma once

#include <cstdint>
#include <vector>

#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// Graphic matroid of a multigraph: arm k is the edge (u_k, v_k); a set is independent when it is a
// forest. Rank = |V| minus the number of connected components of (V, E). Self-loops are allowed
// (they are matroid loops, in no basis). edges: [u0, v0, u1, v1, ...], endpoints < numVertices.
class GraphicMatroid : public Matroid {
 public:
  GraphicMatroid(std::size_t numVertices, std::vector<std::uint32_t> edges);

  std::string kind() const override { return "graphic"; }
  std::size_t groundSetSize() const override { return endpoints_.size() / 2; }
  std::size_t rank() const override { return rank_; }
  std::unique_ptr<IndependenceOracle> makeOracle() const override;
  std::unique_ptr<Matroid> clone() const override { return std::make_unique<GraphicMatroid>(*this); }
  void save(StateWriter& out) const override;
  // Parallel edges (the same two endpoints, in either direction) form a class.
  std::vector<std::uint32_t> armClasses() const override;

  // The vertices that some edge touches, numbered 0.. in their original order (isolated ones dropped).
  std::size_t numVertices() const { return numVertices_; }
  std::uint32_t tail(Id arm) const { return endpoints_[2 * arm]; }
  std::uint32_t head(Id arm) const { return endpoints_[2 * arm + 1]; }

 private:
  std::size_t numVertices_;
  std::vector<std::uint32_t> endpoints_;
  std::size_t rank_ = 0;
};

}  // namespace sublinear
