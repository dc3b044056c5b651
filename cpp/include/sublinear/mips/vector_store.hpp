#pragma once

#include <cstddef>

#include "sublinear/core/row_store.hpp"

namespace sublinear {

// The items of an index: float rows zero-padded to the SIMD lane width (paddedDimension), in the
// blocks of RowStore.
class VectorStore : public RowStore<float> {
 public:
  explicit VectorStore(std::size_t dim);

  // Copies `vector` (dim floats) into `out` padded to stride() floats.
  void pad(const float* vector, float* out) const;
};

}  // namespace sublinear
