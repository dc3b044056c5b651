#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include "guard.hpp"
#include "sublinear/core/random_checksum.hpp"

namespace sublinear::bindings {

void reportError(const char* code, const std::string& message) {
  // The parentheses keep the array's comma from splitting the macro's arguments.
  EM_ASM({ (Module["pendingError"] = [UTF8ToString($0), UTF8ToString($1)]); }, code, message.c_str());
}

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_core) {
  using namespace sublinear;
  using namespace sublinear::bindings;
  // Bytes in use by malloc: what tests watch to prove that objects and errors free their memory.
  emscripten::function("allocatedBytes", +[] { return static_cast<double>(mallinfo().uordblks); });
  emscripten::function("randomChecksum", +[](double seed, double count) {
    return guarded([&] {
      require(seed >= 0 && count >= 0, ErrorCode::InvalidArgument, "seed and count must be non-negative");
      return randomChecksum(static_cast<std::uint64_t>(seed), static_cast<std::size_t>(count));
    });
  });
}
