#include "sublinear/mips/vector_store.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sublinear/mips/inner_product.hpp"
#include "sublinear/mips/lane_kernels.hpp"
#include "sublinear/mips/quantised_rows.hpp"

namespace sublinear {

namespace {
std::size_t rowFloats(std::size_t dim, VectorStorage storage) {
  return storage == VectorStorage::Int8 ? quantised::codeBytes(dim) / sizeof(float) + 1 : paddedDimension(dim);
}
}  // namespace

VectorStore::VectorStore(std::size_t dim, VectorStorage storage)
    // RowStore copies its dim() scalars on add: the vector's dim floats, or a whole Int8 row.
    : RowStore<float>(storage == VectorStorage::Int8 ? rowFloats(dim, storage) : dim, rowFloats(dim, storage)),
      dim_(dim),
      storage_(storage),
      queryStride_(storage == VectorStorage::Int8 ? quantised::codeBytes(dim) : paddedDimension(dim)),
      codeFloats_(quantised::codeBytes(dim) / sizeof(float)) {}

void VectorStore::pad(const float* vector, float* out) const {
  std::copy(vector, vector + dim_, out);
  std::fill(out + dim_, out + queryStride_, 0.0f);
}

void VectorStore::add(Id id, const float* vector) {
  if (!quantised()) {
    RowStore<float>::add(id, vector);
    return;
  }
  std::vector<std::int8_t> codes(quantised::codeBytes(dim_));
  const float scale = quantised::encode(vector, dim_, codes.data());
  addEncoded(id, codes.data(), scale);
}

void VectorStore::addEncoded(Id id, const std::int8_t* codes, float scale) {
  std::vector<float> row(stride(), 0.0f);
  std::memcpy(row.data(), codes, quantised::codeBytes(dim_));
  row[codeFloats_] = scale;
  RowStore<float>::add(id, row.data());
}

float VectorStore::scoreRow(const float* row, const float* paddedQuery) const {
  if (!quantised()) return lanes::innerProduct(row, paddedQuery, stride());
  return row[codeFloats_] * quantised::codeInnerProduct(reinterpret_cast<const std::int8_t*>(row), paddedQuery, queryStride_);
}

void VectorStore::scoreRows4(const float* const* rows, const float* paddedQuery, float* out) const {
  if (!quantised()) return lanes::innerProducts4(rows[0], rows[1], rows[2], rows[3], paddedQuery, stride(), out);
  const std::int8_t* codes[4];
  for (std::size_t r = 0; r < 4; ++r) codes[r] = reinterpret_cast<const std::int8_t*>(rows[r]);
  quantised::codeInnerProducts4(codes, paddedQuery, queryStride_, out);
  for (std::size_t r = 0; r < 4; ++r) out[r] = rows[r][codeFloats_] * out[r];
}

void VectorStore::decode(std::size_t row, float* out) const {
  if (quantised()) {
    quantised::decode(codesAt(row), scaleAt(row), dim_, out);
  } else {
    std::copy(rowData(row), rowData(row) + dim_, out);
  }
}

double VectorStore::squaredNorm(std::size_t row) const {
  if (quantised()) return quantised::squaredNorm(codesAt(row), scaleAt(row), dim_);
  double sum = 0.0;
  const float* vector = rowData(row);
  for (std::size_t i = 0; i < dim_; ++i) sum += static_cast<double>(vector[i]) * vector[i];
  return sum;
}

bool VectorStore::holds(std::size_t row, const float* vector) const {
  if (!quantised()) return std::equal(vector, vector + dim_, rowData(row));
  std::vector<std::int8_t> codes(quantised::codeBytes(dim_));
  const float scale = quantised::encode(vector, dim_, codes.data());
  return scale == scaleAt(row) && std::memcmp(codes.data(), codesAt(row), codes.size()) == 0;
}

}  // namespace sublinear
