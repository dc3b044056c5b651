#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include "guard.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/core/random_checksum.hpp"
#include "sublinear/core/state_inspection.hpp"

namespace sublinear::bindings {

void reportError(const char* code, const std::string& message) {
  // The parentheses keep the array's comma from splitting the macro's arguments.
  EM_ASM({ (Module["pendingError"] = [UTF8ToString($0), UTF8ToString($1)]); }, code, message.c_str());
}

}  // namespace sublinear::bindings

namespace sublinear::bindings {
namespace {
// Bytes in use by malloc: what tests watch to prove that objects and errors free their memory.
double allocatedBytes() { return static_cast<double>(mallinfo().uordblks); }

std::string checksum(double seed, double count) {
  require(seed >= 0 && count >= 0, ErrorCode::InvalidArgument, "seed and count must be non-negative");
  return randomChecksum(static_cast<std::uint64_t>(seed), static_cast<std::size_t>(count));
}

// The threads index construction may use: set once by init() from the build it loaded.
void setThreads(double threads) {
  require(threads >= 1, ErrorCode::InvalidArgument, "threads must be at least 1");
  setParallelism(static_cast<std::size_t>(threads));
}
double threads() { return static_cast<double>(parallelism()); }

// The option table of one class (its layer's <layer>_option_tables.cpp) as JSON: [{ name, type, default, ... }].
std::string optionTableJson(const std::string& kind, const std::string& type) { return optionTable(kind, type).describe().dump(); }

// inspectState's summary of the first `available` of a state's `length` bytes, as JSON (type names
// of hostile bytes need not be UTF-8: replaced, not thrown).
std::string inspectStateJson(std::uintptr_t bytes, std::size_t available, std::size_t length) {
  return inspectState(fromAddress<const std::uint8_t>(bytes), available, length).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Every table: [{ kind, type }, ...].
std::string optionTableList() {
  Json list = Json::array();
  for (const OptionTable& table : optionTables()) list.push_back({{"kind", table.kind}, {"type", table.type}});
  return list.dump();
}
}  // namespace
}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_core) {
  using namespace sublinear::bindings;
  emscripten::function("allocatedBytes", guard<&allocatedBytes>);
  emscripten::function("randomChecksum", guard<&checksum>);
  emscripten::function("optionTable", guard<&optionTableJson>);
  emscripten::function("optionTableList", guard<&optionTableList>);
  emscripten::function("inspectState", guard<&inspectStateJson>);
  emscripten::function("setParallelism", guard<&setThreads>);
  emscripten::function("parallelism", guard<&threads>);
}
