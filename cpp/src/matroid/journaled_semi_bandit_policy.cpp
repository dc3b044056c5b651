#include "sublinear/matroid/journaled_semi_bandit_policy.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"

namespace sublinear {

namespace {
enum Operation : std::uint8_t { kMatroid = 1, kSelect = 2, kUpdate = 3 };

Json journalOptions(const std::string& type, const Json& options) {
  Json saved = options.is_object() ? options : Json::object();
  saved["type"] = type;
  return saved;
}
}  // namespace

JournaledSemiBanditPolicy::JournaledSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options)
    : policy_(makeSemiBanditPolicy(type, matroid, options)), journal_(type, journalOptions(type, options)) {
  // The matroid is the journal's first record: the policy cannot be rebuilt without it.
  policy_->matroid().save(journal_.record(kMatroid));
}

std::unique_ptr<JournaledSemiBanditPolicy> JournaledSemiBanditPolicy::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                                                const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, semiBanditPolicyTypes(), expectedType, "semi-bandit policy");
  Json options;
  std::unique_ptr<JournaledSemiBanditPolicy> restored;
  std::vector<Id> basis;
  replayJournal(
      bytes, length, type, [&](const Json& saved) { options = saved; },
      [&](std::uint8_t operation, StateReader& in) {
        require((operation == kMatroid) == !restored, ErrorCode::CorruptState, "the matroid must be the first and only record of its kind");
        switch (operation) {
          case kMatroid:
            restored = std::make_unique<JournaledSemiBanditPolicy>(type, *loadMatroid(in), options);
            break;
          case kSelect: {
            const auto recorded = in.u32s();
            // The replay must take the same path; a different basis means the bytes were altered.
            require(restored->select() == recorded, ErrorCode::CorruptState, "replayed basis differs from the recorded one");
            break;
          }
          case kUpdate: {
            basis = in.u32s();
            const auto rewards = in.f64s();
            restored->update(basis.data(), basis.size(), rewards.data(), rewards.size());
            break;
          }
          default:
            fail(ErrorCode::CorruptState, "unknown operation " + std::to_string(operation));
        }
      });
  require(restored != nullptr, ErrorCode::CorruptState, "saved state has no matroid");
  return restored;
}

const std::vector<Id>& JournaledSemiBanditPolicy::select() {
  const std::vector<Id>& basis = policy_->select();
  journal_.record(kSelect).u32s(basis.data(), basis.size());
  return basis;
}

void JournaledSemiBanditPolicy::update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength) {
  policy_->update(basis, basisLength, rewards, rewardLength);
  StateWriter& out = journal_.record(kUpdate);
  out.u32s(basis, basisLength);
  out.f64s(rewards, rewardLength);
}

}  // namespace sublinear
