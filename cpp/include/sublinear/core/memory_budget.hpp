#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace sublinear {

// Fails with INVALID_ARGUMENT, naming the bytes asked for, when `count` elements of `elementBytes`
// each cannot be addressed by this build (size_t: 4 GiB in wasm32, where this is the heap limit).
// Called before allocations whose size the caller chooses, so that an impossible request is a
// clear error up front rather than a std::bad_alloc (or a length_error) from deep inside.
void requireAddressable(std::uint64_t count, std::uint64_t elementBytes, const std::string& what);

// Room for `needed` elements, growing by half the capacity at least: a store filled in many batches
// (a catalogue added 50,000 arms per call) then copies itself O(log n) times, where reserving the
// exact size at every batch copied it at every batch, O(n^2 / batch) in all.
template <class Container>
void reserveGrowing(Container& container, std::size_t needed) {
  if (needed <= container.capacity()) return;
  container.reserve(std::max(needed, container.capacity() + container.capacity() / 2));
}

}  // namespace sublinear
