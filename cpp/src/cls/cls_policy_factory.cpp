#include "sublinear/cls/cls_policy_factory.hpp"

#include "sublinear/cls/c2ucb.hpp"
#include "sublinear/cls/comb_lin_ts.hpp"
#include "sublinear/cls/comb_lin_ucb.hpp"
#include "sublinear/cls/comb_ts.hpp"
#include "sublinear/cls/greedy_cls.hpp"
#include "sublinear/cls/pc2ucb.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

std::unique_ptr<ClsPolicy> makeClsPolicy(const Json& options) {
  requireObject(options, "policy options");
  const std::string type = readString(options, "type", "");
  if (type == "c2ucb") return std::make_unique<C2UCB>(options);
  if (type == "pc2ucb") return std::make_unique<PC2UCB>(options);
  if (type == "comb-ts") return std::make_unique<CombTS>(options);
  if (type == "comb-lin-ucb") return std::make_unique<CombLinUCB>(options);
  if (type == "comb-lin-ts") return std::make_unique<CombLinTS>(options);
  if (type == "greedy-cls") return std::make_unique<GreedyCLS>(options);
  std::string known;
  for (const auto& name : clsPolicyTypes()) known += (known.empty() ? "" : ", ") + name;
  fail(ErrorCode::InvalidArgument, "unknown combinatorial linear policy type '" + type + "' (known: " + known + ")");
}

std::vector<std::string> clsPolicyTypes() {
  return {"c2ucb", "pc2ucb", "comb-ts", "comb-lin-ucb", "comb-lin-ts", "greedy-cls"};
}

}  // namespace sublinear
