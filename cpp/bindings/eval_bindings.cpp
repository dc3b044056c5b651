#include <emscripten/bind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attribute_arguments.hpp"
#include "guard.hpp"
#include "linear_policy_handle.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/eval/off_policy_evaluation.hpp"

namespace sublinear::bindings {

namespace {
// evaluate(): the report of OffPolicyEvaluation as JSON. positions: none or one per record; filters:
// "" or a JSON array of [exclude, labels] or [exclude, labels, conditions] per record. The policy is copied through its bytes
// (over its catalogue, if it has one), so the JS object is not changed.
std::string evaluateLinearPolicy(LinearPolicyHandle& self, std::uintptr_t arms, std::size_t armCount, std::uintptr_t rewards,
                                 std::size_t rewardCount, std::uintptr_t propensities, std::size_t propensityCount,
                                 std::uintptr_t positions, std::size_t positionCount, const std::string& filtersJson,
                                 const std::string& optionsJson) {
  const Json options = parseJson(optionsJson);
  optionTable("evaluation", "evaluate").check(options);
  const OffPolicyEvaluation evaluation(options);
  DecisionLog log;
  log.arms.assign(fromAddress<const Id>(arms), fromAddress<const Id>(arms) + armCount);
  log.rewards.assign(fromAddress<const double>(rewards), fromAddress<const double>(rewards) + rewardCount);
  log.propensities.assign(fromAddress<const double>(propensities), fromAddress<const double>(propensities) + propensityCount);
  log.positions.assign(fromAddress<const std::uint32_t>(positions), fromAddress<const std::uint32_t>(positions) + positionCount);
  // [[exclude ids], [labels], {allLabels, noLabels, where}?] per record (evaluate.js checked the ids),
  // or empty: no filters.
  if (!filtersJson.empty()) {
    for (const Json& record : parseJson(filtersJson)) {
      ArmFilter filter;
      filter.exclude = record.at(0).get<std::vector<Id>>();
      filter.labels = record.at(1).get<std::vector<Label>>();
      if (record.size() > 2) readConditionObject(record.at(2), filter);
      filter.check();
      log.filters.push_back(std::move(filter));
    }
  }
  const auto bytes = std::make_shared<const std::vector<std::uint8_t>>(self.object.toBytes());
  const std::shared_ptr<Catalogue> catalogue = self.object.context();
  return evaluation
      .run([&] { return PersistentLinearPolicy::fromBytes(bytes->data(), bytes->size(), "", catalogue); }, log)
      .dump();
}
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_eval) {
  using namespace sublinear::bindings;
  emscripten::function("evaluateLinearPolicy", guard<&evaluateLinearPolicy>);
}
