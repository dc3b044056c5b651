#include "sublinear/mips/bounded_me_index.hpp"

#include <algorithm>
#include <limits>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace sublinear {

namespace {
// <a, b> over `count` contiguous floats from any offset: four lanes (f32x4 in wasm, the same lanes
// in scalar form natively, so both builds agree bit for bit), then the tail in order.
float partialProduct(const float* a, const float* b, std::size_t count) {
  std::size_t i = 0;
  float total;
#ifdef __wasm_simd128__
  v128_t sum = wasm_f32x4_splat(0.0f);
  for (; i + 4 <= count; i += 4) sum = wasm_f32x4_add(sum, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  total = (wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1)) +
          (wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3));
#else
  float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (; i + 4 <= count; i += 4) {
    for (std::size_t l = 0; l < 4; ++l) lane[l] += a[i + l] * b[i + l];
  }
  total = (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
  for (; i < count; ++i) total += a[i] * b[i];
  return total;
}
}  // namespace

BoundedMEIndex::BoundedMEIndex(std::size_t dim, double epsilon, double delta, std::uint64_t seed)
    : MipsIndex(dim), solver_(epsilon, delta), random_(seed), permuted_(dim) {
  sigma_.resize(dim);
  for (std::size_t c = 0; c < dim; ++c) sigma_[c] = static_cast<std::uint32_t>(c);
  random_.shuffle(sigma_);
  low_.assign(dim, std::numeric_limits<float>::infinity());
  high_.assign(dim, -std::numeric_limits<float>::infinity());
  permutedQuery_.assign(permuted_.stride(), 0.0f);
  blockOrder_.resize((dim + kBlock - 1) / kBlock);
}

void BoundedMEIndex::onAdd(const ItemId* ids, std::size_t count) {
  std::vector<float> row(dim());
  std::size_t added = 0;
  try {
    permuted_.reserve(permuted_.size() + count);
    for (; added < count; ++added) {
      const float* vector = items_.vectorOf(ids[added]);
      for (std::size_t c = 0; c < dim(); ++c) row[c] = vector[sigma_[c]];
      permuted_.add(ids[added], row.data());
      for (std::size_t c = 0; c < dim(); ++c) {
        low_[c] = std::min(low_[c], row[c]);
        high_[c] = std::max(high_[c], row[c]);
      }
    }
  } catch (...) {
    for (std::size_t i = 0; i < added; ++i) permuted_.remove(ids[i]);
    throw;
  }
}

void BoundedMEIndex::onRemove(const ItemId* ids, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) permuted_.remove(ids[i]);
  // The bounds stay valid (only looser); recompute once as many items left as remain, so the scan
  // costs O(dim) per removal amortised.
  removalsSinceBounds_ += count;
  if (removalsSinceBounds_ >= permuted_.size()) boundsStale_ = true;
}

void BoundedMEIndex::recomputeBounds() {
  std::fill(low_.begin(), low_.end(), std::numeric_limits<float>::infinity());
  std::fill(high_.begin(), high_.end(), -std::numeric_limits<float>::infinity());
  for (std::size_t r = 0; r < permuted_.size(); ++r) {
    const float* row = permuted_.rowData(r);
    for (std::size_t c = 0; c < dim(); ++c) {
      low_[c] = std::min(low_[c], row[c]);
      high_[c] = std::max(high_[c], row[c]);
    }
  }
  removalsSinceBounds_ = 0;
  boundsStale_ = false;
}

const std::vector<std::pair<std::size_t, std::size_t>>& BoundedMEIndex::segmentsFor(std::size_t from, std::size_t to) {
  if (segmentRange_ == std::make_pair(from, to)) return segments_;
  segments_.clear();
  segmentRange_ = {from, to};
  // Walk the query's block order; only the block holding the last columns is shorter than kBlock.
  std::size_t position = 0;
  for (const std::uint32_t block : blockOrder_) {
    const std::size_t begin = block * kBlock;
    const std::size_t length = std::min(kBlock, dim() - begin);
    const std::size_t lo = std::max(from, position), hi = std::min(to, position + length);
    if (lo < hi) segments_.emplace_back(begin + (lo - position), begin + (hi - position));
    position += length;
    if (position >= to) break;
  }
  return segments_;
}

std::vector<ItemId> BoundedMEIndex::candidates(const float* paddedQuery, std::size_t count) {
  const std::size_t n = permuted_.size();
  if (boundsStale_) recomputeBounds();
  for (std::size_t c = 0; c < dim(); ++c) permutedQuery_[c] = paddedQuery[sigma_[c]];
  // The reward range for this query, which fixes the scale of epsilon.
  double rewardLow = std::numeric_limits<double>::infinity(), rewardHigh = -rewardLow;
  for (std::size_t c = 0; c < dim(); ++c) {
    const double a = static_cast<double>(permutedQuery_[c]) * low_[c], b = static_cast<double>(permutedQuery_[c]) * high_[c];
    rewardLow = std::min({rewardLow, a, b});
    rewardHigh = std::max({rewardHigh, a, b});
  }
  lastRewardLow_ = rewardLow;
  lastRewardHigh_ = rewardHigh;

  std::vector<ItemId> ids;
  if (count >= n) {
    ids = permuted_.ids();
    return ids;
  }
  for (std::size_t b = 0; b < blockOrder_.size(); ++b) blockOrder_[b] = static_cast<std::uint32_t>(b);
  random_.shuffle(blockOrder_);
  segmentRange_ = {0, 0};
  segments_.clear();

  const BoundedMESolver::Result result = solver_.solve(n, dim(), count, [&](std::size_t row, std::size_t from, std::size_t to) {
    const float* x = permuted_.rowData(row);
    double sum = 0.0;
    for (const auto& [begin, end] : segmentsFor(from, to)) sum += partialProduct(x + begin, permutedQuery_.data() + begin, end - begin);
    return sum;
  });
  pulls_ += result.pulls;
  rounds_ += result.rounds;
  pullsNotCounted_ += result.pulls;
  countInnerProducts(static_cast<double>(pullsNotCounted_ / dim()));
  pullsNotCounted_ %= dim();
  ids.reserve(result.arms.size());
  for (const std::size_t row : result.arms) ids.push_back(permuted_.idAt(row));
  return ids;
}

Json BoundedMEIndex::stats() const {
  Json stats = MipsIndex::stats();
  stats["pulls"] = pulls_;
  stats["rounds"] = rounds_;
  stats["epsilon"] = solver_.epsilon();
  stats["delta"] = solver_.delta();
  stats["rewardLow"] = lastRewardLow_;
  stats["rewardHigh"] = lastRewardHigh_;
  stats["suboptimalityBound"] = solver_.epsilon() * (lastRewardHigh_ - lastRewardLow_) * static_cast<double>(dim());
  return stats;
}

}  // namespace sublinear
