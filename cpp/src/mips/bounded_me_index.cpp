#include "sublinear/mips/bounded_me_index.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

namespace {
// <a, b> over `count` contiguous floats from any offset: two four-lane accumulators (two f32x4 in
// wasm, the same eight lanes in scalar form natively, so both builds agree bit for bit; two chains
// halve the add latency that bounds these short loops), then the tail in order.
float partialProduct(const float* a, const float* b, std::size_t count) {
  std::size_t i = 0;
  float total;
#ifdef __wasm_simd128__
  v128_t even = wasm_f32x4_splat(0.0f), odd = wasm_f32x4_splat(0.0f);
  for (; i + 8 <= count; i += 8) {
    even = wasm_f32x4_add(even, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    odd = wasm_f32x4_add(odd, wasm_f32x4_mul(wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4)));
  }
  if (i + 4 <= count) {
    even = wasm_f32x4_add(even, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    i += 4;
  }
  const v128_t sum = wasm_f32x4_add(even, odd);
  total = (wasm_f32x4_extract_lane(sum, 0) + wasm_f32x4_extract_lane(sum, 1)) +
          (wasm_f32x4_extract_lane(sum, 2) + wasm_f32x4_extract_lane(sum, 3));
#else
  float even[4] = {0.0f, 0.0f, 0.0f, 0.0f}, odd[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (; i + 8 <= count; i += 8) {
    for (std::size_t l = 0; l < 4; ++l) even[l] += a[i + l] * b[i + l];
    for (std::size_t l = 0; l < 4; ++l) odd[l] += a[i + 4 + l] * b[i + 4 + l];
  }
  if (i + 4 <= count) {
    for (std::size_t l = 0; l < 4; ++l) even[l] += a[i + l] * b[i + l];
    i += 4;
  }
  float sum[4];
  for (std::size_t l = 0; l < 4; ++l) sum[l] = even[l] + odd[l];
  total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
#endif
  for (; i < count; ++i) total += a[i] * b[i];
  return total;
}
}  // namespace

BoundedMEIndex::BoundedMEIndex(std::size_t dim, const Json& options)
    : MipsIndex(dim),
      solver_(readOption(option_groups::boundedMe(), options, "epsilon"), readOption(option_groups::boundedMe(), options, "delta")),
      random_(readSeedOption(option_groups::boundedMe(), options)) {
  sigma_.resize(dim);
  for (std::size_t c = 0; c < dim; ++c) sigma_[c] = static_cast<std::uint32_t>(c);
  random_.shuffle(sigma_);
  low_.assign(dim, std::numeric_limits<float>::infinity());
  high_.assign(dim, -std::numeric_limits<float>::infinity());
  permutedQuery_.assign(dim, 0.0f);
  blockOrder_.resize((dim + kBlock - 1) / kBlock);
  panels_.resize(blockOrder_.size());
}

void BoundedMEIndex::onAdd(const Id* ids, std::size_t count) {
  // Reserve first: the scatter below then cannot fail halfway.
  const std::size_t rows = rowIds_.size() + count;
  for (std::size_t p = 0; p < panels_.size(); ++p) panels_[p].reserve(rows * panelWidth(p));
  rowIds_.reserve(rows);
  rowOf_.reserve(rows);
  for (std::size_t i = 0; i < count; ++i) {
    const float* vector = items_.vectorOf(ids[i]);
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      for (std::size_t c = p * kBlock, end = c + panelWidth(p); c < end; ++c) {
        const float value = vector[sigma_[c]];
        panels_[p].push_back(value);
        low_[c] = std::min(low_[c], value);
        high_[c] = std::max(high_[c], value);
      }
    }
    rowOf_[ids[i]] = rowIds_.size();
    rowIds_.push_back(ids[i]);
  }
}

void BoundedMEIndex::onRemove(const Id* ids, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = rowOf_.at(ids[i]), last = rowIds_.size() - 1;
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      const std::size_t width = panelWidth(p);
      auto& panel = panels_[p];
      std::copy(panel.begin() + static_cast<std::ptrdiff_t>(last * width), panel.end(), panel.begin() + static_cast<std::ptrdiff_t>(row * width));
      panel.resize(last * width);
    }
    rowIds_[row] = rowIds_[last];
    rowOf_[rowIds_[row]] = row;
    rowIds_.pop_back();
    rowOf_.erase(ids[i]);
  }
  // The bounds stay valid (only looser); recompute once as many items left as remain, so the scan
  // costs O(dim) per removal amortised.
  removalsSinceBounds_ += count;
  if (removalsSinceBounds_ >= rowIds_.size()) boundsStale_ = true;
}

void BoundedMEIndex::recomputeBounds() {
  std::fill(low_.begin(), low_.end(), std::numeric_limits<float>::infinity());
  std::fill(high_.begin(), high_.end(), -std::numeric_limits<float>::infinity());
  for (std::size_t p = 0; p < panels_.size(); ++p) {
    const std::size_t width = panelWidth(p);
    for (std::size_t r = 0; r < rowIds_.size(); ++r) {
      for (std::size_t c = 0; c < width; ++c) {
        const float value = panels_[p][r * width + c];
        low_[p * kBlock + c] = std::min(low_[p * kBlock + c], value);
        high_[p * kBlock + c] = std::max(high_[p * kBlock + c], value);
      }
    }
  }
  removalsSinceBounds_ = 0;
  boundsStale_ = false;
}

