#include "sublinear/linear/persistent_linear_policy.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {

namespace {
std::unique_ptr<LinearPolicy> makePolicyFromSpec(const Json& spec) {
  requireObject(spec, "policy options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return makeLinearPolicy(static_cast<int>(readIntegerOption(option_groups::linearDim(), spec, "dim")), spec);
}
}  // namespace

PersistentLinearPolicy::PersistentLinearPolicy(const Json& spec) : spec_(spec), policy_(makePolicyFromSpec(spec)) {}

std::unique_ptr<PersistentLinearPolicy> PersistentLinearPolicy::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                                          const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, linearPolicyTypes(), expectedType, "linear policy");
  std::unique_ptr<PersistentLinearPolicy> restored;
  loadSnapshot(bytes, length, type, [&](StateReader& in) {
    restored = std::make_unique<PersistentLinearPolicy>(readOptions(in));
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
