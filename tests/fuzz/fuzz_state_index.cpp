// fromBytes of MIPS indexes (every type), from valid states mutated and resealed (state_fuzzing.hpp).
#include "state_fuzzing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return sublinear::fuzz::fuzzState(sublinear::fuzz::kIndex, data, size);
}
