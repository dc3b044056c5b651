#pragma once

#include <cstddef>
#include <queue>
#include <utility>
#include <vector>

#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

// Keeps the k best (score, id) pairs seen; better means a higher score, then a smaller id.
class TopK {
 public:
  explicit TopK(std::size_t k) : k_(k) {}

  static bool better(float scoreA, Id idA, float scoreB, Id idB) {
    return scoreA > scoreB || (scoreA == scoreB && idA < idB);
  }

  void push(float score, Id id) {
    if (heap_.size() < k_) {
      heap_.emplace(score, id);
    } else if (k_ > 0 && better(score, id, heap_.top().first, heap_.top().second)) {
      heap_.pop();
      heap_.emplace(score, id);
    }
  }

  // Whether `score` could enter (cheap pre-check for scans).
  bool admits(float score) const { return heap_.size() < k_ || score >= heap_.top().first; }

  // Best first.
  std::vector<std::pair<float, Id>> take();

 private:
  struct Worse {
    bool operator()(const std::pair<float, Id>& a, const std::pair<float, Id>& b) const {
      return better(a.first, a.second, b.first, b.second);
    }
  };
  std::size_t k_;
  std::priority_queue<std::pair<float, Id>, std::vector<std::pair<float, Id>>, Worse> heap_;
};

}  // namespace sublinear
