// The native build's command line: the same core as the wasm module, so tests and benchmarks can
// compare the two builds on identical inputs.
//   sublinear-native rng-checksum <seed> <count>
//   sublinear-native mips-bench '<json config>'     (bench/mips.mjs; see mips_bench_command.cpp)
//   sublinear-native simulate <config.json | ->     (simulate()'s result as JSON; simulate_command.cpp)
//   sublinear-native linear-replay <file.json>      (linear_replay_command.cpp)
#include <cstdio>
#include <exception>
#include <string>

#include "native_commands.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/random_checksum.hpp"

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "rng-checksum" && argc == 4) {
      std::printf("%s\n", sublinear::randomChecksum(std::stoull(argv[2]), std::stoull(argv[3])).c_str());
      return 0;
    }
    if (command == "mips-bench" && argc == 3) {
      std::printf("%s\n", sublinear::tools::runMipsBench(sublinear::parseJson(argv[2])).dump().c_str());
      return 0;
    }
    if (command == "simulate" && argc == 3) return sublinear::tools::simulateCommand(argv[2]);
    if (command == "linear-replay" && argc == 3) return sublinear::tools::linearReplay(argv[2]);
    std::fprintf(stderr,
                 "usage: sublinear-native rng-checksum <seed> <count>\n"
                 "       sublinear-native mips-bench '<json config>'\n"
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
