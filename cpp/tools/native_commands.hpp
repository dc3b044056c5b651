#pragma once

// The subcommands of sublinear-native, one file each.
#include <string>

#include "sublinear/core/options.hpp"

namespace sublinear::tools {

// Config: { seed, n, dim, queries, k, churn, repeats, dataPath?, indexes: [{ label, spec, shortlists }] }.
Json runMipsBench(const Json& config);

// Prints simulate()'s result for the config file (or stdin with "-"); returns the exit status.
int simulateCommand(const std::string& configPath);

// Replays a linear policy on fixed arms with noise-free rewards; prints choices and theta^.
int linearReplay(const char* path);

}  // namespace sublinear::tools
