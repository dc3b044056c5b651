#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "sublinear/core/memory_budget.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace memory_budget_test {

TEST(MemoryBudget, AddressableRequestsPassAndImpossibleOnesNameTheirBytes) {
  requireAddressable(1000, 8, "small");
  requireAddressable(0, 1u << 30, "empty");
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() / 2;
  expectError(ErrorCode::InvalidArgument, "would need", [&] { requireAddressable(huge, 4, "a huge table"); });
  expectError(ErrorCode::InvalidArgument, "a huge table", [&] { requireAddressable(huge, 4, "a huge table"); });
  if (sizeof(std::size_t) == 4) {
    expectError(ErrorCode::InvalidArgument, "would need 8589934592 bytes", [] { requireAddressable(1ULL << 30, 8, "x"); });
  }
}

}  // namespace memory_budget_test
}  // namespace sublinear::testing
