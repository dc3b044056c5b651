#include "sublinear/linear/uncertainty_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sublinear {

namespace {
constexpr int kPerOctave = 64;
// Exponents below kLowestExponent share bucket 0 and above kHighestExponent the last bucket
// (||x||_{V^-1} of arms whose norm is within 2^+-40 of sqrt(lambda) falls between them).
constexpr int kLowestExponent = -40;
constexpr int kHighestExponent = 40;
constexpr std::size_t kBuckets = static_cast<std::size_t>(kHighestExponent - kLowestExponent + 1) * kPerOctave;
}  // namespace

std::size_t UncertaintyBounds::bucketOf(double bound) {
  if (!(bound > 0.0)) return 0;
  int exponent = 0;
  const double mantissa = std::frexp(bound, &exponent);  // bound = mantissa 2^exponent, mantissa in [0.5, 1)
  if (exponent < kLowestExponent) return 0;
  if (exponent > kHighestExponent) return kBuckets - 1;
  const auto part = static_cast<std::size_t>((mantissa - 0.5) * (2 * kPerOctave));
  return static_cast<std::size_t>(exponent - kLowestExponent) * kPerOctave + std::min<std::size_t>(part, kPerOctave - 1);
}

double UncertaintyBounds::upperEdge(std::size_t bucket) {
  if (bucket + 1 == kBuckets) return std::numeric_limits<double>::infinity();
  const int exponent = static_cast<int>(bucket / kPerOctave) + kLowestExponent;
  const double part = static_cast<double>(bucket % kPerOctave + 1);
  // Bucket 0 also holds every smaller exponent: its edge is still the top of its own range.
  return std::ldexp(0.5 + part / (2 * kPerOctave), exponent);
}

void UncertaintyBounds::push(double bound, Id id) {
  const std::size_t bucket = bucketOf(bound);
  if (buckets_.empty()) {
    lowest_ = bucket;
    top_ = bucket;
  } else if (bucket < lowest_) {
    buckets_.insert(buckets_.begin(), lowest_ - bucket, std::vector<Entry>());
    lowest_ = bucket;
  }
  if (bucket - lowest_ >= buckets_.size()) buckets_.resize(bucket - lowest_ + 1);
  buckets_[bucket - lowest_].emplace_back(bound, id);
  ++size_;
  top_ = std::max(top_, bucket);
}

UncertaintyBounds::Entry UncertaintyBounds::pop() {
  std::vector<Entry>& bucket = buckets_[top_ - lowest_];
  const Entry entry = bucket.back();
  bucket.pop_back();
  --size_;
  if (bucket.empty()) {
    // The values only fall, so entries sweep down through the buckets: the emptied ones above the
    // highest entry go, storage and all, or every bucket ever passed would keep its largest size.
    while (top_ > lowest_ && buckets_[top_ - lowest_].empty()) --top_;
    buckets_.resize(size_ == 0 ? 0 : top_ - lowest_ + 1);
  }
  return entry;
}

double UncertaintyBounds::largestBound() const { return size_ == 0 ? 0.0 : upperEdge(top_); }

std::vector<UncertaintyBounds::Entry> UncertaintyBounds::entries() const {
  std::vector<Entry> all;
  all.reserve(size_);
  for (const auto& bucket : buckets_) all.insert(all.end(), bucket.begin(), bucket.end());
  return all;
}

void UncertaintyBounds::restore(const std::vector<Entry>& entries) {
  buckets_.clear();
  size_ = 0;
  for (const Entry& entry : entries) push(entry.first, entry.second);
}

}  // namespace sublinear
