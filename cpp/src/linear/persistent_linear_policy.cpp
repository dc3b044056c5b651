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

std::unique_ptr<PersistentLinearPolicy> PersistentLinearPolicy::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                                          const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, linearPolicyTypes(), expectedType, "linear policy");
  std::unique_ptr<PersistentLinearPolicy> restored;
  loadSnapshot(bytes, length, type, [&](StateReader& in) {
    const Json spec = readOptions(in);
    // A state of dimension d holds V, V^-1 and V's Cholesky factor, 24 d^2 bytes: refuse a dimension
    // the payload cannot hold before the constructor allocates and factors d x d matrices for it.
    const auto d = static_cast<std::size_t>(dimOf(spec));
    in.check(in.remaining() / (3 * sizeof(double)) / d >= d, "the stored dimension exceeds the state");
    restored = std::make_unique<PersistentLinearPolicy>(spec);
    in.check(restored->policy().type() == type, "saved options are of another policy type");
    restored->policy_->load(in);
  });
  return restored;
}

std::vector<std::uint8_t> PersistentLinearPolicy::toBytes() const {
  StateWriter out(policy_->type());
  out.json(spec_);
  policy_->save(out);
  return out.finish();
}

void PersistentLinearPolicy::addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) {
  policy_->addArms(ids, count, features, featureLength);
}

void PersistentLinearPolicy::removeArms(const Id* ids, std::size_t count) { policy_->removeArms(ids, count); }

Id PersistentLinearPolicy::select() { return policy_->select(); }

void PersistentLinearPolicy::update(Id arm, double reward) { policy_->update(arm, reward); }

}  // namespace sublinear
