#pragma once

#include <cstdint>

namespace sublinear {

// The identity of an arm or an item, in every area: a caller-chosen id of a linear policy's arm or
// of an index's item, an element 0 .. K-1 of a matroid's ground set, the row of an arm in a CLS
// round's feature matrix. One type, so ids pass between areas (a policy's arms are its index's
// items) without conversions, and 32 bits because no problem here has 2^32 arms.
using Id = std::uint32_t;

}  // namespace sublinear
