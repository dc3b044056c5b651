// The main() of the wasm test build with the toys (`scripts/build.sh wasm-toys`, build/dist-toys/):
// Emscripten runs it once the runtime has started, after static initialisation (which adds the
// built-in option tables, in an order across files that C++ leaves unspecified), in the same turn
// as it resolves the module's promise, so before init() resumes, reads the registries and makes
// every registered type's class, the toys' included. The native test binary's main() does the same for core_tests.
#include "toy_types.hpp"

int main() {
  sublinear::toys::registerToyTypes();
  return 0;
}
