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

namespace sublinear::testing {

// A state whose stored options (the payload's first field, a u64 length and the JSON text) are
// replaced by `options`, with the payload length and the checksum recomputed: the envelope is intact,
// so only the decoder stands between such bytes and whatever the options ask for.
inline Bytes withOptionsText(const Bytes& bytes, const std::string& options) {
  auto readU32 = [&](std::size_t at) {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(bytes.at(at + i)) << (8 * i);
    return value;
  };
  auto readU64 = [&](std::size_t at) {
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<std::uint64_t>(bytes.at(at + i)) << (8 * i);
    return value;
  };
  std::size_t at = 6;           // magic and format version
  at += 4 + readU32(at);        // library version
  at += 4 + readU32(at);        // type name
  const std::size_t lengthAt = at;
  const std::size_t payloadAt = at + 8;
  const std::size_t oldOptions = readU64(payloadAt);
  Bytes out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(payloadAt));
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(options.size()) >> (8 * i)));
  out.insert(out.end(), options.begin(), options.end());
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(payloadAt + 8 + oldOptions), bytes.end());
  const std::uint64_t payloadLength = out.size() - payloadAt - 4;
  for (int i = 0; i < 8; ++i) out[lengthAt + i] = static_cast<std::uint8_t>(payloadLength >> (8 * i));
  return resealed(out);
}

// The stored options of a state, as JSON.
inline Json storedOptions(const Bytes& bytes) {
  std::size_t at = 6;
  auto readU32 = [&](std::size_t from) {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(bytes.at(from + i)) << (8 * i);
    return value;
  };
  at += 4 + readU32(at);
  at += 4 + readU32(at);
  at += 8;
  std::uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= static_cast<std::uint64_t>(bytes.at(at + i)) << (8 * i);
  return Json::parse(std::string(bytes.begin() + static_cast<std::ptrdiff_t>(at + 8),
                                 bytes.begin() + static_cast<std::ptrdiff_t>(at + 8 + size)));
}

// The state with `patch` merged into its stored options (RFC 7386: a null removes a key).
inline Bytes withOptions(const Bytes& bytes, const Json& patch) {
  Json options = storedOptions(bytes);
  options.merge_patch(patch);
  return withOptionsText(bytes, options.dump());
}

}  // namespace sublinear::testing
