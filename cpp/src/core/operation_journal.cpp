#include "sublinear/core/operation_journal.hpp"

#include <new>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

OperationJournal::OperationJournal(const std::string& type, const Json& options)
    : enabled_(readBoolOption(option_groups::journaled(), options, "journal")), log_(type), discarded_(type) {
  log_.json(options);
}

StateWriter& OperationJournal::record(std::uint8_t operation) {
  ++operations_;
  if (!enabled_) {
    discarded_ = StateWriter(std::string());
    return discarded_;
  }
  log_.u8(operation);
  return log_;
}

std::vector<std::uint8_t> OperationJournal::toBytes() const {
  require(enabled_, ErrorCode::InvalidArgument, "this object was made with the option journal: false, so it keeps no history to save");
  StateWriter sealed = log_;
  return sealed.finish();
}

void replayJournal(const std::uint8_t* bytes, std::size_t length, const std::string& type,
                   const std::function<void(const Json& options)>& create,
                   const std::function<void(std::uint8_t operation, StateReader& in)>& apply) {
  StateReader in(bytes, length, type);
  const Json options = in.json();
  std::size_t replayed = 0;
  try {
    create(options);
    while (!in.atEnd()) {
      apply(in.u8(), in);
      ++replayed;
    }
  } catch (const Error& error) {
    if (error.code() == ErrorCode::CorruptState) throw;
    fail(ErrorCode::CorruptState, "saved state is damaged: replaying call " + std::to_string(replayed + 1) + " failed (" +
                                      error.what() + ")");
  } catch (const std::bad_alloc&) {
    // Altered options can ask for structures no heap holds; an intact state cannot (it was built).
    fail(ErrorCode::CorruptState, "saved state is damaged: replaying call " + std::to_string(replayed + 1) + " ran out of memory");
  }
}

}  // namespace sublinear
