// Sub-TS over an int8 graph (index { type: 'hnsw', storage: 'int8' }) against the same policy over a
// float graph: the regret must stay that of float storage. The policy's features stay exact
// (doubles); only the index's rows, its graph and the scores of its shortlist are the decoded codes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sublinear/sim/simulate.hpp"

namespace sublinear {
namespace {

double meanFinalRegret(const std::string& storage, int dim, int arms) {
  Json config = Json::parse(R"({"environment": {"type": "linear", "noise": 1},
                                "policy": {"type": "sub-ts", "index": {"type": "hnsw", "build": "immediate"}},
                                "horizon": 2000, "seeds": [1, 2, 3, 4], "recordEvery": 2000})");
  config["environment"]["dim"] = dim;
  config["environment"]["arms"] = arms;
  config["policy"]["index"]["storage"] = storage;
  const SimulationResult result = simulate(config);
  return result.meanOf(&SimulationRun::cumulativeRegret).back();
}

TEST(QuantisedStorageBattery, SubTsRegretOverAnInt8GraphIsThatOfAFloatGraph) {
  for (const auto& [dim, arms] : {std::pair{16, 20000}, std::pair{32, 10000}}) {
    const double f32 = meanFinalRegret("f32", dim, arms);
    const double int8 = meanFinalRegret("int8", dim, arms);
    if (std::getenv("BATTERY_VERBOSE") != nullptr) std::printf("| d=%d K=%d | f32 %.2f | int8 %.2f |\n", dim, arms, f32, int8);
    // Same seeds, same environments: only the index's rounding differs, so the runs part ways at the
    // first near-tie; 15% covers that drift over 4 seeds, a systematic loss would not fit.
    EXPECT_LE(int8, 1.15 * f32 + 5.0) << "d " << dim << " K " << arms << ": f32 " << f32 << ", int8 " << int8;
  }
}

}  // namespace
}  // namespace sublinear
