#include "sublinear/matroid/matroid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"

namespace sublinear {

bool Matroid::isIndependent(const Id* arms, std::size_t count) const {
  const std::size_t k = groundSetSize();
  std::vector<Id> sorted(arms, arms + count);
  for (const Id arm : sorted) {
    if (arm >= k) fail(ErrorCode::InvalidArgument, "arm " + std::to_string(arm) + " is not in the ground set [0, " + std::to_string(k) + ")");
  }
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    fail(ErrorCode::DuplicateId, "a set of arms may not repeat an arm");
  }
  if (count > rank()) return false;
  auto oracle = makeOracle();
  for (std::size_t i = 0; i < count; ++i) {
    if (!oracle->canAdd(arms[i])) return false;
    oracle->add(arms[i]);
  }
  return true;
}

std::vector<Id> Matroid::maxWeightBasis(const double* weights, std::size_t count) const {
  const std::size_t k = groundSetSize();
  if (count != k) {
    fail(ErrorCode::DimensionMismatch, "weights must hold one number per arm: expected " + std::to_string(k) + ", got " + std::to_string(count));
  }
  for (std::size_t i = 0; i < count; ++i) require(std::isfinite(weights[i]), ErrorCode::NonFinite, "weights must be finite");
  // Heap order: larger weight first, then smaller index (std heaps pop the "largest").
  const auto later = [weights](Id x, Id y) { return weights[x] < weights[y] || (weights[x] == weights[y] && x > y); };
  std::vector<Id> heap(k);
  for (std::size_t i = 0; i < k; ++i) heap[i] = static_cast<Id>(i);
  std::make_heap(heap.begin(), heap.end(), later);
  auto oracle = makeOracle();
  std::vector<Id> basis;
  const std::size_t r = rank();
  basis.reserve(r);
  while (basis.size() < r && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Id arm = heap.back();
    heap.pop_back();
    if (oracle->canAdd(arm)) {
      oracle->add(arm);
      basis.push_back(arm);
    }
  }
  return basis;
}

std::vector<Id> Matroid::greedyInOrder(const std::vector<Id>& order) const {
  auto oracle = makeOracle();
  std::vector<Id> basis;
  const std::size_t r = rank();
  for (const Id arm : order) {
    if (basis.size() >= r) break;
    if (oracle->canAdd(arm)) {
      oracle->add(arm);
      basis.push_back(arm);
    }
  }
  return basis;
}

bool Matroid::isLoop(Id arm) const { return !makeOracle()->canAdd(arm); }

std::vector<std::uint32_t> Matroid::armClasses() const {
  std::vector<std::uint32_t> classes(groundSetSize());
  for (std::size_t arm = 0; arm < classes.size(); ++arm) classes[arm] = static_cast<std::uint32_t>(arm);
  return classes;
}

std::unique_ptr<Matroid> loadMatroid(StateReader& in, std::size_t bytesPerArm) {
  // Sizes beyond what a semi-bandit policy can hold (the simulate() limit) mean damaged bytes; they
  // are refused before any constructor allocates for them.
  constexpr std::uint64_t kLargestSaved = 100000000;
  const auto size = [&in](const char* what) {
    const std::uint64_t value = in.u64();
    in.check(value <= kLargestSaved, std::string("saved matroid has too many ") + what);
    return static_cast<std::size_t>(value);
  };
  // The arms' fields still to come bound the arm count, so K costs the state its bytes.
  const auto checkArms = [&in, bytesPerArm](std::size_t k) {
    in.check(k <= in.remaining() / bytesPerArm, "saved matroid has more arms than the state has data for");
  };
  const std::string kind = in.string();
  if (kind == "uniform") {
    const std::size_t k = size("arms");
    const std::size_t rank = size("elements in a basis");
    checkArms(k);
    return std::make_unique<UniformMatroid>(k, rank);
  }
  if (kind == "partition") {
    std::vector<std::uint32_t> groups = in.u32s();
    checkArms(groups.size());
    return std::make_unique<PartitionMatroid>(std::move(groups));
  }
  if (kind == "graphic") {
    // GraphicMatroid::save numbers only the vertices that edges touch.
    const std::size_t vertices = size("vertices");
    std::vector<std::uint32_t> edges = in.u32s();
    in.check(vertices <= edges.size(), "saved graphic matroid has more vertices than its edges touch");
    checkArms(edges.size() / 2);
    return std::make_unique<GraphicMatroid>(vertices, std::move(edges));
  }
  if (kind == "transversal") {
    // TransversalMatroid::save numbers only the right vertices that edges touch.
    const std::size_t k = size("arms");
    const std::size_t right = size("right vertices");
    const std::vector<std::uint32_t> edges = in.u32s();
    in.check(right <= edges.size() / 2, "saved transversal matroid has more right vertices than its edges touch");
    checkArms(k);
    return std::make_unique<TransversalMatroid>(k, right, edges);
  }
  fail(ErrorCode::CorruptState, "saved state holds an unknown matroid kind '" + kind + "'");
}

}  // namespace sublinear
