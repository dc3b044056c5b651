#include "sublinear/core/error.hpp"

namespace sublinear {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::DimensionMismatch: return "DIMENSION_MISMATCH";
    case ErrorCode::NonFinite: return "NON_FINITE";
    case ErrorCode::UnknownId: return "UNKNOWN_ID";
    case ErrorCode::DuplicateId: return "DUPLICATE_ID";
    case ErrorCode::Empty: return "EMPTY";
    case ErrorCode::Disposed: return "DISPOSED";
    case ErrorCode::CorruptState: return "CORRUPT_STATE";
    case ErrorCode::OutOfMemory: return "OUT_OF_MEMORY";
  }
  return "INVALID_ARGUMENT";
}

void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

}  // namespace sublinear
