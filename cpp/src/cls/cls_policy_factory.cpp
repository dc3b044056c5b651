#include "sublinear/cls/cls_policy_factory.hpp"

#include "sublinear/cls/c2ucb.hpp"
#include "sublinear/cls/comb_lin_ts.hpp"
#include "sublinear/cls/comb_lin_ucb.hpp"
#include "sublinear/cls/comb_ts.hpp"
#include "sublinear/cls/greedy_cls.hpp"
#include "sublinear/cls/pc2ucb.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {
template <class Policy>
ClsPolicyType clsEntry(const char* type) {
  return {type, [](const Json& options) -> std::unique_ptr<ClsPolicy> { return std::make_unique<Policy>(options); }};
}
}  // namespace

TypeRegistry<ClsPolicyType>& clsPolicyRegistry() {
  static TypeRegistry<ClsPolicyType> registry("cls-policy", "unknown combinatorial linear policy type", {
      clsEntry<C2UCB>("c2ucb"),
      clsEntry<PC2UCB>("pc2ucb"),
      clsEntry<CombTS>("comb-ts"),
      clsEntry<CombLinUCB>("comb-lin-ucb"),
      clsEntry<CombLinTS>("comb-lin-ts"),
      clsEntry<GreedyCLS>("greedy-cls"),
  });
  return registry;
}

std::unique_ptr<ClsPolicy> makeClsPolicy(const Json& options) {
  requireObject(options, "policy options");
  const std::string type = readString(options, "type", "");
  return clsPolicyRegistry().checked(type, options).make(options);
}

std::vector<std::string> clsPolicyTypes() { return clsPolicyRegistry().types(); }

}  // namespace sublinear
