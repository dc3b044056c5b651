#include <emscripten/bind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attribute_arguments.hpp"
#include "catalogue_handle.hpp"
#include "guard.hpp"
#include "linear_policy_handle.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/eval/off_policy_evaluation.hpp"
#include "sublinear/eval/population_evaluation.hpp"

namespace sublinear::bindings {

namespace {
// The log's arrays as evaluate.js put them on the heap. positions and pages: none or one per record; filters:
// "" or a JSON array of [exclude, labels] or [exclude, labels, conditions] per record.
DecisionLog logFrom(std::uintptr_t arms, std::size_t armCount, std::uintptr_t rewards, std::size_t rewardCount,
                    std::uintptr_t propensities, std::size_t propensityCount, std::uintptr_t positions,
                    std::size_t positionCount, std::uintptr_t pages, std::size_t pageCount, const std::string& filtersJson) {
  DecisionLog log;
  log.arms.assign(fromAddress<const Id>(arms), fromAddress<const Id>(arms) + armCount);
  log.rewards.assign(fromAddress<const double>(rewards), fromAddress<const double>(rewards) + rewardCount);
  log.propensities.assign(fromAddress<const double>(propensities), fromAddress<const double>(propensities) + propensityCount);
  log.positions.assign(fromAddress<const std::uint32_t>(positions), fromAddress<const std::uint32_t>(positions) + positionCount);
  log.pages.assign(fromAddress<const std::uint32_t>(pages), fromAddress<const std::uint32_t>(pages) + pageCount);
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
  return log;
}

// evaluate(): the report of OffPolicyEvaluation as JSON. The policy is copied through its bytes
// (over its catalogue, if it has one), so the JS object is not changed.
std::string evaluateLinearPolicy(LinearPolicyHandle& self, std::uintptr_t arms, std::size_t armCount, std::uintptr_t rewards,
                                 std::size_t rewardCount, std::uintptr_t propensities, std::size_t propensityCount,
                                 std::uintptr_t positions, std::size_t positionCount, std::uintptr_t pages, std::size_t pageCount,
                                 std::uintptr_t prefixPropensities, std::size_t prefixCount, std::uintptr_t policyArms,
                                 std::size_t policyArmCount, const std::string& filtersJson, const std::string& optionsJson) {
  const Json options = parseJson(optionsJson);
  optionTable("evaluation", "evaluate").check(options);
  const OffPolicyEvaluation evaluation(options);
  DecisionLog log = logFrom(arms, armCount, rewards, rewardCount, propensities, propensityCount, positions, positionCount, pages, pageCount, filtersJson);
  // The logger's probability of each page's prefix (page-cascade): none or one per record.
  log.prefixPropensities.assign(fromAddress<const double>(prefixPropensities), fromAddress<const double>(prefixPropensities) + prefixCount);
  // The logger's own arms (page-pi of the exploration mix): none or one per record.
  log.policyArms.assign(fromAddress<const Id>(policyArms), fromAddress<const Id>(policyArms) + policyArmCount);
  const auto bytes = std::make_shared<const std::vector<std::uint8_t>>(self.object.toBytes());
  const std::shared_ptr<Catalogue> catalogue = self.object.context();
  return evaluation
      .run([&] { return PersistentLinearPolicy::fromBytes(bytes->data(), bytes->size(), "", catalogue); }, log)
      .dump();
}

// A population as evaluate.js passes it: a learning one by its policy's JSON, one of saved states by
// its users' ids, their states laid end to end in `blob` and count + 1 offsets into it, frozen or
// learning on from them (`learn`).
UserModels populationFrom(const std::shared_ptr<Catalogue>& catalogue, const std::string& policyJson, bool learn, std::uintptr_t ids,
                          std::size_t idCount, std::uintptr_t offsets, std::uintptr_t blob) {
  if (!policyJson.empty()) return UserModels::learning(catalogue, parseJson(policyJson));
  std::unordered_map<Id, std::vector<std::uint8_t>> states;
  const auto* at = fromAddress<const std::uint32_t>(offsets);
  const auto* bytes = fromAddress<const std::uint8_t>(blob);
  for (std::size_t i = 0; i < idCount; ++i) {
    states[fromAddress<const Id>(ids)[i]].assign(bytes + at[i], bytes + at[i + 1]);
  }
  return learn ? UserModels::learningFrom(catalogue, std::move(states)) : UserModels::frozen(catalogue, std::move(states));
}

// evaluate() with users: the report of PopulationEvaluation as JSON, with a baseline when hasBaseline.
std::string evaluatePopulation(CatalogueHandle& catalogue, std::uintptr_t users, std::size_t userCount, std::uintptr_t arms,
                               std::size_t armCount, std::uintptr_t rewards, std::size_t rewardCount, std::uintptr_t propensities,
                               std::size_t propensityCount, std::uintptr_t positions, std::size_t positionCount,
                               std::uintptr_t pages, std::size_t pageCount, std::uintptr_t prefixPropensities, std::size_t prefixCount,
                               std::uintptr_t policyArms, std::size_t policyArmCount, const std::string& filtersJson, const std::string& optionsJson, const std::string& candidatePolicy,
                               bool candidateLearns, std::uintptr_t candidateIds, std::size_t candidateCount, std::uintptr_t candidateOffsets,
                               std::uintptr_t candidateBlob, bool hasBaseline, const std::string& baselinePolicy,
                               bool baselineLearns, std::uintptr_t baselineIds, std::size_t baselineCount, std::uintptr_t baselineOffsets,
                               std::uintptr_t baselineBlob) {
  const Json options = parseJson(optionsJson);
  optionTable("evaluation", "evaluate").check(options);
  const PopulationEvaluation evaluation(options);
  DecisionLog log = logFrom(arms, armCount, rewards, rewardCount, propensities, propensityCount, positions, positionCount, pages, pageCount, filtersJson);
  log.prefixPropensities.assign(fromAddress<const double>(prefixPropensities), fromAddress<const double>(prefixPropensities) + prefixCount);
  log.policyArms.assign(fromAddress<const Id>(policyArms), fromAddress<const Id>(policyArms) + policyArmCount);
  const std::vector<Id> logUsers(fromAddress<const Id>(users), fromAddress<const Id>(users) + userCount);
  const UserModels candidate = populationFrom(catalogue.catalogue, candidatePolicy, candidateLearns, candidateIds, candidateCount, candidateOffsets, candidateBlob);
  if (!hasBaseline) return evaluation.run(candidate, nullptr, log, logUsers).dump();
  const UserModels baseline = populationFrom(catalogue.catalogue, baselinePolicy, baselineLearns, baselineIds, baselineCount, baselineOffsets, baselineBlob);
  return evaluation.run(candidate, &baseline, log, logUsers).dump();
}
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_eval) {
  using namespace sublinear::bindings;
  emscripten::function("evaluateLinearPolicy", guard<&evaluateLinearPolicy>);
  emscripten::function("evaluatePopulation", guard<&evaluatePopulation>);
}
