#include "sublinear/core/state_inspection.hpp"

#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/snapshot.hpp"

namespace sublinear {

namespace {
// Constructed on first use: families add theirs during static initialisation, in any order.
std::vector<StateDescriber>& describers() {
  static std::vector<StateDescriber> list;
  return list;
}
}  // namespace

bool addStateDescriber(StateDescriber describer) {
  describers().push_back(describer);
  return true;
}

Json inspectState(const std::uint8_t* bytes, std::size_t available, std::size_t length) {
  const StateHeader head = StateHeader::read(bytes, available, length);
  Json summary{{"type", head.type},
               {"classType", head.type},
               {"formatVersion", head.format},
               {"libraryVersion", head.library},
               {"complete", head.complete},
               {"sizes", {{"bytes", length}}}};
  if (head.complete) {
    summary["sizes"]["payloadBytes"] = head.payloadLength;
  } else if (head.format == kStateFormatVersion) {
    // A state of this format must account for its bytes (StateReader's messages); one of another
    // format is named by its version, which loaders refuse.
    summary["damage"] = head.payloadStart == 0 ? "truncated" : "length does not match";
  }
  // What follows is read as far as the bytes given go and the payload is well formed (a state of
  // this format that accounts for its bytes; for any other the reader holds nothing): what a
  // damaged payload or the end of the bytes leaves unread is left out, the damage is fromBytes's to
  // report. Each describer names its types' class first, from the type alone.
  StateReader in = StateReader::payloadPrefix(head, bytes, available);
  Json options;
  try {
    options = readOptions(in);
    if (options.contains("dim") && options["dim"].is_number_unsigned()) summary["sizes"]["dim"] = options["dim"];
  } catch (const Error&) {
    options = nullptr;
  }
  const StateReader nothing = StateReader::payloadPrefix(StateHeader{}, bytes, 0);
  for (const StateDescriber describe : describers()) {
    StateReader afterOptions = options.is_null() ? nothing : in;
    try {
      describe(head.type, options, afterOptions, summary);
    } catch (const Error&) {
    }
  }
  return summary;
}

}  // namespace sublinear
