#include "sublinear/matroid/semi_bandit_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/matroid/cts.hpp"
#include "sublinear/matroid/cucb.hpp"
#include "sublinear/matroid/faster_cucb.hpp"

namespace sublinear {

namespace {
template <class Policy>
SemiBanditPolicyType entry(const char* type, const char* className) {
  return {type, className, [](const Matroid& matroid, const Json& options) -> std::unique_ptr<SemiBanditPolicy> {
            return std::make_unique<Policy>(matroid, options);
          }};
}
}  // namespace

TypeRegistry<SemiBanditPolicyType>& semiBanditPolicyRegistry() {
  static TypeRegistry<SemiBanditPolicyType> registry("semi-bandit-policy", "unknown matroid semi-bandit policy", {
      entry<Cucb>("cucb", "CUCB"),
      entry<FasterCucb>("faster-cucb", "FasterCUCB"),
      entry<Cts>("cts", "CTS"),
  });
  return registry;
}

std::unique_ptr<SemiBanditPolicy> makeSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options) {
  requireObject(options, "policy options");
  return semiBanditPolicyRegistry().checked(type, options).make(matroid, options);
}

std::vector<std::string> semiBanditPolicyTypes() { return semiBanditPolicyRegistry().types(); }

}  // namespace sublinear