void BoundedMEIndex::segmentsFor(std::size_t from, std::size_t to, std::vector<Segment>& out) const {
  out.clear();
  // Walk the query's panel order; only the panel holding the last columns is narrower than kBlock.
  std::size_t position = 0;
  for (const std::uint32_t panel : blockOrder_) {
    const std::size_t width = panelWidth(panel);
    const std::size_t lo = std::max(from, position), hi = std::min(to, position + width);
    if (lo < hi) out.push_back({panel, lo - position, hi - position});
    position += width;
    if (position >= to) break;
  }
}

std::vector<Id> BoundedMEIndex::candidates(const float* paddedQuery, std::size_t count) {
  const std::size_t n = rowIds_.size();
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

  if (count >= n) return rowIds_;
  for (std::size_t b = 0; b < blockOrder_.size(); ++b) blockOrder_[b] = static_cast<std::uint32_t>(b);
  random_.shuffle(blockOrder_);

  const auto pullRound = [&](const std::vector<std::size_t>& rows, std::size_t from, std::size_t to, std::vector<double>& sums) {
    segmentsFor(from, to, segments_);
    for (const Segment& segment : segments_) {
      const std::size_t width = panelWidth(segment.panel), length = segment.end - segment.begin;
      const float* base = panels_[segment.panel].data() + segment.begin;
      const float* query = permutedQuery_.data() + segment.panel * kBlock + segment.begin;
      for (const std::size_t row : rows) sums[row] += partialProduct(base + row * width, query, length);
    }
  };
  const BoundedMESolver::Result result = solver_.solveRounds(n, dim(), count, pullRound);
  pulls_ += result.pulls;
  rounds_ += result.rounds;
  pullsNotCounted_ += result.pulls;
  countInnerProducts(static_cast<double>(pullsNotCounted_ / dim()));
  pullsNotCounted_ %= dim();
  std::vector<Id> ids;
  ids.reserve(result.arms.size());
  for (const std::size_t row : result.arms) ids.push_back(rowIds_[row]);
  return ids;
}

// The panels are not saved: rowIds_ follows the store's row order (both append, and both move the
// last row into a removed one's place), so the panels are the stored rows permuted by sigma_, which
// the seed fixes; rebuilding them is one O(n dim) pass, like reading them. The solver holds only
// epsilon and delta (options); sigma_ comes from the seed, and random_ is saved after it.
void BoundedMEIndex::saveStructure(StateWriter& out) const {
  out.random(random_);
  out.f32s(low_.data(), low_.size());
  out.f32s(high_.data(), high_.size());
  out.u64(removalsSinceBounds_);
  out.u8(boundsStale_ ? 1 : 0);
  out.u64(pulls_);
  out.u64(pullsNotCounted_);
  out.u64(rounds_);
  out.f64(lastRewardLow_);
  out.f64(lastRewardHigh_);
}

void BoundedMEIndex::loadStructure(StateReader& in) {
  in.random(random_);
  low_ = in.f32s();
  high_ = in.f32s();
  in.check(low_.size() == dim() && high_.size() == dim(), "bounded-me: the column bounds have the wrong length");
  for (std::size_t c = 0; c < dim(); ++c) {
    // Infinite only where no item was ever added: +inf as a lower bound, -inf as an upper one.
    in.check(!std::isnan(low_[c]) && low_[c] != -std::numeric_limits<float>::infinity() && !std::isnan(high_[c]) &&
                 high_[c] != std::numeric_limits<float>::infinity(),
             "bounded-me: a column bound is not a number or infinite the wrong way");
  }
  removalsSinceBounds_ = in.u64();
  const std::uint8_t stale = in.u8();
  in.check(stale <= 1, "bounded-me: bad stale-bounds flag");
  boundsStale_ = stale == 1;
  in.check(boundsStale_ || removalsSinceBounds_ == 0 || removalsSinceBounds_ < size(), "bounded-me: bounds are due to be recomputed but not marked stale");
  pulls_ = in.u64();
  pullsNotCounted_ = in.u64();
  in.check(pullsNotCounted_ < dim(), "bounded-me: the carried pulls reach a full inner product");
  rounds_ = in.u64();
  lastRewardLow_ = in.f64();
  lastRewardHigh_ = in.f64();
  in.check(std::isfinite(lastRewardLow_) && std::isfinite(lastRewardHigh_), "bounded-me: the last reward range is not finite");

  const std::size_t n = size();
  for (std::size_t p = 0; p < panels_.size(); ++p) panels_[p].reserve(n * panelWidth(p));
  rowIds_.reserve(n);
  rowOf_.reserve(n);
  for (std::size_t row = 0; row < n; ++row) {
    const float* vector = items_.rowData(row);
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      for (std::size_t c = p * kBlock, end = c + panelWidth(p); c < end; ++c) {
        const float value = vector[sigma_[c]];
        // Bounds may be loose after removals, never tight enough to exclude a stored value.
        in.check(low_[c] <= value && value <= high_[c], "bounded-me: a stored value lies outside its column's bounds");
        panels_[p].push_back(value);
      }
    }
    rowOf_[items_.idAt(row)] = row;
    rowIds_.push_back(items_.idAt(row));
  }
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
