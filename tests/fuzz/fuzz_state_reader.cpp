// Arbitrary bytes into the saved-state reader: every outcome must be a decoded state or a
// CORRUPT_STATE error — never a crash, a sanitizer report or a huge allocation.
#include <cstdlib>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"

using namespace sublinear;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    StateReader reader(data, size, StateReader::peekType(data, size));
    while (true) {
      switch (reader.u8() % 4) {
        case 0: reader.f64s(); break;
        case 1: reader.string(); break;
        case 2: reader.u32s(); break;
        default: reader.finish(); return 0;
      }
    }
  } catch (const Error& error) {
    if (error.code() != ErrorCode::CorruptState) std::abort();
  }
  return 0;
}
