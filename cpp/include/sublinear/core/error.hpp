#pragma once

#include <stdexcept>
#include <string>

namespace sublinear {

// The error codes of the JavaScript API (ErrorCode, web/src/common.d.ts). The JavaScript layer
// turns each into a BanditError whose `code` is the string that errorCodeName() returns.
enum class ErrorCode {
  InvalidArgument,
  DimensionMismatch,
  NonFinite,
  UnknownId,
  DuplicateId,
  Empty,
  Disposed,
  CorruptState,
  // The WebAssembly heap (or the machine) cannot hold what a call needs; the object is unchanged.
  OutOfMemory,
};

const char* errorCodeName(ErrorCode code);

// Every error the core reports on purpose. Methods validate before they mutate, so an object that
// threw one is left exactly as it was.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] void fail(ErrorCode code, const std::string& message);

// Throws `code` with `message` unless `condition` holds.
inline void require(bool condition, ErrorCode code, const char* message) {
  if (!condition) fail(code, message);
}

}  // namespace sublinear
