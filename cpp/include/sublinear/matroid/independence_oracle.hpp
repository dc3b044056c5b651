#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/core/id.hpp"

namespace sublinear {

// The incremental independence (membership) oracle of Tzeng et al. (arXiv:2405.17968), Appendix C:
// it holds an independent set x, starting empty, answers whether x + e_k is still independent, and
// adds k. Each matroid class keeps just enough state to answer in T_member time (a counter for
// uniform, used groups for partition, union-find for graphic, a maximum matching for transversal),
// so the greedy algorithm costs O(K (log K + T_member)) instead of re-testing whole sets.
class IndependenceOracle {
 public:
  virtual ~IndependenceOracle() = default;
  // Whether the held set plus `arm` is independent. `arm` must be < K and not already held.
  virtual bool canAdd(Id arm) = 0;
  // Adds `arm`; the caller has checked canAdd(arm).
  virtual void add(Id arm) = 0;
  // Back to the empty set (in time proportional to what was added, not to K).
  virtual void clear() = 0;
  virtual std::size_t size() const = 0;
};

}  // namespace sublinear
