// Linked into every libFuzzer target (CMakeLists.txt, with the toys' sources): libFuzzer calls
// LLVMFuzzerInitialize once, after static initialisation and before the first input, and there the
// toy index and the toy policy (tests/toys) are registered, so that the targets that draw a type from
// the registries (the state fuzzers' valid states, the sequence fuzzers) draw the toys too, as the
// native test binary's main() does for core_tests.
#include "toy_types.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sublinear::toys::registerToyTypes();
  return 0;
}
