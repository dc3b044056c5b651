#include "sublinear/cls/cls_policy_factory.hpp"

#include <algorithm>
#include <new>

#include "sublinear/cls/c2ucb.hpp"
#include "sublinear/cls/comb_lin_ts.hpp"
#include "sublinear/cls/comb_lin_ucb.hpp"
#include "sublinear/cls/comb_ts.hpp"
#include "sublinear/cls/greedy_cls.hpp"
#include "sublinear/cls/pc2ucb.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

std::unique_ptr<ClsPolicy> makeClsPolicy(const Json& options) {
  requireObject(options, "policy options");
  const std::string type = readString(options, "type", "");
  for (const auto& name : clsPolicyTypes()) {
    if (name == type) optionTable("cls-policy", type).check(options);
  }
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

std::unique_ptr<ClsPolicy> clsPolicyFromBytes(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, clsPolicyTypes(), expectedType, "combinatorial policy");
  StateReader in(bytes, length, type);
  const Json options = in.json();
  std::unique_ptr<ClsPolicy> policy;
  try {
    policy = makeClsPolicy(options);
    in.check(policy->type() == type, "saved options are of another policy type");
    policy->loadState(in);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::CorruptState) throw;
    fail(ErrorCode::CorruptState, std::string("saved state is damaged: ") + error.what());
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::CorruptState, "saved state is damaged: its options ask for more memory than there is");
  }
  in.finish();
  return policy;
}

}  // namespace sublinear
