#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"

namespace sublinear {

namespace {
Json savedOptions(const std::string& type, const Json& options) {
  Json saved = options.is_object() ? options : Json::object();
  saved["type"] = type;
  return saved;
}
}  // namespace

PersistentSemiBanditPolicy::PersistentSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options)
    : options_(savedOptions(type, options)), policy_(makeSemiBanditPolicy(type, matroid, options)) {}

std::unique_ptr<PersistentSemiBanditPolicy> PersistentSemiBanditPolicy::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                                                  const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, semiBanditPolicyTypes(), expectedType, "semi-bandit policy");
  std::unique_ptr<PersistentSemiBanditPolicy> restored;
  loadSnapshot(bytes, length, type, [&](StateReader& in) {
    const Json options = readOptions(in);
    in.check(options.value("type", std::string()) == type, "saved options are of another policy type");
    restored = std::make_unique<PersistentSemiBanditPolicy>(type, *loadMatroid(in, SemiBanditPolicy::kSavedBytesPerArm), options);
    restored->policy_->load(in);
  });
  return restored;
}

std::vector<std::uint8_t> PersistentSemiBanditPolicy::toBytes() const {
  StateWriter out(policy_->type());
  out.json(options_);
  policy_->matroid().save(out);
  policy_->save(out);
  return out.finish();
}

const std::vector<Id>& PersistentSemiBanditPolicy::select() { return policy_->select(); }

void PersistentSemiBanditPolicy::update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength) {
  policy_->update(basis, basisLength, rewards, rewardLength);
}

}  // namespace sublinear
