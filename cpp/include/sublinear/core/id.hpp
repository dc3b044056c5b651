#pragma once

#include <cstddef>
#include <cstdint>

namespace sublinear {

// The identity of an arm or an item, in every area: a caller-chosen id of a linear policy's arm or
// of an index's item, an element 0 .. K-1 of a matroid's ground set, the row of an arm in a CLS
// round's feature matrix. One type, so ids pass between areas (a policy's arms are its index's
// items) without conversions, and 32 bits because no problem here has 2^32 arms.
using Id = std::uint32_t;

// The position of the first id in ids[0 .. count) that repeats an earlier one, or count if all are
// distinct: a batch check that sorts a copy instead of hashing each id (an add of 25,000 arms used to
// allocate 25,000 hash nodes per check only to free them).
std::size_t firstRepeatedId(const Id* ids, std::size_t count);

}  // namespace sublinear
