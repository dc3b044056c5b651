// The native build's command line: the same core as the wasm module, so tests and benchmarks can
// compare the two builds on identical inputs.
//   sublinear-native rng-checksum <seed> <count>
//   sublinear-native simulate <config.json | ->   prints simulate()'s result as JSON; the config is
//       API.md's simulate() config, and environment.ratingsFile (a path) may stand in for
//       environment.ratings (the file's contents).
//   sublinear-native linear-replay <file.json>
//     file: { dim, options (a makeLinearPolicy spec), ids, features, thetaStar, steps }; plays `steps`
//     rounds with the noise-free reward x^T theta* and prints the chosen ids, then theta^ (%.17g).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random_checksum.hpp"
#include "sublinear/linear/policy_factory.hpp"
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

int linearReplay(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  const sublinear::Json input = sublinear::parseJson(text.str());
  const int dim = input.at("dim").get<int>();
  auto policy = sublinear::makeLinearPolicy(dim, input.at("options"));
  const auto ids = input.at("ids").get<std::vector<sublinear::ArmId>>();
  const auto features = input.at("features").get<std::vector<double>>();
  const auto thetaStar = input.at("thetaStar").get<std::vector<double>>();
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  const long steps = input.at("steps").get<long>();
  for (long t = 0; t < steps; ++t) {
    const sublinear::ArmId arm = policy->select();
    std::size_t row = 0;
    while (ids[row] != arm) ++row;
    // The same summation order as the JavaScript side, so both compute the same reward bits.
    double reward = 0.0;
    for (int j = 0; j < dim; ++j) reward += features[row * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)] * thetaStar[static_cast<std::size_t>(j)];
    policy->update(arm, reward);
    std::printf("%s%u", t == 0 ? "" : ",", arm);
  }
  std::printf("\n");
  const sublinear::Vector theta = policy->theta();
  for (int j = 0; j < theta.size(); ++j) std::printf("%s%.17g", j == 0 ? "" : ",", theta[j]);
  std::printf("\n");
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
    if (command == "linear-replay" && argc == 3) return linearReplay(argv[2]);
    std::fprintf(stderr, "usage: sublinear-native rng-checksum <seed> <count>\n"
                         "       sublinear-native simulate <config.json | ->\n"
                         "       sublinear-native linear-replay <file.json>\n");
    return 2;
  } catch (const sublinear::Error& error) {
    std::fprintf(stderr, "error %s: %s\n", sublinear::errorCodeName(error.code()), error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
