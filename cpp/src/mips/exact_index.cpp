#include "sublinear/mips/exact_index.hpp"

#include "sublinear/mips/inner_product.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

std::vector<ItemId> ExactIndex::candidates(const float* paddedQuery, std::size_t count) {
  TopK best(count);
  const std::size_t stride = items_.stride();
  for (std::size_t row = 0; row < items_.size(); ++row) {
    const float score = innerProduct(items_.rowData(row), paddedQuery, stride);
    if (best.admits(score)) best.push(score, items_.idAt(row));
  }
  countInnerProducts(static_cast<double>(items_.size()));
  std::vector<ItemId> ids;
  ids.reserve(count);
  for (const auto& entry : best.take()) ids.push_back(entry.second);
  return ids;
}

}  // namespace sublinear
