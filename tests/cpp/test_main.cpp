// core_tests' main: the toy types (tests/toys) join the registries before GoogleTest expands the
// parameterised suites, which take their types from the registries, so that every suite that covers
// every index type or every linear policy covers the toys too. A GoogleTest Environment would run
// too late (after the suites' parameters are generated), and a static initialiser could run before
// the library's option tables are added.
#include <gtest/gtest.h>

#include "toy_types.hpp"

int main(int argc, char** argv) {
  sublinear::toys::registerToyTypes();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
