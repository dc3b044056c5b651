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
  }
  in.check(options.is_object(), "stored options are not an object");
  return options;
}

void loadSnapshot(const std::uint8_t* bytes, std::size_t length, const std::string& type,
                  const std::function<void(StateReader& in)>& read) {
  StateReader in(bytes, length, type);
  try {
    read(in);
    in.finish();
  } catch (const Error& error) {
    if (error.code() == ErrorCode::CorruptState) throw;
    fail(ErrorCode::CorruptState, std::string("saved state is damaged: ") + error.what());
  } catch (const std::bad_alloc&) {
    // Decoders bound their allocations by the input; this catches what the options ask for.
    fail(ErrorCode::CorruptState, "saved state is damaged: restoring it ran out of memory");
  } catch (const std::length_error&) {
    fail(ErrorCode::CorruptState, "saved state is damaged: a size is out of range");
  }
}

}  // namespace sublinear
