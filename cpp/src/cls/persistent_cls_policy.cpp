#include "sublinear/cls/persistent_cls_policy.hpp"

#include <algorithm>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear {

std::vector<std::string> PersistenceFamily<ClsPolicy>::stateTypes() { return clsPolicyTypes(); }

std::unique_ptr<ClsPolicy> PersistenceFamily<ClsPolicy>::make(const Json& spec) { return makeClsPolicy(spec); }

// Refuses options that ask for more than the state holds, before the constructor allocates for
// them: a ridge regression of `blocks` blocks of dim / blocks coordinates is saved as three
// (dim / blocks)^2 matrices per block (V, V^-1 and V's Cholesky factor), 24 dim^2 / blocks bytes
// in all, which the constructor allocates (and factors) too; a fixed-arm index's per-coordinate
// cost is paid for as a saved index's is (leastSavedIndexBytes).
std::unique_ptr<ClsPolicy> PersistenceFamily<ClsPolicy>::restore(StateReader& in, const Json& spec, const std::string&, const Context&) {
  requireObject(spec, "policy options");
  require(spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  const auto dim = static_cast<std::uint64_t>(readIntegerOption(option_groups::cls(), spec, "dim"));
  const auto blocks = static_cast<std::uint64_t>(readIntegerOption(option_groups::cls(), spec, "blocks"));
  // dim <= 100,000 (the option's range): 24 dim^2 fits in 64 bits.
  const std::uint64_t ridgeBytes = 3 * sizeof(double) * dim * (dim / std::max<std::uint64_t>(blocks, 1));
  in.check(ridgeBytes <= in.remaining(), "the stored dimension exceeds the state");
  if (spec.contains("index") && spec.at("index").is_object()) {
    in.check(leastSavedIndexBytes(static_cast<std::size_t>(dim), spec.at("index")) <= in.remaining(),
             "the stored index options ask for more data than the state holds");
  }
  return makeClsPolicy(spec);
}

}  // namespace sublinear
