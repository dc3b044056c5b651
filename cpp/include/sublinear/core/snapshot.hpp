#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "sublinear/core/options.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

// Saved state as a snapshot of the structure (docs/state-format.md): the constructor options, then
// each class's fields in a fixed order. An object is restored by constructing it from the options
// and letting it read its fields; the memory of an object so depends on its state, never on how
// many calls it has served.
//
// Decoders validate everything they read before using it -- counts against the bytes that remain,
// ids and links in range, matrices finite -- so hostile bytes can only fail with CORRUPT_STATE.

// Options as stored in a state: an object, nested at most kMaxOptionDepth deep (like parseJson).
Json readOptions(StateReader& in);

// Opens the envelope of `bytes` (which must hold `type`), runs `read` on its payload and checks
// that the payload was consumed. Any failure -- a damaged envelope, an invalid option, a field out
// of range -- is reported as CORRUPT_STATE. A failed allocation is OUT_OF_MEMORY: decoders bound
// every size by the bytes present before allocating for it, so what still does not fit is a real
// shortage of memory, not damage.
void loadSnapshot(const std::uint8_t* bytes, std::size_t length, const std::string& type,
                  const std::function<void(StateReader& in)>& read);
// The same over a reader whose envelope was checked (a streamed one).
void loadSnapshot(StateReader& in, const std::function<void(StateReader& in)>& read);

}  // namespace sublinear
