#include "sublinear/cls/cls_policy_factory.hpp"

#include <algorithm>

#include "sublinear/cls/c2ucb.hpp"
#include "sublinear/cls/comb_lin_ts.hpp"
#include "sublinear/cls/comb_lin_ucb.hpp"
#include "sublinear/cls/comb_ts.hpp"
#include "sublinear/cls/greedy_cls.hpp"
#include "sublinear/cls/pc2ucb.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear {

namespace {
template <class Policy>
ClsPolicyType entry(const char* type) {
  return {type, [](const Json& options) -> std::unique_ptr<ClsPolicy> { return std::make_unique<Policy>(options); }};
}
}  // namespace

TypeRegistry<ClsPolicyType>& clsPolicyRegistry() {
  static TypeRegistry<ClsPolicyType> registry("cls-policy", "unknown combinatorial linear policy type", {
      entry<C2UCB>("c2ucb"),
      entry<PC2UCB>("pc2ucb"),
      entry<CombTS>("comb-ts"),
      entry<CombLinUCB>("comb-lin-ucb"),
      entry<CombLinTS>("comb-lin-ts"),
      entry<GreedyCLS>("greedy-cls"),
  });
  return registry;
}

std::unique_ptr<ClsPolicy> makeClsPolicy(const Json& options) {
  requireObject(options, "policy options");
  const std::string type = readString(options, "type", "");
  return clsPolicyRegistry().checked(type, options).make(options);
}

std::vector<std::string> clsPolicyTypes() { return clsPolicyRegistry().types(); }

namespace {
// Refuses options that ask for more than the state holds, before the constructor allocates for
// them: a ridge regression of `blocks` blocks of dim / blocks coordinates is saved as three
// (dim / blocks)^2 matrices per block (V, V^-1 and V's Cholesky factor), 24 dim^2 / blocks bytes
// in all, which the constructor allocates (and factors) too; a fixed-arm index's per-coordinate
// cost is paid for as PersistentIndex's is (leastSavedIndexBytes).
void requireStateHolds(StateReader& in, const Json& options) {
  requireObject(options, "policy options");
  require(options.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  const auto dim = static_cast<std::uint64_t>(readIntegerOption(option_groups::cls(), options, "dim"));
  const auto blocks = static_cast<std::uint64_t>(readIntegerOption(option_groups::cls(), options, "blocks"));
  // dim <= 100,000 (the option's range): 24 dim^2 fits in 64 bits.
  const std::uint64_t ridgeBytes = 3 * sizeof(double) * dim * (dim / std::max<std::uint64_t>(blocks, 1));
  in.check(ridgeBytes <= in.remaining(), "the stored dimension exceeds the state");
  if (options.contains("index") && options.at("index").is_object()) {
    in.check(leastSavedIndexBytes(static_cast<std::size_t>(dim), options.at("index")) <= in.remaining(),
             "the stored index options ask for more data than the state holds");
  }
}
}  // namespace

std::unique_ptr<ClsPolicy> clsPolicyFromBytes(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, clsPolicyTypes(), expectedType, "combinatorial policy");
  std::unique_ptr<ClsPolicy> policy;
  // loadSnapshot: any error of the options or the fields is CORRUPT_STATE, running out of memory OUT_OF_MEMORY.
  loadSnapshot(bytes, length, type, [&](StateReader& in) {
    const Json options = readOptions(in);
    requireStateHolds(in, options);
    policy = makeClsPolicy(options);
    in.check(policy->type() == type, "saved options are of another policy type");
    policy->loadState(in);
  });
  return policy;
}

}  // namespace sublinear
