#pragma once

// The binding of a persistence family (core/persistent.hpp): a family's JS handle holds its
// Persistent<T> as `object` (plus the buffers its own calls hand to JS) and is made from one. The
// calls every family shares are bound here, once; a family's file binds its own calls on the
// underlying object (self.object->...) and registers createX / restoreX with createHandle /
// restoreHandle.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <utility>

#include "guard.hpp"
#include "typed_array_source.hpp"
#include "sublinear/core/persistent.hpp"

namespace sublinear::bindings {

template <class Handle>
std::string persistentType(Handle& self) {
  return self.object->type();
}

template <class Handle>
std::string persistentStats(Handle& self) {
  return self.object->stats().dump();
}

// A handle over the object its family makes from `{ type, ...options }` (JSON).
template <class Handle>
Handle* createHandle(const std::string& specJson) {
  return new Handle(decltype(Handle::object)(parseJson(specJson)));
}

// A handle over the object restored from a state of `length` bytes, at `bytes` on the heap or, when
// `bytes` is 0, in the Uint8Array `array` (piecesOf), of `expectedType` (any type of the family when
// empty).
template <class Handle>
Handle* restoreHandle(std::uintptr_t bytes, std::size_t length, emscripten::val array, const std::string& expectedType) {
  return new Handle(decltype(Handle::object)::fromBytes(*piecesOf<std::uint8_t>(bytes, length, std::move(array)), expectedType));
}

// Binds type(), stats() and toBytes() on `handle`, returned for the family's own calls.
template <class Handle>
const emscripten::class_<Handle>& bindPersistent(const emscripten::class_<Handle>& handle) {
  return handle.function("type", guard<&persistentType<Handle>>)
      .function("stats", guard<&persistentStats<Handle>>)
      .function("toBytes", guard<&stateBytes<Handle, &Handle::object>>);
}

}  // namespace sublinear::bindings
