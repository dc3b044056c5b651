#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "attribute_arguments.hpp"
#include "catalogue_handle.hpp"
#include "guard.hpp"
#include "linear_policy_handle.hpp"
#include "persistent_binding.hpp"
#include "typed_array_source.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear::bindings {

namespace {

// A user over the catalogue of `catalogue` (a share of it: the JS Catalogue may be disposed first).
LinearPolicyHandle* createLinearPolicyOver(CatalogueHandle& catalogue, const std::string& specJson) {
  return new LinearPolicyHandle(PersistentLinearPolicy(parseJson(specJson), catalogue.catalogue));
}

// The features as piecesOf takes them, the attributes as attributeBatch reads them.
void policyAddArms(LinearPolicyHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t features,
                   std::size_t featureLength, emscripten::val array, int labelForm, std::uintptr_t labels, std::size_t labelCount,
                   std::uintptr_t counts, const std::string& valueNames, std::uintptr_t values, std::size_t valueCount) {
  const ItemAttributes batch = attributeBatch(idCount, labelForm, labels, labelCount, counts, valueNames, values, valueCount);
  self.object->addArms(fromAddress<const Id>(ids), idCount, *piecesOf<double>(features, featureLength, std::move(array)), &batch);
}

// exclude and labels on the heap, the other conditions as readConditions reads them.
ArmFilter filterOf(std::uintptr_t exclude, std::size_t excludeCount, std::uintptr_t labels, std::size_t labelCount,
                   const std::string& conditions) {
  ArmFilter filter;
  const Id* excluded = fromAddress<const Id>(exclude);
  filter.exclude.assign(excluded, excluded + excludeCount);
  readConditions(labels, labelCount, conditions, filter);
  return filter;
}

void policyRemoveArms(LinearPolicyHandle& self, std::uintptr_t ids, std::size_t idCount) {
  self.object->removeArms(fromAddress<const Id>(ids), idCount);
}

double policySelect(LinearPolicyHandle& self, std::uintptr_t exclude, std::size_t excludeCount, std::uintptr_t labels,
                    std::size_t labelCount, const std::string& conditions) {
  return static_cast<double>(self.object->select(filterOf(exclude, excludeCount, labels, labelCount, conditions)));
}

// The slate goes to self.slate, which JS copies out (lastSlate).
std::size_t policySelectSlate(LinearPolicyHandle& self, double k, std::uintptr_t exclude, std::size_t excludeCount,
                              std::uintptr_t labels, std::size_t labelCount, const std::string& conditions) {
  require(k >= 1 && k <= kMaxUint32, ErrorCode::InvalidArgument, "k must be a positive integer");
  self.slate = self.object->selectSlate(static_cast<std::size_t>(k), filterOf(exclude, excludeCount, labels, labelCount, conditions));
  return self.slate.size();
}

emscripten::val policyLastSlate(LinearPolicyHandle& self) {
  return emscripten::val(emscripten::typed_memory_view(self.slate.size(), self.slate.data()));
}

// decide() (slate false) or decideSlate(k): the arms go to self.slate and the propensities to
// self.propensities / self.propensityErrors / self.prefixPropensities and the policy's own arms to
// self.policyArms, which JS copies out; returns the event id.
double policyDecide(LinearPolicyHandle& self, double k, bool slate, std::uintptr_t exclude, std::size_t excludeCount,
                    std::uintptr_t labels, std::size_t labelCount, const std::string& conditions) {
  require(k >= 1 && k <= kMaxUint32, ErrorCode::InvalidArgument, "k must be a positive integer");
  Decision decision = self.object->decide(static_cast<std::size_t>(k), filterOf(exclude, excludeCount, labels, labelCount, conditions), slate);
  self.slate = std::move(decision.arms);
  self.propensities = std::move(decision.propensities);
  self.propensityErrors = std::move(decision.propensityErrors);
  self.prefixPropensities = std::move(decision.prefixPropensities);
  self.policyArms = std::move(decision.policyArms);
  return static_cast<double>(decision.eventId);
}

// The last decision's policyArms: what the policy would have shown had it not explored.
emscripten::val policyLastPolicyArms(LinearPolicyHandle& self) {
  return emscripten::val(emscripten::typed_memory_view(self.policyArms.size(), self.policyArms.data()));
}

// which: 0 the propensities, 1 their errors, 2 the prefix propensities of the last decision.
emscripten::val policyLastPropensities(LinearPolicyHandle& self, int which) {
  const std::vector<double>& values = which == 2 ? self.prefixPropensities : which == 1 ? self.propensityErrors : self.propensities;
  return emscripten::val(emscripten::typed_memory_view(values.size(), values.data()));
}

// Event ids count from 1 and stay far below 2^53, which JS numbers hold exactly.
void policyReward(LinearPolicyHandle& self, double eventId, std::uintptr_t rewards, std::size_t count) {
  if (!(eventId >= 1 && eventId <= 9007199254740991.0 && eventId == std::floor(eventId))) {
    fail(ErrorCode::UnknownId, "eventId is not a positive integer");
  }
  self.object->reward(static_cast<std::uint64_t>(eventId), fromAddress<const double>(rewards), count);
}

void policyUpdate(LinearPolicyHandle& self, double arm, double reward) {
  if (!(arm >= 0 && arm <= kMaxUint32)) fail(ErrorCode::UnknownId, "arm is not an integer in [0, 2^32-1]");
  self.object->update(static_cast<Id>(arm), reward);
}

emscripten::val policyTheta(LinearPolicyHandle& self) {
  const Vector theta = self.object->theta();
  self.theta.assign(theta.data(), theta.data() + theta.size());
  return emscripten::val(emscripten::typed_memory_view(self.theta.size(), self.theta.data()));
}

double policyBuildIndex(LinearPolicyHandle& self, double maxItems) {
  require(maxItems >= 0 && maxItems <= kMaxUint32, ErrorCode::InvalidArgument, "maxItems must be a non-negative integer");
  return static_cast<double>(self.object->buildIndex(static_cast<std::size_t>(maxItems)));
}

void policyForget(LinearPolicyHandle& self, double factor) { self.object->forget(factor); }

double policyArmCount(LinearPolicyHandle& self) { return static_cast<double>(self.object->armCount()); }
int policyDim(LinearPolicyHandle& self) { return self.object->dim(); }
bool policyHasArm(LinearPolicyHandle& self, double id) {
  return id >= 0 && id <= kMaxUint32 && self.object->hasArm(static_cast<Id>(id));
}

// The state as restoreHandle takes it.
LinearPolicyHandle* restoreLinearPolicyOver(std::uintptr_t bytes, std::size_t length, emscripten::val array,
                                            const std::string& expectedType, CatalogueHandle& catalogue) {
  return new LinearPolicyHandle(PersistentLinearPolicy::fromBytes(*piecesOf<std::uint8_t>(bytes, length, std::move(array)),
                                                                  expectedType, catalogue.catalogue));
}
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_linear) {
  using namespace sublinear::bindings;
  bindPersistent(emscripten::class_<LinearPolicyHandle>("LinearPolicyHandle"))
      .function("addArms", guard<&policyAddArms>)
      .function("removeArms", guard<&policyRemoveArms>)
      .function("select", guard<&policySelect>)
      .function("selectSlate", guard<&policySelectSlate>)
      .function("lastSlate", guard<&policyLastSlate>)
      .function("update", guard<&policyUpdate>)
      .function("decide", guard<&policyDecide>)
      .function("lastPropensities", guard<&policyLastPropensities>)
      .function("lastPolicyArms", guard<&policyLastPolicyArms>)
      .function("reward", guard<&policyReward>)
      .function("theta", guard<&policyTheta>)
      .function("buildIndex", guard<&policyBuildIndex>)
      .function("forget", guard<&policyForget>)
      .function("armCount", guard<&policyArmCount>)
      .function("dim", guard<&policyDim>)
      .function("hasArm", guard<&policyHasArm>);
  emscripten::function("createLinearPolicy", guard<&createHandle<LinearPolicyHandle>>, emscripten::allow_raw_pointers());
  emscripten::function("restoreLinearPolicy", guard<&restoreHandle<LinearPolicyHandle>>, emscripten::allow_raw_pointers());
  emscripten::function("createLinearPolicyOver", guard<&createLinearPolicyOver>, emscripten::allow_raw_pointers());
  emscripten::function("restoreLinearPolicyOver", guard<&restoreLinearPolicyOver>, emscripten::allow_raw_pointers());
}
