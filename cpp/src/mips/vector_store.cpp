#include "sublinear/mips/vector_store.hpp"

#include <algorithm>

#include "sublinear/mips/inner_product.hpp"

namespace sublinear {

VectorStore::VectorStore(std::size_t dim) : RowStore<float>(dim, paddedDimension(dim)) {}

void VectorStore::pad(const float* vector, float* out) const {
  std::copy(vector, vector + dim(), out);
  std::fill(out + dim(), out + stride(), 0.0f);
}

}  // namespace sublinear
