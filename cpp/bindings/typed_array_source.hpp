#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "guard.hpp"
#include "sublinear/core/piece_source.hpp"

namespace sublinear::bindings {

// A JS typed array (Float32Array, Uint8Array) copied into the heap a piece at a time.
template <class T>
class TypedArraySource final : public PieceSource<T> {
 public:
  explicit TypedArraySource(emscripten::val array) : array_(std::move(array)), length_(array_["length"].as<std::size_t>()) {}
  std::size_t length() const override { return length_; }
  void read(std::size_t first, std::size_t count, T* piece) const override {
    // A view made now: growing memory replaces the heap's buffer.
    emscripten::val(emscripten::typed_memory_view(count, piece))
        .call<void>("set", array_.call<emscripten::val>("subarray", first, first + count));
  }

 private:
  emscripten::val array_;
  std::size_t length_;
};

// A large input as JS passes it (runtime.js, STREAMED_BYTES): `length` values at `address` on the
// heap, or, when `address` is 0, the typed array `array`, which JS left where it is and C++ reads a
// piece at a time.
template <class T>
std::unique_ptr<const PieceSource<T>> piecesOf(std::uintptr_t address, std::size_t length, emscripten::val array) {
  if (address == 0 && length > 0) return std::make_unique<TypedArraySource<T>>(std::move(array));
  return std::make_unique<PiecesInMemory<T>>(fromAddress<const T>(address), length);
}

}  // namespace sublinear::bindings
