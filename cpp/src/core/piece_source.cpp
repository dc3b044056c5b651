#include "sublinear/core/piece_source.hpp"

#include <algorithm>
#include <vector>

namespace sublinear {

namespace {
template <class T>
void forEachPieceOf(const PieceSource<T>& source, std::size_t rowValues,
                    const std::function<void(const T* values, std::size_t first, std::size_t count)>& body) {
  const std::size_t length = source.length();
  if (const T* all = source.data()) {
    body(all, 0, length);
    return;
  }
  const std::size_t rows = std::max<std::size_t>(1, PieceSource<T>::kPieceValues / std::max<std::size_t>(1, rowValues));
  std::vector<T> piece(std::min(length, rows * std::max<std::size_t>(1, rowValues)));
  for (std::size_t first = 0; first < length; first += piece.size()) {
    const std::size_t count = std::min(piece.size(), length - first);
    source.read(first, count, piece.data());
    body(piece.data(), first, count);
  }
}
}  // namespace

void forEachPiece(const FloatSource& source, std::size_t rowFloats,
                  const std::function<void(const float* floats, std::size_t first, std::size_t count)>& body) {
  forEachPieceOf(source, rowFloats, body);
}

void forEachPiece(const DoubleSource& source, std::size_t rowDoubles,
                  const std::function<void(const double* doubles, std::size_t first, std::size_t count)>& body) {
  forEachPieceOf(source, rowDoubles, body);
}

}  // namespace sublinear
