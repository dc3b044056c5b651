#include "sublinear/matroid/semi_bandit_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/matroid/cts.hpp"
#include "sublinear/matroid/cucb.hpp"
#include "sublinear/matroid/faster_cucb.hpp"

namespace sublinear {

std::unique_ptr<SemiBanditPolicy> makeSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options) {
  requireObject(options, "policy options");
  for (const auto& name : semiBanditPolicyTypes()) {
    if (name == type) optionTable("semi-bandit-policy", type).check(options);
  }
  if (type == "cucb") return std::make_unique<Cucb>(matroid, options);
  if (type == "faster-cucb") return std::make_unique<FasterCucb>(matroid, options);
  if (type == "cts") return std::make_unique<Cts>(matroid, options);
  fail(ErrorCode::InvalidArgument, "unknown matroid semi-bandit policy '" + type + "' (expected cucb, faster-cucb or cts)");
}

std::vector<std::string> semiBanditPolicyTypes() { return {"cucb", "faster-cucb", "cts"}; }

}  // namespace sublinear
