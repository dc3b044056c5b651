#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// Upper bounds on the arms' ||x||_{V^-1}, for a search that takes the largest bounds first
// (Sub-Elim's boundsFirst). A binary heap would order them exactly, but at 10^6 entries each pop
// misses the cache a dozen times (about 1 us in wasm); here a bound goes into a bucket by its value
// (64 buckets per octave, each at most 1.6% wide) and push and pop work at a bucket's end (a push
// below every bucket held first opens the buckets between, a few hundred at most). The price is the
// order inside a bucket: a search is certified against the upper edge of the highest
// non-empty bucket (largestBound()), never against a bound below it.
//
// The bucket of a value comes from its binary exponent and mantissa (std::frexp): exact, so native
// and wasm builds fill the same buckets in the same order.
class UncertaintyBounds {
 public:
  using Entry = std::pair<double, Id>;

  void push(double bound, Id id);
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // An entry of the highest non-empty bucket (the one pushed last); precondition: !empty().
  Entry pop();
  // The buckets it keeps storage for (tests: the memory follows the entries, not their history).
  std::size_t bucketsHeld() const { return buckets_.size(); }
  // No entry's bound exceeds this: the upper edge of the highest non-empty bucket (0 when empty).
  double largestBound() const;

  // Every entry, bucket by bucket from the lowest, each bucket in push order: restore() of this list
  // gives the same buckets.
  std::vector<Entry> entries() const;
  void restore(const std::vector<Entry>& entries);
  // Keeps the entries `keep` accepts, in their order.
  template <class Keep>
  void retain(Keep keep) {
    std::vector<Entry> kept;
    kept.reserve(size_);
    for (const Entry& entry : entries()) {
      if (keep(entry)) kept.push_back(entry);
    }
    restore(kept);
  }

 private:
  static std::size_t bucketOf(double bound);
  static double upperEdge(std::size_t bucket);

  // Buckets lowest_ .. lowest_ + buckets_.size() - 1 only: a stage's values span a few octaves of
  // the thousands of buckets, and a policy keeps one set of bounds per stage.
  std::vector<std::vector<Entry>> buckets_;
  std::size_t lowest_ = 0;
  std::size_t size_ = 0;
  // The highest non-empty bucket (meaningless when empty).
  std::size_t top_ = 0;
};

}  // namespace sublinear
