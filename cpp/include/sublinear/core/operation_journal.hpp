#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

// The saved state of objects whose structures depend on their whole history (HNSW graphs, hash
// tables with reused slots, elimination stages, dominating-point bins): the constructor options
// followed by every state-changing call that succeeded, in order, inside the SBST envelope
// (docs/state-format.md). Restoring replays the calls through the same validated public methods:
//   - the restored object is the original bit for bit, since every computation is deterministic
//     (the same in every build);
//   - damaged bytes can only fail that validation (reported as CORRUPT_STATE), never reach memory.
// The price, stated in the docs: the state grows with the history, and restoring repeats its work.
// Objects that never need saving can opt out with the option `journal: false` (the memory then stays
// bounded however long they run), and toBytes() says why it cannot save them.
class OperationJournal {
 public:
  OperationJournal(const std::string& type, const Json& options);

  bool enabled() const { return enabled_; }
  // Starts the record of a call that just succeeded; the caller appends its arguments (into a
  // scratch writer that is discarded when the journal is off).
  StateWriter& record(std::uint8_t operation);
  std::size_t operations() const { return operations_; }
  // INVALID_ARGUMENT when the journal is off.
  std::vector<std::uint8_t> toBytes() const;

 private:
  bool enabled_;
  StateWriter log_;
  StateWriter discarded_;
  std::size_t operations_ = 0;
};

// Replays a journal of type `type`: `create(options)` first, then `apply(operation, reader)` for each
// record, which reads the record's arguments and repeats the call. Any failure while replaying
// (a bad option, an invalid call, a record cut short) is reported as CORRUPT_STATE.
void replayJournal(const std::uint8_t* bytes, std::size_t length, const std::string& type,
                   const std::function<void(const Json& options)>& create,
                   const std::function<void(std::uint8_t operation, StateReader& in)>& apply);

}  // namespace sublinear
