#include "sublinear/linear/persistent_linear_policy.hpp"

#include <algorithm>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/core/state_inspection.hpp"
#include "sublinear/linear/linear_option_tables.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {

using Family = PersistenceFamily<LinearPolicy>;

namespace {
int dimOf(const Json& spec) {
  requireObject(spec, "policy options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return static_cast<int>(readIntegerOption(option_groups::linearDim(), spec, "dim"));
}

bool isUserStateType(const std::string& type) {
  const std::string suffix = Family::userStateType("");
  return type.size() > suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// inspectState: a user's state holds the catalogue's identity after the options (writeHead), a
// policy with its own arms starts its fields with the arm count (RidgePolicy::save).
void describeLinearState(const std::string& type, const Json&, StateReader& in, Json& summary) {
  const std::vector<std::string> types = Family::stateTypes();
  if (std::find(types.begin(), types.end(), type) == types.end()) return;
  if (!isUserStateType(type)) {
    summary["sizes"]["arms"] = in.u64();
    return;
  }
  summary["classType"] = type.substr(0, type.size() - Family::userStateType("").size());
  summary["catalogueIdentity"] = Catalogue::identityText(in.u64());
}
const bool kLinearStateDescribed = addStateDescriber(&describeLinearState);
}  // namespace

std::vector<std::string> Family::stateTypes() {
  std::vector<std::string> known = linearPolicyTypes();
  for (const auto& name : linearPolicyTypes()) known.push_back(userStateType(name));
  return known;
}

std::unique_ptr<LinearPolicy> Family::make(const Json& spec) { return makeLinearPolicy(dimOf(spec), spec); }

std::unique_ptr<LinearPolicy> Family::make(const Json& spec, const Context& catalogue) { return makeLinearPolicy(catalogue, spec); }

std::string Family::expectedStateType(const std::string& expectedType, const ByteSource& bytes) {
  const bool userState = isUserStateType(StateReader::peekType(bytes));
  return expectedType.empty() || !userState ? expectedType : userStateType(expectedType);
}

void Family::checkContext(const ByteSource& bytes, const std::string& type, const Context& catalogue) {
  if (!isUserStateType(type)) {
    require(catalogue == nullptr, ErrorCode::InvalidArgument,
            "this state holds its own arms (it was not saved over a catalogue): restore it without { catalogue }");
    return;
  }
  // The envelope is checked whole before its identity is compared: damaged bytes are CORRUPT_STATE.
  StateReader head(bytes, type);
  const Json spec = readOptions(head);
  const std::uint64_t saved = head.u64();
  if (catalogue == nullptr) {
    fail(ErrorCode::InvalidArgument, "this state is a user's model over catalogue " + Catalogue::identityText(saved) +
                                         ": restore it with fromBytes(bytes, { catalogue })");
  }
  if (saved != catalogue->identity()) {
    fail(ErrorCode::InvalidArgument, "this state was saved over catalogue " + Catalogue::identityText(saved) + ", not over catalogue " +
                                         catalogue->identityText() + " (another catalogue, or one not loaded from its snapshot)");
  }
  // Stored options the catalogue refuses are damage (the user was made over this catalogue with them).
  bool subspace = false;
  try {
    subspace = linearUsesCatalogueSubspace(*catalogue, spec);
  } catch (const Error& error) {
    fail(ErrorCode::CorruptState, std::string("saved state is damaged: ") + error.what());
  }
  if (!subspace) return;
  const std::uint64_t version = head.u64();
  const std::uint64_t fingerprint = head.u64();
  // A catalogue loaded from a snapshot taken before a fit that is due fits now, as it would at its
  // users' next call and as the saved one did: the same arms give the same basis.
  if (version > catalogue->subspaceVersion()) catalogue->armSubspace();
  if (version > catalogue->subspaceVersion() || fingerprint != catalogue->subspaceFingerprint(version)) {
    fail(ErrorCode::InvalidArgument, "this state's model is in version " + std::to_string(version) + " of catalogue " +
                                         catalogue->identityText() + "'s subspace, which this copy of the catalogue " +
                                         (version > catalogue->subspaceVersion() ? "has not reached (it has " + std::to_string(catalogue->subspaceVersion()) + " fits: an older snapshot?)"
                                                                                  : "fitted otherwise (changed apart from the one the state was saved over)"));
  }
}

std::unique_ptr<LinearPolicy> Family::restore(StateReader& in, const Json& spec, const std::string&, const Context& catalogue) {
  if (catalogue) {
    in.u64();  // the identity, compared in checkContext
    const bool subspace = linearUsesCatalogueSubspace(*catalogue, spec);
    if (subspace) {
      in.u64();  // the lineage, compared in checkContext
      in.u64();
    }
    // The ridge state holds at least d^2 doubles (r^2 in the subspace): refuse a state that cannot
    // before constructing the user.
    const auto d = static_cast<std::size_t>(subspace ? catalogue->subspaceModelDim() : catalogue->dim());
    in.check(in.remaining() / sizeof(double) / d >= d, "the catalogue's dimension exceeds the state");
    return makeLinearPolicy(catalogue, spec);
  }
  // A state of dimension d holds V^-1 (and, for a Thompson policy, V and V's Cholesky factor), at
  // least 8 d^2 bytes: refuse a dimension the payload cannot hold before the constructor allocates
  // d x d matrices for it. (the model's dimension: below d for a Thompson policy in the arms' subspace)
  const int dim = dimOf(spec);
  const auto d = static_cast<std::size_t>(linearModelDimension(dim, spec));
  in.check(in.remaining() / sizeof(double) / d >= d, "the stored dimension exceeds the state");
  return makeLinearPolicy(dim, spec);
}

}  // namespace sublinear
