#pragma once

// Shared checks for every class with toBytes()/fromBytes(): damaged, truncated and resealed bytes
// must give CORRUPT_STATE (or, for resealed payload changes that happen to decode, a usable
// object), and never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear::testing {

using Bytes = std::vector<std::uint8_t>;

// Recomputes the trailing CRC-32 so that a change inside the payload reaches the decoder.
inline Bytes resealed(Bytes bytes) {
  const std::uint32_t sum = crc32(bytes.data(), bytes.size() - 4);
  for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<std::uint8_t>(sum >> (8 * i));
  return bytes;
}

// `restore(bytes)` must throw CORRUPT_STATE for: every truncation, flipped bytes (checksum), a
// wrong version; and for `resealedTrials` random payload changes with a valid checksum it must
// either throw CORRUPT_STATE or return normally (then `restore` may exercise the object).
inline void expectDamageDetected(const Bytes& bytes, const std::function<void(const Bytes&)>& restore,
                                 int resealedTrials = 200) {
  auto expectCorrupt = [&](const Bytes& damaged, const std::string& what) {
    try {
      restore(damaged);
      ADD_FAILURE() << what << ": restored without an error";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::CorruptState) << what << ": " << error.what();
    }
  };
  const std::size_t step = std::max<std::size_t>(1, bytes.size() / 97);
  for (std::size_t length = 0; length < bytes.size(); length += step) {
    expectCorrupt(Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length)), "truncated to " + std::to_string(length));
  }
  for (std::size_t at = 0; at < bytes.size(); at += step) {
    Bytes flipped = bytes;
    flipped[at] ^= 0x5A;
    expectCorrupt(flipped, "byte " + std::to_string(at) + " flipped");
  }
  Bytes version = bytes;
  version[4] = 99;
  expectCorrupt(resealed(version), "unknown version");
  Random random(0xC0FFEE);
  for (int trial = 0; trial < resealedTrials; ++trial) {
    Bytes changed = bytes;
    const int edits = 1 + static_cast<int>(random.uniformInt(3));
    for (int e = 0; e < edits; ++e) {
      changed[random.uniformInt(changed.size() - 4)] = static_cast<std::uint8_t>(random.uniformInt(256));
    }
    try {
      restore(resealed(changed));
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::CorruptState) << "resealed trial " << trial << ": " << error.what();
    }
  }
}

}  // namespace sublinear::testing
