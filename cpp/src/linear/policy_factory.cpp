#include "sublinear/linear/policy_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/lin_ts.hpp"
#include "sublinear/linear/lin_ucb.hpp"
#include "sublinear/linear/linear_elim.hpp"
#include "sublinear/linear/linear_option_tables.hpp"
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
  // A model in the arms' subspace scores projected rows: the lift is of the arms as they are.
  return search == "auto" ? dim <= kLiftedMaxDimension && !RidgePolicy::usesSubspaceOverOwnArms(dim, options) : search == "lifted";
}

// The lifted search copies d(d+1)/2 floats of every arm: over a catalogue that would be a copy per user.
void refuseLiftedOverCatalogue(const Json& options) {
  require(readStringOption(option_groups::elimination(), options, "search") != "lifted", ErrorCode::InvalidArgument,
          "option 'search': 'lifted' is not available over a catalogue (a lifted index per user would copy the catalogue); use 'widths' or 'auto'");
}

// The kept-widths scan, or the stage indexes over the lifted arms of LinearElim or SubElim.
template <class Lifted>
LinearPolicyType elimination(const char* type, const char* className) {
  return {type, className,
          [type](int dim, const Json& options) -> std::unique_ptr<LinearPolicy> {
            if (!searchesLifted(dim, options)) return std::make_unique<ScanElim>(type, dim, options);
            // The lifted stage indexes are over the arms as they are, in d dimensions.
            RidgePolicy::refuseSubspaceOverOwnArms(options);
            return std::make_unique<Lifted>(dim, options);
          },
          [type](std::shared_ptr<Catalogue> catalogue, const Json& options) -> std::unique_ptr<LinearPolicy> {
            refuseLiftedOverCatalogue(options);
            return std::make_unique<ScanElim>(type, std::move(catalogue), options);
          },
          [](int dim, const Json& options) { return searchesLifted(dim, options) ? dim : RidgePolicy::modelDimensionOverOwnArms(dim, options); },
          {},
          RidgePolicy::usesSubspaceOver};
}

// A RidgePolicy subclass, over its own arms or a catalogue's. `groups`: its option table when it is
// not a built-in one (see LinearPolicyType::groups).
template <class Policy>
LinearPolicyType ridge(const char* type, const char* className, std::function<int(int, const Json&)> modelDimension = nullptr,
                       std::function<bool(const Catalogue&, const Json&)> catalogueSubspace = nullptr,
                       std::vector<const OptionGroup*> groups = {}) {
  return {type, className, [](int dim, const Json& options) -> std::unique_ptr<LinearPolicy> { return std::make_unique<Policy>(dim, options); },
          [](std::shared_ptr<Catalogue> catalogue, const Json& options) -> std::unique_ptr<LinearPolicy> {
            return std::make_unique<Policy>(std::move(catalogue), options);
          },
          std::move(modelDimension), std::move(groups), std::move(catalogueSubspace)};
}

const LinearPolicyType& checkedType(const Json& options) {
  if (!options.is_object() || !options.contains("type") || options["type"].is_null()) {
    fail(ErrorCode::InvalidArgument, "option 'type' is required (one of " + linearPolicyRegistry().known() + ")");
  }
  return linearPolicyRegistry().checked(readString(options, "type", ""), options);
}
}  // namespace

TypeRegistry<LinearPolicyType>& linearPolicyRegistry() {
  static TypeRegistry<LinearPolicyType> registry("linear-policy", "option 'type': unknown linear policy", {
      ridge<LinUCB>("lin-ucb", "LinUCB", LinUCB::modelDimension, RidgePolicy::usesSubspaceOver),
      ridge<LinTS>("lin-ts", "LinTS", SubTS::modelDimension, SubTS::usesSubspaceOver),
      elimination<LinearElim>("linear-elim", "LinearElim"),
      elimination<SubElim>("sub-elim", "SubElim"),
      ridge<SubTS>("sub-ts", "SubTS", SubTS::modelDimension, SubTS::usesSubspaceOver),
  });
  return registry;
}

std::unique_ptr<LinearPolicy> makeLinearPolicy(int dim, const Json& options) {
  requireObject(options, "policy options");
  if (dim < 1 || dim > kMaxPolicyDimension) {
    fail(ErrorCode::InvalidArgument, "option 'dim' must be an integer in [1, 4096], got " + std::to_string(dim));
  }
  return checkedType(options).make(dim, options);
}

std::unique_ptr<LinearPolicy> makeLinearPolicy(std::shared_ptr<Catalogue> catalogue, const Json& options) {
  requireObject(options, "policy options");
  require(catalogue != nullptr, ErrorCode::InvalidArgument, "option 'catalogue' must be a Catalogue");
  return checkedType(options).makeForCatalogue(std::move(catalogue), options);
}

int linearModelDimension(int dim, const Json& spec) {
  const LinearPolicyType* entry = linearPolicyRegistry().find(readString(spec, "type", ""));
  return entry != nullptr && entry->modelDimension ? entry->modelDimension(dim, spec) : dim;
}

bool linearUsesCatalogueSubspace(const Catalogue& catalogue, const Json& spec) {
  const LinearPolicyType* entry = linearPolicyRegistry().find(readString(spec, "type", ""));
  return entry != nullptr && entry->catalogueSubspace && entry->catalogueSubspace(catalogue, spec);
}

std::vector<std::string> linearPolicyTypes() { return linearPolicyRegistry().types(); }

}  // namespace sublinear
