#pragma once

// What a saved state is, read from its head without loading it (sb.inspectState, the CLI): the
// envelope's fields (core/state_codec.hpp) and, for a state of the current format, what its payload
// says first: the options (every payload starts with them, core/snapshot.hpp), then what a family's
// head holds (a catalogue's identity, an item count), read by the describers the families add.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sublinear/core/options.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

// Adds to `summary` what a family knows of a state of `type` (its own types only; others it leaves
// alone): first what the type says (classType), then what it reads cheaply after the options
// (`options` null and `afterOptions` empty when the payload cannot be read: another format, damage,
// or the end of the bytes given). A read that fails drops only what follows it. Keys of `summary`:
// see inspectState.
using StateDescriber = void (*)(const std::string& type, const Json& options, StateReader& afterOptions, Json& summary);

// Families add their describer once, at static initialisation (a `const bool` of their persistence
// file): the core knows no family.
bool addStateDescriber(StateDescriber describer);

// The summary of the state in the first `available` of `length` bytes:
//   { type, classType, formatVersion, libraryVersion, complete, sizes: { bytes, payloadBytes, dim,
//     ...counts }, catalogueIdentity, damage }
// classType is the type of the class that restores it (type without a family's suffix); complete
// whether the declared payload length accounts for every byte; damage, for a state of this format
// that is not complete, what StateReader would say ("truncated", "length does not match");
// payloadBytes, dim and the rest only
// where they can be read (current format, complete, within the bytes given). The checksum and the
// payload are not checked: fromBytes does that. CORRUPT_STATE unless the bytes start as a state.
// Nothing is allocated for what the bytes claim beyond the bytes given.
Json inspectState(const std::uint8_t* bytes, std::size_t available, std::size_t length);

}  // namespace sublinear
