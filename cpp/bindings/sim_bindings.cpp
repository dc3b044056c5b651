#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>

#include "guard.hpp"
#include "sublinear/sim/simulate.hpp"

namespace sublinear::bindings {

namespace {
// The result of one simulate() call, kept until JS has copied its arrays out.
struct SimulationHandle {
  SimulationResult result;
  std::vector<double> meanRegret, stdRegret, meanReward, stdReward;
};

// What the progress callback answers when the JS onProgress threw: JS rethrows its own error.
constexpr const char* kProgressStopped = "simulation stopped: onProgress threw";

SimulationHandle* runSimulation(const std::string& configJson, std::uintptr_t ratings, std::size_t ratingsLength,
                                bool hasRatings, emscripten::val onProgress) {
  Json config = parseJson(configJson);
  require(config.is_object(), ErrorCode::InvalidArgument, "the simulation config must be an object");
  if (hasRatings) {
    // The file travels as bytes on the heap, never through JSON.stringify in JavaScript.
    require(config.contains("environment") && config["environment"].is_object(), ErrorCode::InvalidArgument,
            "option 'environment' must be an object with a 'type'");
    config["environment"]["ratings"] = std::string(fromAddress<const char>(ratings), ratingsLength);
  }
  std::function<void(double)> progress;
  if (!onProgress.isUndefined() && !onProgress.isNull()) {
    progress = [&onProgress](double fraction) {
      if (!onProgress(fraction).as<bool>()) fail(ErrorCode::InvalidArgument, kProgressStopped);
    };
  }
  auto handle = std::make_unique<SimulationHandle>();
  handle->result = simulate(config, progress);
  handle->meanRegret = handle->result.meanOf(&SimulationRun::cumulativeRegret);
  handle->stdRegret = handle->result.standardDeviationOf(&SimulationRun::cumulativeRegret);
  handle->meanReward = handle->result.meanOf(&SimulationRun::cumulativeReward);
  handle->stdReward = handle->result.standardDeviationOf(&SimulationRun::cumulativeReward);
  return handle.release();
}

template <typename T>
emscripten::val view(const std::vector<T>& values) {
  return emscripten::val(emscripten::typed_memory_view(values.size(), values.data()));
}

const SimulationRun& runAt(SimulationHandle& self, std::size_t i) {
  require(i < self.result.runs.size(), ErrorCode::InvalidArgument, "run index out of range");
  return self.result.runs[i];
}

std::size_t runCount(SimulationHandle& self) { return self.result.runs.size(); }
bool multipleSeeds(SimulationHandle& self) { return self.result.multipleSeeds; }
double runSeed(SimulationHandle& self, std::size_t i) { return static_cast<double>(runAt(self, i).seed); }
emscripten::val runT(SimulationHandle& self, std::size_t i) { return view(runAt(self, i).t); }
emscripten::val runRegret(SimulationHandle& self, std::size_t i) { return view(runAt(self, i).cumulativeRegret); }
emscripten::val runReward(SimulationHandle& self, std::size_t i) { return view(runAt(self, i).cumulativeReward); }
// Many users: { count, regret: { median, q1, q3 }, memory } as JSON, or "" for one user.
std::string runUsers(SimulationHandle& self, std::size_t i) {
  const SimulationRun& run = runAt(self, i);
  return run.users.is_null() ? std::string() : run.users.dump();
}
double runInnerProducts(SimulationHandle& self, std::size_t i) { return static_cast<double>(runAt(self, i).innerProducts); }
// setup, select, update, total seconds.
emscripten::val runSeconds(SimulationHandle& self, std::size_t i) {
  const SimulationRun& run = runAt(self, i);
  emscripten::val seconds = emscripten::val::object();
  seconds.set("setup", run.clock.setup);
  seconds.set("select", run.clock.select);
  seconds.set("update", run.clock.update);
  seconds.set("total", run.totalSeconds);
  return seconds;
}
emscripten::val meanRegret(SimulationHandle& self) { return view(self.meanRegret); }
emscripten::val stdRegret(SimulationHandle& self) { return view(self.stdRegret); }
emscripten::val meanReward(SimulationHandle& self) { return view(self.meanReward); }
emscripten::val stdReward(SimulationHandle& self) { return view(self.stdReward); }
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_sim) {
  using namespace sublinear::bindings;
  emscripten::class_<SimulationHandle>("SimulationHandle")
      .function("runCount", guard<&runCount>)
      .function("multipleSeeds", guard<&multipleSeeds>)
      .function("runSeed", guard<&runSeed>)
      .function("runT", guard<&runT>)
      .function("runRegret", guard<&runRegret>)
      .function("runReward", guard<&runReward>)
      .function("runInnerProducts", guard<&runInnerProducts>)
      .function("runUsers", guard<&runUsers>)
      .function("runSeconds", guard<&runSeconds>)
      .function("meanRegret", guard<&meanRegret>)
      .function("stdRegret", guard<&stdRegret>)
      .function("meanReward", guard<&meanReward>)
      .function("stdReward", guard<&stdReward>);
  emscripten::function("runSimulation", guard<&runSimulation>, emscripten::allow_raw_pointers());
}
