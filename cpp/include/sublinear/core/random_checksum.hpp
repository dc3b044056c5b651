#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sublinear {

// FNV-1a over the bit patterns of `count` rounds of draws from every transform of Random seeded
// with `seed`, as 16 hex digits. The native and wasm builds must print the same string.
std::string randomChecksum(std::uint64_t seed, std::size_t count);

}  // namespace sublinear
