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
ClsPolicyType clsEntry(const char* type, const char* className) {
  return {type, className, [](const Json& options) -> std::unique_ptr<ClsPolicy> { return std::make_unique<Policy>(options); }};
}
}  // namespace

TypeRegistry<ClsPolicyType>& clsPolicyRegistry() {
  static TypeRegistry<ClsPolicyType> registry("cls-policy", "unknown combinatorial linear policy type", {
      clsEntry<C2UCB>("c2ucb", "C2UCB"),
      clsEntry<PC2UCB>("pc2ucb", "PC2UCB"),
      clsEntry<CombTS>("comb-ts", "CombTS"),
      clsEntry<CombLinUCB>("comb-lin-ucb", "CombLinUCB"),
      clsEntry<CombLinTS>("comb-lin-ts", "CombLinTS"),
      clsEntry<GreedyCLS>("greedy-cls", "GreedyCLS"),
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
