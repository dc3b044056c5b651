#include "sublinear/matroid/graphic_matroid.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "sublinear/core/state_codec.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
// Appendix C: union-find over the vertices (union by size, path halving), T_member = O(log K) and
// in practice near-constant. clear() resets only the vertices it touched.
class ForestOracle : public IndependenceOracle {
 public:
  explicit ForestOracle(const GraphicMatroid& graph) : graph_(graph), parent_(graph.numVertices()), size_(graph.numVertices(), 1) {
    for (std::size_t v = 0; v < parent_.size(); ++v) parent_[v] = static_cast<std::uint32_t>(v);
  }
  bool canAdd(Id arm) override { return find(graph_.tail(arm)) != find(graph_.head(arm)); }
  void add(Id arm) override {
    std::uint32_t u = find(graph_.tail(arm));
    std::uint32_t v = find(graph_.head(arm));
    if (size_[u] < size_[v]) std::swap(u, v);
    parent_[v] = u;
    size_[u] += size_[v];
    touched_.push_back(graph_.tail(arm));
    touched_.push_back(graph_.head(arm));
    ++edges_;
  }
  void clear() override {
    // A forest's trees contain only endpoints of added edges, so resetting those restores the
    // singletons in O(size) rather than O(|V|).
    for (const std::uint32_t v : touched_) {
      parent_[v] = v;
      size_[v] = 1;
    }
    touched_.clear();
    edges_ = 0;
  }
  std::size_t size() const override { return edges_; }

 private:
  std::uint32_t find(std::uint32_t v) {
    while (parent_[v] != v) {
      parent_[v] = parent_[parent_[v]];
      v = parent_[v];
    }
    return v;
  }

  const GraphicMatroid& graph_;
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> size_;
  std::vector<std::uint32_t> touched_;
  std::size_t edges_ = 0;
};
}  // namespace

GraphicMatroid::GraphicMatroid(std::size_t numVertices, std::vector<std::uint32_t> edges)
    : numVertices_(numVertices), endpoints_(std::move(edges)) {
  if (numVertices < 1 || numVertices > 0xffffffffULL) fail(ErrorCode::InvalidArgument, "a graphic matroid needs at least one vertex");
  if (numVertices > kMaxMatroidVertices) {
    fail(ErrorCode::InvalidArgument, "a graphic matroid has at most 2^28 vertices (numVertices), got " + std::to_string(numVertices));
  }
  if (endpoints_.size() % 2 != 0) fail(ErrorCode::DimensionMismatch, "edges must hold pairs [u0, v0, u1, v1, ...]");
  if (endpoints_.empty()) fail(ErrorCode::InvalidArgument, "a graphic matroid needs at least one edge");
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    if (endpoints_[i] >= numVertices) {
      fail(ErrorCode::InvalidArgument, "edge " + std::to_string(i / 2) + " has endpoint " + std::to_string(endpoints_[i]) +
                                           ", not below numVertices = " + std::to_string(numVertices));
    }
  }
  // Isolated vertices change no forest: the endpoints are renumbered in their order over the touched
  // vertices only, so that the union-find's memory follows the edges, not numVertices (2^28 vertices
  // would be 2 GiB), and every oracle answers as before. save() writes the same numbering.
  std::vector<std::uint32_t> touched = endpoints_;
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (auto& endpoint : endpoints_) {
    endpoint = static_cast<std::uint32_t>(std::lower_bound(touched.begin(), touched.end(), endpoint) - touched.begin());
  }
  numVertices_ = touched.size();
  auto oracle = makeOracle();
  for (Id arm = 0; arm < groundSetSize(); ++arm) {
    if (oracle->canAdd(arm)) oracle->add(arm);
  }
  rank_ = oracle->size();
}

std::unique_ptr<IndependenceOracle> GraphicMatroid::makeOracle() const { return std::make_unique<ForestOracle>(*this); }

std::vector<std::uint32_t> GraphicMatroid::armClasses() const {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> classOfEndpoints;
  std::vector<std::uint32_t> classes(groundSetSize());
  for (Id arm = 0; arm < classes.size(); ++arm) {
    const std::uint32_t u = tail(arm), v = head(arm);
    const std::pair<std::uint32_t, std::uint32_t> endpoints{std::min(u, v), std::max(u, v)};
    classes[arm] = classOfEndpoints.emplace(endpoints, static_cast<std::uint32_t>(classOfEndpoints.size())).first->second;
  }
  return classes;
}

void GraphicMatroid::save(StateWriter& out) const {
  // The endpoints are numbered over the touched vertices (the constructor), and loadMatroid bounds
  // the vertex count by the edges.
  out.string(kind());
  out.u64(numVertices_);
  out.u32s(endpoints_.data(), endpoints_.size());
}

}  // namespace sublinear
