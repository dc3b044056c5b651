#include "sublinear/linear/persistent_linear_policy.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {

namespace {
int dimOf(const Json& spec) {
  requireObject(spec, "policy options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return static_cast<int>(readIntegerOption(option_groups::linearDim(), spec, "dim"));
}

std::unique_ptr<LinearPolicy> makePolicyFromSpec(const Json& spec) { return makeLinearPolicy(dimOf(spec), spec); }
}  // namespace

PersistentLinearPolicy::PersistentLinearPolicy(const Json& spec) : spec_(spec), policy_(makePolicyFromSpec(spec)) {}

PersistentLinearPolicy::PersistentLinearPolicy(const Json& spec, std::shared_ptr<Catalogue> catalogue)
    : spec_(spec), catalogue_(std::move(catalogue)), policy_(makeLinearPolicy(catalogue_, spec)) {}

namespace {
bool isUserStateType(const std::string& type) {
  const std::string suffix = PersistentLinearPolicy::userStateType("");
  return type.size() > suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::unique_ptr<PersistentLinearPolicy> PersistentLinearPolicy::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                                          const std::string& expectedType,
                                                                          std::shared_ptr<Catalogue> catalogue) {
  std::vector<std::string> known = linearPolicyTypes();
  for (const auto& name : linearPolicyTypes()) known.push_back(userStateType(name));
  const bool userState = isUserStateType(StateReader::peekType(bytes, length));
  const std::string expected = expectedType.empty() || !userState ? expectedType : userStateType(expectedType);
  const std::string type = savedTypeOf(bytes, length, known, expected, "linear policy");
  if (!userState) {
    require(catalogue == nullptr, ErrorCode::InvalidArgument,
            "this state holds its own arms (it was not saved over a catalogue): restore it without { catalogue }");
  } else {
    // The envelope is checked whole before its identity is compared: damaged bytes are CORRUPT_STATE.
    StateReader head(bytes, length, type);
    readOptions(head);
    const std::uint64_t saved = head.u64();
    if (catalogue == nullptr) {
      fail(ErrorCode::InvalidArgument, "this state is a user's model over catalogue " + Catalogue::identityText(saved) +
                                           ": restore it with fromBytes(bytes, { catalogue })");
    }
    if (saved != catalogue->identity()) {
      fail(ErrorCode::InvalidArgument, "this state was saved over catalogue " + Catalogue::identityText(saved) + ", not over catalogue " +
                                           catalogue->identityText() + " (another catalogue, or one not loaded from its snapshot)");
    }
    std::unique_ptr<PersistentLinearPolicy> restored;
    loadSnapshot(bytes, length, type, [&](StateReader& in) {
      const Json spec = readOptions(in);
      in.u64();  // the identity, compared above
      // The ridge state holds 3 d^2 doubles: refuse a state that cannot before constructing the user.
      const auto d = static_cast<std::size_t>(catalogue->dim());
      in.check(in.remaining() / (3 * sizeof(double)) / d >= d, "the catalogue's dimension exceeds the state");
      restored = std::make_unique<PersistentLinearPolicy>(spec, catalogue);
      in.check(userStateType(restored->policy().type()) == type, "saved options are of another policy type");
      restored->policy_->load(in);
    });
    return restored;
  }
  std::unique_ptr<PersistentLinearPolicy> restored;
  loadSnapshot(bytes, length, type, [&](StateReader& in) {
    const Json spec = readOptions(in);
    // A state of dimension d holds V, V^-1 and V's Cholesky factor, 24 d^2 bytes: refuse a dimension
    // the payload cannot hold before the constructor allocates and factors d x d matrices for it.
    // (the model's dimension: below d for a Thompson policy in the arms' subspace)
    const auto d = static_cast<std::size_t>(linearModelDimension(dimOf(spec), spec));
    in.check(in.remaining() / (3 * sizeof(double)) / d >= d, "the stored dimension exceeds the state");
    restored = std::make_unique<PersistentLinearPolicy>(spec);
    in.check(restored->policy().type() == type, "saved options are of another policy type");
    restored->policy_->load(in);
  });
  return restored;
}

std::vector<std::uint8_t> PersistentLinearPolicy::toBytes() const {
  if (catalogue_) {
    StateWriter out(userStateType(policy_->type()));
    out.json(spec_);
    out.u64(catalogue_->identity());
    policy_->save(out);
    return out.finish();
  }
  StateWriter out(policy_->type());
  out.json(spec_);
  policy_->save(out);
  return out.finish();
}

void PersistentLinearPolicy::addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
                                     const Label* labels, std::size_t labelCount) {
  policy_->addArms(ids, count, features, featureLength, labels, labelCount);
}

void PersistentLinearPolicy::removeArms(const Id* ids, std::size_t count) { policy_->removeArms(ids, count); }

Id PersistentLinearPolicy::select(const ArmFilter& filter) { return policy_->select(filter); }

std::vector<Id> PersistentLinearPolicy::selectSlate(std::size_t k, const ArmFilter& filter) { return policy_->selectSlate(k, filter); }

void PersistentLinearPolicy::update(Id arm, double reward) { policy_->update(arm, reward); }

}  // namespace sublinear
