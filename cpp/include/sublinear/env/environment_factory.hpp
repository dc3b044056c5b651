#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/env/linear_environment.hpp"

namespace sublinear {

// Builds a linear-family environment from simulate()'s `environment` config for one run.
// The instance (theta*, arms, arm changes; for ratings: the held-out split and the factorisation)
// comes from `environment.seed` when given; otherwise a 'linear' instance is derived from the run's
// seed (each seed a fresh instance, as the paper's independent runs) and a 'ratings' instance is
// fixed (seed 0: one factorisation, the run's seed picks the held-out user). The feedback noise
// always comes from both seeds. A 'ratings' model is cached for the last (file, options) pair, so a
// run over many seeds parses and factorises the file once.
std::unique_ptr<LinearEnvironment> makeLinearEnvironment(const Json& options, std::int64_t horizon, std::uint64_t runSeed);

// The environment types makeLinearEnvironment accepts.
std::vector<std::string> linearEnvironmentTypes();

// A seed for a named purpose derived from a run's seed (splitmix64 of both), so that the streams
// of one run are independent and every build derives the same numbers.
std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t purpose);

}  // namespace sublinear
