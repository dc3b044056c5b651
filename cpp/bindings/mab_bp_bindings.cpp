// The Multi-Armed Bandit with Bounded Pulls solver (BoundedME on explicit reward lists).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <vector>

#include "guard.hpp"
#include "sublinear/mips/bounded_me_solver.hpp"

namespace sublinear::bindings {

namespace {
// The arms of the last solve, which JS copies out right after the call.
std::vector<std::uint32_t> lastArms;

double boundedME(std::uintptr_t rewards, std::size_t rewardCount, double armCount, double listLength, const std::string& optionsJson) {
  require(armCount >= 1 && listLength >= 1 && armCount <= kMaxUint32 && listLength <= kMaxUint32,
          ErrorCode::InvalidArgument, "K and N must be positive integers");
  const auto result = solveBoundedPulls(fromAddress<const double>(rewards), rewardCount, static_cast<std::size_t>(armCount),
                                        static_cast<std::size_t>(listLength), parseJson(optionsJson));
  lastArms.assign(result.arms.begin(), result.arms.end());
  return static_cast<double>(result.pulls);
}

emscripten::val boundedMELastArms() { return emscripten::val(emscripten::typed_memory_view(lastArms.size(), lastArms.data())); }
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_mab_bp) {
  using namespace sublinear::bindings;
  emscripten::function("boundedME", guard<&boundedME>);
  emscripten::function("boundedMELastArms", guard<&boundedMELastArms>);
}
