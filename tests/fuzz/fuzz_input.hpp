#pragma once

// Turns fuzzer bytes into typed choices; reading past the end yields zeros, so every input is valid.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sublinear::fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  bool empty() const { return position_ >= size_; }

  std::uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }

  std::uint32_t u32() {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(byte()) << (8 * i);
    return value;
  }

  // A small float in [-8, 8) with a few special values mixed in.
  float smallFloat() {
    const std::uint8_t b = byte();
    if (b == 255) return 0.0f;
    return (static_cast<float>(b) - 128.0f) / 16.0f;
  }

  std::size_t below(std::size_t bound) { return bound == 0 ? 0 : u32() % bound; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

}  // namespace sublinear::fuzz
