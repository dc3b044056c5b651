#include "sublinear/mips/exact_index.hpp"

#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

std::vector<ItemId> ExactIndex::candidates(const float* paddedQuery, std::size_t count) {
  TopK best(count);
  const std::size_t stride = items_.stride();
  const std::size_t rows = items_.size();
  // Four rows per step (bit-identical to innerProduct per row, see lane_kernels.hpp): the scan is
  // bound by memory, and this keeps the query in registers and the loop free of calls.
  float scores[4];
  std::size_t row = 0;
  for (; row + 4 <= rows; row += 4) {
    lanes::innerProducts4(items_.rowData(row), paddedQuery, stride, scores);
    for (std::size_t r = 0; r < 4; ++r) {
      if (best.admits(scores[r])) best.push(scores[r], items_.idAt(row + r));
    }
  }
  for (; row < rows; ++row) {
    const float score = lanes::innerProduct(items_.rowData(row), paddedQuery, stride);
    if (best.admits(score)) best.push(score, items_.idAt(row));
  }
  countInnerProducts(static_cast<double>(rows));
  std::vector<ItemId> ids;
  ids.reserve(count);
  for (const auto& entry : best.take()) ids.push_back(entry.second);
  return ids;
}

}  // namespace sublinear
