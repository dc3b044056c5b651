#pragma once

// Binding glue shared by every area: no exception may cross into JavaScript (embind would hand it
// over as a bare pointer), so each bound call runs inside guarded(). An error is parked on the
// module as `pendingError` and the call returns a default value; the JS layer checks the slot after
// every call and throws a BanditError. Returning normally lets embind free its argument wire types.
#include <cstdint>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <emscripten/val.h>

#include "sublinear/core/error.hpp"
#include "sublinear/core/limits.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear::bindings {

void reportError(const char* code, const std::string& message);

template <typename Function>
auto guarded(Function&& function) -> decltype(function()) {
  using Result = decltype(function());
  try {
    return function();
  } catch (const Error& error) {
    reportError(errorCodeName(error.code()), error.what());
  } catch (const std::bad_alloc&) {
    // Its own code (README, "Errors, memory, determinism"): the caller may free something and
    // retry; the object is unchanged, as every method validates and reserves before it mutates.
    reportError("OUT_OF_MEMORY", "out of memory: the request does not fit in the WebAssembly heap (4 GiB at most)");
  } catch (const std::length_error&) {
    // A size beyond what a container can hold (std::vector's max_size on wasm32): the same answer
    // as running out of memory, not "internal error: vector".
    reportError("OUT_OF_MEMORY", "out of memory: the request does not fit in the WebAssembly heap (4 GiB at most)");
  } catch (const std::exception& error) {
    reportError("INVALID_ARGUMENT", std::string("internal error: ") + error.what());
  }
  if constexpr (std::is_same_v<Result, emscripten::val>) {
    return emscripten::val::undefined();
  } else if constexpr (!std::is_void_v<Result>) {
    return Result{};
  }
}

// The function every binding registers: guard<&function> calls `function` inside guarded(), so a
// binding cannot forget the guard, and the bound functions themselves throw freely: one guard per
// call.
template <auto Function>
struct Guard;

template <typename Result, typename... Args, Result (*Function)(Args...)>
struct Guard<Function> {
  static Result call(Args... args) {
    return guarded([&]() -> Result { return Function(static_cast<Args&&>(args)...); });
  }
};

template <auto Function>
constexpr auto guard = &Guard<Function>::call;

// JS passes wasm heap addresses as plain numbers.
template <typename T>
T* fromAddress(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// A state as a JS Uint8Array: each piece of the payload copied into a JS array as the writer fills
// it (the heap holds one piece at a time), then joined behind the head into one array. JS holds the
// pieces and the array until the call returns.
class Uint8ArrayPieces final : public StateSink {
 public:
  void payload(const std::uint8_t* bytes, std::size_t count) override {
    pieces_.call<void>("push", copied(bytes, count));
    length_ += count;
  }
  void finish(const std::uint8_t* head, std::size_t headLength, const std::uint8_t* checksum, std::size_t checksumLength) override {
    array_ = emscripten::val::global("Uint8Array").new_(headLength + length_ + checksumLength);
    array_.call<void>("set", emscripten::val(emscripten::typed_memory_view(headLength, head)));
    std::size_t at = headLength;
    const std::size_t count = pieces_["length"].as<std::size_t>();
    for (std::size_t i = 0; i < count; ++i) {
      const emscripten::val piece = pieces_[i];
      array_.call<void>("set", piece, at);
      at += piece["length"].as<std::size_t>();
    }
    array_.call<void>("set", emscripten::val(emscripten::typed_memory_view(checksumLength, checksum)), at);
    pieces_ = emscripten::val::array();
  }
  emscripten::val array() const { return array_; }

 private:
  // A view made now (growing memory replaces the heap's buffer), copied out of the heap.
  static emscripten::val copied(const std::uint8_t* bytes, std::size_t count) {
    return emscripten::val::global("Uint8Array").new_(emscripten::typed_memory_view(count, bytes));
  }

  emscripten::val pieces_ = emscripten::val::array();
  emscripten::val array_ = emscripten::val::undefined();
  std::size_t length_ = 0;
};

// Whether the handle holds the object itself (a Persistent<T>), not a pointer to it (a catalogue).
template <class Held, class = void>
struct HeldItself : std::false_type {};
template <class Held>
struct HeldItself<Held, std::void_t<decltype(std::declval<const Held&>().saveTo(std::declval<StateSink&>()))>> : std::true_type {};

// toBytes() for JS: the object streams its state into JS a piece at a time (Persistent::saveTo,
// Catalogue::saveTo), so that no copy of it, whole or left over, takes wasm memory. `Object` is the
// handle's member holding the object: a Persistent<T>, or a pointer to a catalogue.
template <typename Handle, auto Object>
emscripten::val stateBytes(Handle& self) {
  const auto& held = self.*Object;
  Uint8ArrayPieces sink;
  if constexpr (HeldItself<std::decay_t<decltype(held)>>::value) {
    held.saveTo(sink);
  } else {
    held->saveTo(sink);
  }
  return sink.array();
}

}  // namespace sublinear::bindings
