// fromBytes of combinatorial linear policies (every type), from valid states mutated and resealed (state_fuzzing.hpp).
#include "state_fuzzing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return sublinear::fuzz::fuzzState(sublinear::fuzz::kCombinatorial, data, size);
}
