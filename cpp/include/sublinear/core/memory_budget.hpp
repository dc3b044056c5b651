#pragma once

#include <cstdint>
#include <string>

namespace sublinear {

// Fails with INVALID_ARGUMENT, naming the bytes asked for, when `count` elements of `elementBytes`
// each cannot be addressed by this build (size_t: 4 GiB in wasm32, where this is the heap limit).
// Called before allocations whose size the caller chooses, so that an impossible request is a
// clear error up front rather than a std::bad_alloc (or a length_error) from deep inside.
void requireAddressable(std::uint64_t count, std::uint64_t elementBytes, const std::string& what);

}  // namespace sublinear
