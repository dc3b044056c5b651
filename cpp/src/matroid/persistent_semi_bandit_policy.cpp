#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"

namespace sublinear {

std::vector<std::string> PersistenceFamily<SemiBanditPolicy>::stateTypes() { return semiBanditPolicyTypes(); }

std::unique_ptr<SemiBanditPolicy> PersistenceFamily<SemiBanditPolicy>::restore(StateReader& in, const Json& spec, const std::string& type,
                                                                               const Context&) {
  in.check(spec.value("type", std::string()) == type, "saved options are of another policy type");
  return makeSemiBanditPolicy(type, *loadMatroid(in, SemiBanditPolicy::kSavedBytesPerArm), spec);
}

PersistentSemiBanditPolicy makePersistentSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options) {
  Json saved = options.is_object() ? options : Json::object();
  saved["type"] = type;
  // The policy is made before the saved options are kept: a refused type or option leaves nothing.
  std::unique_ptr<SemiBanditPolicy> policy = makeSemiBanditPolicy(type, matroid, options);
  return PersistentSemiBanditPolicy(std::move(saved), NoContext{}, std::move(policy));
}

}  // namespace sublinear
