#include "sublinear/core/memory_budget.hpp"

#include <cstddef>
#include <iomanip>
#include <limits>
#include <sstream>

#include "sublinear/core/error.hpp"

namespace sublinear {

void requireAddressable(std::uint64_t count, std::uint64_t elementBytes, const std::string& what) {
  const long double bytes = static_cast<long double>(count) * static_cast<long double>(elementBytes);
  const long double limit = static_cast<long double>(std::numeric_limits<std::size_t>::max());
  if (bytes > limit) {
    // Printed from the long double: the count may be beyond any integer type.
    std::ostringstream needed;
    needed << std::fixed << std::setprecision(0) << bytes;
    fail(ErrorCode::InvalidArgument, what + " would need " + needed.str() +
                                         " bytes, more than this build can address (" +
                                         std::to_string(static_cast<unsigned long long>(limit) + 1ULL) + " bytes)");
  }
}

}  // namespace sublinear
