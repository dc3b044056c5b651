#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace sublinear {

// Values a call reads a piece at a time: a large batch or saved state held outside the core's
// memory (a JS array beside the wasm heap) is then never copied there whole. A whole copy would be
// freed after the call, but wasm memory never shrinks: its high-water mark would stay the
// process's for good.
template <class T>
class PieceSource {
 public:
  // Values read at a time from a source outside memory: a mebibyte.
  static constexpr std::size_t kPieceValues = (std::size_t{1} << 20) / sizeof(T);

  virtual ~PieceSource() = default;
  virtual std::size_t length() const = 0;
  // All the values when they lie in memory (read in one piece), nullptr otherwise.
  virtual const T* data() const { return nullptr; }
  // Writes values [first, first + count) into `piece` (a source outside memory).
  virtual void read(std::size_t first, std::size_t count, T* piece) const = 0;
};

using FloatSource = PieceSource<float>;
using DoubleSource = PieceSource<double>;
using ByteSource = PieceSource<std::uint8_t>;

// Values already in memory (read in one piece).
template <class T>
class PiecesInMemory final : public PieceSource<T> {
 public:
  PiecesInMemory(const T* values, std::size_t length) : values_(values), length_(length) {}
  std::size_t length() const override { return length_; }
  const T* data() const override { return values_; }
  void read(std::size_t first, std::size_t count, T* piece) const override {
    std::copy(values_ + first, values_ + first + count, piece);
  }

 private:
  const T* values_;
  std::size_t length_;
};

using FloatsInMemory = PiecesInMemory<float>;
using DoublesInMemory = PiecesInMemory<double>;
using BytesInMemory = PiecesInMemory<std::uint8_t>;

// body(floats, first, count) over consecutive pieces of `source` that cover it: whole rows of
// `rowFloats` (at least one row a piece), or the whole source at once when it lies in memory.
void forEachPiece(const FloatSource& source, std::size_t rowFloats,
                  const std::function<void(const float* floats, std::size_t first, std::size_t count)>& body);
// The same over doubles (a linear policy's or a catalogue's features), rows of `rowDoubles`.
void forEachPiece(const DoubleSource& source, std::size_t rowDoubles,
                  const std::function<void(const double* doubles, std::size_t first, std::size_t count)>& body);

}  // namespace sublinear
