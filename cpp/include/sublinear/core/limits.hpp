#pragma once

namespace sublinear {

// The largest uint32 as a double: ids, labels and counts arrive from JavaScript (and from JSON
// options) as doubles and are accepted up to this before they are cast.
constexpr double kMaxUint32 = 4294967295.0;

}  // namespace sublinear
