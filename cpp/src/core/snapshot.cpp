#include "sublinear/core/snapshot.hpp"

#include <new>

#include "sublinear/core/error.hpp"

namespace sublinear {

Json readOptions(StateReader& in) {
  Json options;
  try {
    options = parseJson(in.string());
  } catch (const Error& error) {
    in.check(false, std::string("stored options: ") + error.what());
  } catch (const std::exception& error) {
    // nlohmann's own exceptions, e.g. "number overflow" for 1e999.
    in.check(false, std::string("stored options: ") + error.what());
  }
  in.check(options.is_object(), "stored options are not an object");
  return options;
}

void loadSnapshot(const std::uint8_t* bytes, std::size_t length, const std::string& type,
                  const std::function<void(StateReader& in)>& read) {
  StateReader in(bytes, length, type);
  loadSnapshot(in, read);
}

void loadSnapshot(StateReader& in, const std::function<void(StateReader& in)>& read) {
  try {
    read(in);
    in.finish();
  } catch (const Error& error) {
    if (error.code() == ErrorCode::CorruptState) throw;
    fail(ErrorCode::CorruptState, std::string("saved state is damaged: ") + error.what());
  } catch (const std::bad_alloc&) {
    // Decoders check every size against the bytes present before they allocate for it, so a
    // state that still does not fit is a real shortage of memory, not damage.
    fail(ErrorCode::OutOfMemory, "out of memory while restoring the saved state");
  } catch (const std::length_error&) {
    fail(ErrorCode::OutOfMemory, "out of memory while restoring the saved state (a size beyond what a container can hold)");
  } catch (const std::exception& error) {
    // Anything else a decoder meets (a JSON library exception on an option such as 1e999) is
    // damage too: no error of another code may come out of a restore.
    fail(ErrorCode::CorruptState, std::string("saved state is damaged: ") + error.what());
  }
}

}  // namespace sublinear
