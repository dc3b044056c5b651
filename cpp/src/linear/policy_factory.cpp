#include "sublinear/linear/policy_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/lin_ts.hpp"
#include "sublinear/linear/lin_ucb.hpp"
#include "sublinear/linear/linear_elim.hpp"
#include "sublinear/linear/scan_elim.hpp"
#include "sublinear/linear/sub_elim.hpp"
#include "sublinear/linear/sub_ts.hpp"

namespace sublinear {

constexpr int kMaxPolicyDimension = 4096;

namespace {
// The largest dimension at which the elimination policies over their own arms search lifted stage
// indexes by default. Measured side by side (bench/results/elimination-search.md): at d <= 16 the
// lifted search steps faster (its heaps and bounds touch only the arms near the top, kept widths
// read a byte per arm and correct every arm in play), from d = 24 kept widths step as fast or
// faster, set up 20-40 times faster, and the lift (d(d+1)/2 floats an arm: 136 at d = 16, 528 at
// d = 32) outgrows the arms themselves.
constexpr int kLiftedMaxDimension = 16;

bool searchesLifted(int dim, const Json& options) {
  const std::string search = readStringOption(option_groups::elimination(), options, "search");
  return search == "auto" ? dim <= kLiftedMaxDimension : search == "lifted";
}
}  // namespace

std::unique_ptr<LinearPolicy> makeLinearPolicy(int dim, const Json& options) {
  requireObject(options, "policy options");
  if (dim < 1 || dim > kMaxPolicyDimension) {
    fail(ErrorCode::InvalidArgument, "option 'dim' must be an integer in [1, 4096], got " + std::to_string(dim));
  }
  require(options.is_object() && options.contains("type") && !options["type"].is_null(), ErrorCode::InvalidArgument,
          "option 'type' is required (one of lin-ucb, lin-ts, linear-elim, sub-elim, sub-ts)");
  const std::string type = readString(options, "type", "");
  for (const auto& name : linearPolicyTypes()) {
    if (name == type) optionTable("linear-policy", type).check(options);
  }
  if (type == "lin-ucb") return std::make_unique<LinUCB>(dim, options);
  if (type == "lin-ts") return std::make_unique<LinTS>(dim, options);
  if (type == "sub-ts") return std::make_unique<SubTS>(dim, options);
  if (type == "linear-elim" || type == "sub-elim") {
    if (!searchesLifted(dim, options)) return std::make_unique<ScanElim>(type, dim, options);
    if (type == "linear-elim") return std::make_unique<LinearElim>(dim, options);
    return std::make_unique<SubElim>(dim, options);
  }
  std::string known;
  for (const auto& name : linearPolicyTypes()) known += (known.empty() ? "" : ", ") + name;
  fail(ErrorCode::InvalidArgument, "option 'type': unknown linear policy '" + type + "' (known: " + known + ")");
}

std::unique_ptr<LinearPolicy> makeLinearPolicy(std::shared_ptr<Catalogue> catalogue, const Json& options) {
  requireObject(options, "policy options");
  require(catalogue != nullptr, ErrorCode::InvalidArgument, "option 'catalogue' must be a Catalogue");
  require(options.is_object() && options.contains("type") && !options["type"].is_null(), ErrorCode::InvalidArgument,
          "option 'type' is required (one of lin-ucb, lin-ts, linear-elim, sub-elim, sub-ts)");
  const std::string type = readString(options, "type", "");
  for (const auto& name : linearPolicyTypes()) {
    if (name == type) optionTable("linear-policy", type).check(options);
  }
  if (type == "lin-ucb") return std::make_unique<LinUCB>(std::move(catalogue), options);
  if (type == "lin-ts") return std::make_unique<LinTS>(std::move(catalogue), options);
  if (type == "sub-ts") return std::make_unique<SubTS>(std::move(catalogue), options);
  if (type == "linear-elim" || type == "sub-elim") {
    // A lifted index per user would copy d(d+1)/2 floats of every arm into every user.
    require(readStringOption(option_groups::elimination(), options, "search") != "lifted", ErrorCode::InvalidArgument,
            "option 'search': 'lifted' is not available over a catalogue (a lifted index per user would copy the catalogue); use 'widths' or 'auto'");
    return std::make_unique<ScanElim>(type, std::move(catalogue), options);
  }
  std::string known;
  for (const auto& name : linearPolicyTypes()) known += (known.empty() ? "" : ", ") + name;
  fail(ErrorCode::InvalidArgument, "option 'type': unknown linear policy '" + type + "' (known: " + known + ")");
}

int linearModelDimension(int dim, const Json& spec) {
  const std::string type = readString(spec, "type", "");
  return type == "lin-ts" || type == "sub-ts" ? SubTS::modelDimension(dim, spec) : dim;
}

std::vector<std::string> linearPolicyTypes() { return {"lin-ucb", "lin-ts", "linear-elim", "sub-elim", "sub-ts"}; }

}  // namespace sublinear
