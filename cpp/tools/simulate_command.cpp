// `sublinear-native simulate <config.json | ->`: simulate() natively, printing the result as JSON;
// environment.ratingsFile (a path) may stand in for environment.ratings (the file's contents).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/sim/simulate.hpp"

#include "native_commands.hpp"

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

}  // namespace

namespace sublinear::tools {

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

}  // namespace sublinear::tools
