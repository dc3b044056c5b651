// The native build's command line: the same core as the wasm module, so tests and benchmarks can
// compare the two builds on identical inputs.
//   sublinear-native rng-checksum <seed> <count>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "sublinear/core/random_checksum.hpp"

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "rng-checksum" && argc == 4) {
      std::printf("%s\n", sublinear::randomChecksum(std::stoull(argv[2]), std::stoull(argv[3])).c_str());
      return 0;
    }
    std::fprintf(stderr, "usage: sublinear-native rng-checksum <seed> <count>\n");
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
