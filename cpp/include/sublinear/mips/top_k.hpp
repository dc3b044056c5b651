#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

// Keeps the k best (score, id) pairs seen; better means a higher score, then a smaller id. A heap
// with the worst kept on top, in a vector that reset() keeps, so that a ranking done at every
// search (MipsIndex::rankExactly) allocates nothing once it has grown.
class TopK {
 public:
  explicit TopK(std::size_t k = 0) : k_(k) {}

  static bool better(float scoreA, Id idA, float scoreB, Id idB) {
    return scoreA > scoreB || (scoreA == scoreB && idA < idB);
  }

  // Empty again, for the k best, keeping the memory.
  void reset(std::size_t k) {
    k_ = k;
    heap_.clear();
  }

  void push(float score, Id id) {
    if (heap_.size() < k_) {
      heap_.emplace_back(score, id);
      std::push_heap(heap_.begin(), heap_.end(), Worse{});
    } else if (k_ > 0 && better(score, id, heap_.front().first, heap_.front().second)) {
      std::pop_heap(heap_.begin(), heap_.end(), Worse{});
      heap_.back() = {score, id};
      std::push_heap(heap_.begin(), heap_.end(), Worse{});
    }
  }

  // Whether `score` could enter (cheap pre-check for scans).
  bool admits(float score) const { return heap_.size() < k_ || score >= heap_.front().first; }

  // Best first, sorted in place: push() again only after reset().
  const std::vector<std::pair<float, Id>>& sorted() {
    std::sort_heap(heap_.begin(), heap_.end(), Worse{});
    return heap_;
  }

  // Best first, moved out (the TopK is empty after it).
  std::vector<std::pair<float, Id>> take() {
    sorted();
    std::vector<std::pair<float, Id>> result = std::move(heap_);
    heap_.clear();
    return result;
  }

  // The kept memory back to the allocator (after an unusually long ranking).
  void release() { heap_ = {}; }

 private:
  // The heap's order: a pair "less" than another is the better one, so the top is the worst kept.
  struct Worse {
    bool operator()(const std::pair<float, Id>& a, const std::pair<float, Id>& b) const {
      return better(a.first, a.second, b.first, b.second);
    }
  };
  std::size_t k_;
  std::vector<std::pair<float, Id>> heap_;
};

}  // namespace sublinear
