#include "sublinear/core/piece_source.hpp"

#include <algorithm>
#include <vector>

namespace sublinear {

void forEachPiece(const FloatSource& source, std::size_t rowFloats,
                  const std::function<void(const float* floats, std::size_t first, std::size_t count)>& body) {
  const std::size_t length = source.length();
  if (const float* all = source.data()) {
    body(all, 0, length);
    return;
  }
  const std::size_t rows = std::max<std::size_t>(1, FloatSource::kPieceValues / std::max<std::size_t>(1, rowFloats));
  std::vector<float> piece(std::min(length, rows * std::max<std::size_t>(1, rowFloats)));
  for (std::size_t first = 0; first < length; first += piece.size()) {
    const std::size_t count = std::min(piece.size(), length - first);
    source.read(first, count, piece.data());
    body(piece.data(), first, count);
  }
}

}  // namespace sublinear
