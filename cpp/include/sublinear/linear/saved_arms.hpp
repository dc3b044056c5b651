#pragma once

#include <cstddef>

#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"

namespace sublinear {

// The arms in a saved state, a policy's own or a catalogue's (docs/state-format.md): their count,
// each row's id and features, then one label per arm.
void saveArmSet(const ArmSet& arms, StateWriter& out);
// Reads them into `arms` (empty), refusing what ArmSet::checkAdd refuses (duplicate ids, features
// that are not finite or beyond kMaxMagnitude) and a label count other than the arms'. The count
// is bounded by the bytes left at leastBytesPerArm each before anything is allocated. The rows are
// decoded into the set a piece at a time (checked piece by piece), never whole beside it.
void loadArmSet(ArmSet& arms, StateReader& in, std::size_t leastBytesPerArm);

}  // namespace sublinear
