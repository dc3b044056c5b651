#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/matroid/independence_oracle.hpp"

namespace sublinear {

class StateReader;
class StateWriter;

// Largest vertex count of a graphic matroid and arm or right-vertex count of a transversal one
// (2^28): their per-vertex arrays must stay addressable on wasm32, where 2^32 - 1 + 1 entries wrap
// to an empty vector that is then written out of bounds. The JS layer caps them at the same value.
constexpr std::size_t kMaxMatroidVertices = std::size_t{1} << 28;

// A matroid ([K], I) given by its incremental independence oracle. Every class computes its rank
// once at construction; bases are the maximal independent sets, all of size rank().
class Matroid {
 public:
  virtual ~Matroid() = default;

  // "uniform", "partition", "graphic" or "transversal".
  virtual std::string kind() const = 0;
  virtual std::size_t groundSetSize() const = 0;
  virtual std::size_t rank() const = 0;
  // A fresh oracle holding the empty set.
  virtual std::unique_ptr<IndependenceOracle> makeOracle() const = 0;
  // Policies copy the matroid they are given, so a JS matroid may be disposed after use.
  virtual std::unique_ptr<Matroid> clone() const = 0;
  // Writes kind() and the constructor's arguments of an equal matroid (graphic and transversal ones
  // without the vertices no edge touches); loadMatroid rebuilds it.
  virtual void save(StateWriter& out) const = 0;

  // Whether `arms` (distinct, each < K) is independent. INVALID_ARGUMENT for an arm >= K,
  // DUPLICATE_ID for a repeated arm.
  bool isIndependent(const Id* arms, std::size_t count) const;

  // A maximum-weight basis by the greedy algorithm (Tzeng et al., arXiv:2405.17968, Algorithm 1):
  // arms by weight descending, ties by smaller index, each added when it keeps the set independent,
  // until the set has rank() arms. The order is produced lazily from a heap (O(K) to build, O(log
  // K) per arm looked at), which is still Algorithm 1 and the same result as a full sort. Negative
  // weights do not stop the greedy: the result is always a basis (semi-bandit super arms are
  // bases), the best one among bases. weights: K finite numbers (DIMENSION_MISMATCH / NON_FINITE).
  std::vector<Id> maxWeightBasis(const double* weights, std::size_t count) const;

  // Greedy over arms in the given order (no validation: arms < K, distinct), stopping at rank().
  // Completes with nothing else: the result is a basis when `order` spans the matroid.
  std::vector<Id> greedyInOrder(const std::vector<Id>& order) const;

  // Whether `arm` is a loop (independent of nothing, in no basis): such arms are never played.
  bool isLoop(Id arm) const;

  // A class id per arm (K of them): arms of one class are interchangeable - exchanging two of
  // them maps independent sets to independent sets (parallel edges of a graph, arms with the same
  // right neighbours, one partition group, all arms of a uniform matroid). So an oracle holding
  // none of them answers the same for each, and a scan may test one per class. The default puts
  // every arm in a class of its own, which is always true.
  virtual std::vector<std::uint32_t> armClasses() const;
};

// Rebuilds a matroid written by Matroid::save, through its validating constructor. The state must
// hold at least `bytesPerArm` (> 0) more bytes per arm after the matroid (a policy's per-arm
// fields): sizes are checked against the bytes that remain before anything is
// allocated for them, so damaged sizes cannot cost more memory or time than the state's size.
std::unique_ptr<Matroid> loadMatroid(StateReader& in, std::size_t bytesPerArm);

}  // namespace sublinear
