// The native build's command line: the same core as the wasm module, so tests and benchmarks can
// compare the two builds on identical inputs.
//   sublinear-native rng-checksum <seed> <count>
//   sublinear-native simulate <config.json | ->   prints simulate()'s result as JSON; the config is
//       API.md's simulate() config, and environment.ratingsFile (a path) may stand in for
//       environment.ratings (the file's contents).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random_checksum.hpp"
#include "sublinear/sim/simulate.hpp"

namespace {
std::string readAll(std::istream& in) {
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string readFile(const std::string& path) {
  if (path == "-") return readAll(std::cin);
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path);
  return readAll(file);
}

int simulateCommand(const std::string& configPath) {
  sublinear::Json config = sublinear::parseJson(readFile(configPath));
  if (config.is_object() && config.contains("environment") && config["environment"].is_object()) {
    sublinear::Json& environment = config["environment"];
    if (environment.contains("ratingsFile")) {
      environment["ratings"] = readFile(environment["ratingsFile"].get<std::string>());
      environment.erase("ratingsFile");
    }
  }
  const sublinear::SimulationResult result = sublinear::simulate(config);
  std::printf("%s\n", result.toJson().dump().c_str());
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "rng-checksum" && argc == 4) {
      std::printf("%s\n", sublinear::randomChecksum(std::stoull(argv[2]), std::stoull(argv[3])).c_str());
      return 0;
    }
    if (command == "simulate" && argc == 3) return simulateCommand(argv[2]);
    std::fprintf(stderr, "usage: sublinear-native rng-checksum <seed> <count>\n"
                         "       sublinear-native simulate <config.json | ->\n");
    return 2;
  } catch (const sublinear::Error& error) {
    std::fprintf(stderr, "error %s: %s\n", sublinear::errorCodeName(error.code()), error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
