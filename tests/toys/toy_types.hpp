#pragma once

// The toy index and the toy policy that follow docs/architecture.md's recipes ("Adding an index
// type", "Adding a linear policy") outside the library: the native test build registers them
// before anything reads the registries, so that every suite that loops over a registry meets them
// as it meets the built-in types.
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear::toys {

// "toy-norm-bound" (toy_index.cpp): an exact search that visits the items by decreasing norm and
// stops where Cauchy-Schwarz proves no later item can enter the answer.
MipsIndexType normBoundEntry();

// "toy-greedy" (toy_policy.cpp): the arm of largest estimated mean.
LinearPolicyType greedyEntry();

// Adds both to their registries, with their option tables. Call once, after static initialisation
// (the built-in tables are added then, in an order across files that C++ leaves unspecified) and
// before any registry is read: the native test binary's main() (tests/cpp/test_main.cpp) does.
void registerToyTypes();

}  // namespace sublinear::toys
