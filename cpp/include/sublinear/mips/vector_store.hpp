#pragma once

#include <cstddef>
#include <cstdint>

#include "sublinear/core/row_store.hpp"

namespace sublinear {

// How an index stores its item vectors: float rows (the default), or 8-bit codes with a scale per
// row (mips/quantised_rows.hpp), a quarter of the memory; the codes are then the only copy, and the
// item's vector is the decoded row s * c (its scores, its saved state).
enum class VectorStorage { Float32, Int8 };

// The items of an index in the blocks of RowStore. Float32: rows zero-padded to the SIMD lane width
// (paddedDimension). Int8: each row holds quantised::codeBytes(dim) codes followed by the float
// scale, packed into the store's floats, so that ids, rows and their moves stay RowStore's. Readers
// that want floats use score(), decode() and holds(), which work in both storages; rowData() is the
// raw row (floats only in Float32).
class VectorStore : public RowStore<float> {
 public:
  explicit VectorStore(std::size_t dim, VectorStorage storage = VectorStorage::Float32);

  // The vectors' dimension (RowStore's dim() is the row length in floats).
  std::size_t dim() const { return dim_; }
  VectorStorage storage() const { return storage_; }
  bool quantised() const { return storage_ == VectorStorage::Int8; }
  // Floats of a query padded for score(): paddedDimension(dim), or codeBytes(dim) in Int8.
  std::size_t queryStride() const { return queryStride_; }
  // Copies `vector` (dim floats) into `out` zero-padded to queryStride() floats.
  void pad(const float* vector, float* out) const;

  // Appends `vector` (dim floats), encoded in Int8.
  void add(Id id, const float* vector);
  // Int8 only: appends a row from its codes (codeBytes(dim), zero beyond dim) and scale.
  void addEncoded(Id id, const std::int8_t* codes, float scale);
  // Int8 only: a row's codes and scale.
  const std::int8_t* codesAt(std::size_t row) const { return reinterpret_cast<const std::int8_t*>(rowData(row)); }
  float scaleAt(std::size_t row) const { return rowData(row)[codeFloats_]; }

  // <stored vector of `row`, query> for a query padded to queryStride().
  float score(std::size_t row, const float* paddedQuery) const { return scoreRow(rowData(row), paddedQuery); }
  // The same for a row laid out as this store's rows (stride() floats), wherever it is: a copy of
  // one (HnswIndex's inlined nodes) scores with the same bits.
  float scoreRow(const float* row, const float* paddedQuery) const;
  // scoreRow() of four rows at once, into out[0..3], with its bits (lanes::innerProducts4,
  // quantised::codeInnerProducts4): for rows anywhere in memory, such as a search's candidates.
  void scoreRows4(const float* const* rows, const float* paddedQuery, float* out) const;
  // The stored vector of `row` as dim floats.
  void decode(std::size_t row, float* out) const;
  double squaredNorm(std::size_t row) const;
  // Whether `row` holds what add(id, vector) would store.
  bool holds(std::size_t row, const float* vector) const;
  // Bytes of one stored row.
  std::size_t rowBytes() const { return stride() * sizeof(float); }

 private:
  std::size_t dim_;
  VectorStorage storage_;
  std::size_t queryStride_;
  std::size_t codeFloats_;  // Int8: the codes' length in floats (the scale follows)
};

}  // namespace sublinear
