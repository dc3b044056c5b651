#include "sublinear/matroid/transversal_matroid.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "sublinear/core/state_codec.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
constexpr std::uint32_t kUnmatched = 0xffffffffu;

// Appendix C: a maximum matching M of the held set into the right vertices; x + e_k is
// independent iff an augmenting path from k exists, found by BFS over the held arms. The last
// successful search is kept so that add() right after canAdd() does not search again.
class MatchingOracle : public IndependenceOracle {
 public:
  explicit MatchingOracle(const TransversalMatroid& matroid)
      : matroid_(matroid),
        matchOfRight_(matroid.numRight(), kUnmatched),
        matchOfArm_(matroid.groundSetSize(), kUnmatched),
        seen_(matroid.numRight(), 0),
        cameFrom_(matroid.numRight(), kUnmatched) {}

  bool canAdd(Id arm) override { return search(arm); }

  void add(Id arm) override {
    if (!(cachedValid_ && cachedArm_ == arm)) search(arm);
    // Flip the path: walk back from the free right vertex to `arm`.
    std::uint32_t right = cachedFreeRight_;
    for (;;) {
      const std::uint32_t from = cameFrom_[right];
      const std::uint32_t previousRight = matchOfArm_[from];
      matchOfRight_[right] = from;
      matchOfArm_[from] = right;
      if (from == arm) break;
      right = previousRight;
    }
    held_.push_back(arm);
    cachedValid_ = false;
  }

  void clear() override {
    for (const Id arm : held_) {
      matchOfRight_[matchOfArm_[arm]] = kUnmatched;
      matchOfArm_[arm] = kUnmatched;
    }
    held_.clear();
    cachedValid_ = false;
  }

  std::size_t size() const override { return held_.size(); }

 private:
  bool search(Id start) {
    if (++epoch_ == 0) {  // the stamps wrapped around: forget them all once
      std::fill(seen_.begin(), seen_.end(), 0);
      epoch_ = 1;
    }
    queue_.clear();
    queue_.push_back(start);
    const auto& rights = matroid_.rights();
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const Id arm = queue_[head];
      for (std::size_t e = matroid_.edgeStart(arm); e < matroid_.edgeStart(arm + 1); ++e) {
        const std::uint32_t right = rights[e];
        if (seen_[right] == epoch_) continue;
        seen_[right] = epoch_;
        cameFrom_[right] = arm;
        if (matchOfRight_[right] == kUnmatched) {
          cachedValid_ = true;
          cachedArm_ = start;
          cachedFreeRight_ = right;
          return true;
        }
        queue_.push_back(matchOfRight_[right]);
      }
    }
    cachedValid_ = false;
    return false;
  }

  const TransversalMatroid& matroid_;
  std::vector<std::uint32_t> matchOfRight_;
  std::vector<std::uint32_t> matchOfArm_;
  std::vector<std::uint32_t> seen_;
  std::vector<std::uint32_t> cameFrom_;
  std::vector<Id> queue_;
  std::vector<Id> held_;
  std::uint32_t epoch_ = 0;
  bool cachedValid_ = false;
  Id cachedArm_ = 0;
  std::uint32_t cachedFreeRight_ = 0;
};
}  // namespace

TransversalMatroid::TransversalMatroid(std::size_t groundSetSize, std::size_t numRight, const std::vector<std::uint32_t>& edges)
    : numRight_(numRight) {
  if (groundSetSize < 1 || groundSetSize > 0xffffffffULL) fail(ErrorCode::InvalidArgument, "a transversal matroid needs K >= 1 arms");
  if (numRight < 1 || numRight > 0xffffffffULL) fail(ErrorCode::InvalidArgument, "a transversal matroid needs numRight >= 1 right vertices");
  if (groundSetSize > kMaxMatroidVertices) {
    fail(ErrorCode::InvalidArgument, "a transversal matroid has at most 2^28 arms (K), got " + std::to_string(groundSetSize));
  }
  if (numRight > kMaxMatroidVertices) {
    fail(ErrorCode::InvalidArgument, "a transversal matroid has at most 2^28 right vertices (numRight), got " + std::to_string(numRight));
  }
  if (edges.size() % 2 != 0) fail(ErrorCode::DimensionMismatch, "edges must hold pairs [arm0, right0, arm1, right1, ...]");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  pairs.reserve(edges.size() / 2);
  for (std::size_t i = 0; i < edges.size(); i += 2) {
    if (edges[i] >= groundSetSize) {
      fail(ErrorCode::InvalidArgument, "edge " + std::to_string(i / 2) + " names arm " + std::to_string(edges[i]) + ", not below K = " + std::to_string(groundSetSize));
    }
    if (edges[i + 1] >= numRight) {
      fail(ErrorCode::InvalidArgument, "edge " + std::to_string(i / 2) + " names right vertex " + std::to_string(edges[i + 1]) +
                                           ", not below numRight = " + std::to_string(numRight));
    }
    pairs.emplace_back(edges[i], edges[i + 1]);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  edgeStart_.assign(groundSetSize + 1, 0);
  right_.reserve(pairs.size());
  for (const auto& [arm, right] : pairs) {
    ++edgeStart_[arm + 1];
    right_.push_back(right);
  }
  for (std::size_t k = 0; k < groundSetSize; ++k) edgeStart_[k + 1] += edgeStart_[k];
  auto oracle = makeOracle();
  for (Id arm = 0; arm < groundSetSize; ++arm) {
    if (oracle->canAdd(arm)) oracle->add(arm);
  }
  rank_ = oracle->size();
  if (rank_ == 0) fail(ErrorCode::InvalidArgument, "a transversal matroid needs at least one edge");
}

std::unique_ptr<IndependenceOracle> TransversalMatroid::makeOracle() const { return std::make_unique<MatchingOracle>(*this); }

std::vector<std::uint32_t> TransversalMatroid::armClasses() const {
  // Neighbour lists are sorted and merged (CSR built from sorted pairs), so equal sets are equal lists.
  std::map<std::vector<std::uint32_t>, std::uint32_t> classOfNeighbours;
  std::vector<std::uint32_t> classes(groundSetSize());
  for (Id arm = 0; arm < classes.size(); ++arm) {
    std::vector<std::uint32_t> neighbours(right_.begin() + static_cast<std::ptrdiff_t>(edgeStart_[arm]),
                                          right_.begin() + static_cast<std::ptrdiff_t>(edgeStart_[arm + 1]));
    classes[arm] = classOfNeighbours.emplace(std::move(neighbours), static_cast<std::uint32_t>(classOfNeighbours.size())).first->second;
  }
  return classes;
}

void TransversalMatroid::save(StateWriter& out) const {
  // Right vertices without edges match nothing: only the touched ones are numbered, in their order
  // (so neighbour lists and searches run as before), and loadMatroid bounds their count by the edges.
  std::vector<std::uint32_t> touched = right_;
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<std::uint32_t> edges;
  edges.reserve(2 * right_.size());
  for (std::size_t arm = 0; arm + 1 < edgeStart_.size(); ++arm) {
    for (std::size_t e = edgeStart_[arm]; e < edgeStart_[arm + 1]; ++e) {
      edges.push_back(static_cast<std::uint32_t>(arm));
      edges.push_back(static_cast<std::uint32_t>(std::lower_bound(touched.begin(), touched.end(), right_[e]) - touched.begin()));
    }
  }
  out.string(kind());
  out.u64(groundSetSize());
  out.u64(touched.size());
  out.u32s(edges.data(), edges.size());
}

}  // namespace sublinear
