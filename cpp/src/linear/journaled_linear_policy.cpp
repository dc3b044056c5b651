#include "sublinear/linear/journaled_linear_policy.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {

namespace {
enum Operation : std::uint8_t { kAddArms = 1, kRemoveArms = 2, kSelect = 3, kUpdate = 4 };

std::unique_ptr<LinearPolicy> makePolicyFromSpec(const Json& spec) {
  requireObject(spec, "policy options");
  require(spec.is_object() && spec.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return makeLinearPolicy(static_cast<int>(readIntegerOption(option_groups::linearDim(), spec, "dim")), spec);
}
}  // namespace

JournaledLinearPolicy::JournaledLinearPolicy(const Json& spec) : policy_(makePolicyFromSpec(spec)), journal_(policy_->type(), spec) {}

std::unique_ptr<JournaledLinearPolicy> JournaledLinearPolicy::fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                                        const std::string& expectedType) {
  const std::string type = savedTypeOf(bytes, length, linearPolicyTypes(), expectedType, "linear policy");
  std::unique_ptr<JournaledLinearPolicy> restored;
  replayJournal(
      bytes, length, type,
      [&](const Json& options) {
        restored = std::make_unique<JournaledLinearPolicy>(options);
        require(restored->policy().type() == type, ErrorCode::CorruptState, "saved options are of another policy type");
      },
      [&](std::uint8_t operation, StateReader& in) {
        switch (operation) {
          case kAddArms: {
            const auto ids = in.u32s();
            const auto features = in.f64s();
            restored->addArms(ids.data(), ids.size(), features.data(), features.size());
            break;
          }
          case kRemoveArms: {
            const auto ids = in.u32s();
            restored->removeArms(ids.data(), ids.size());
            break;
          }
          case kSelect: {
            const Id recorded = in.u32();
            // The replay must take the same path; a different arm means the bytes were altered.
            require(restored->select() == recorded, ErrorCode::CorruptState, "replayed selection differs from the recorded one");
            break;
          }
          case kUpdate: {
            const Id arm = in.u32();
            restored->update(arm, in.f64());
            break;
          }
          default:
            fail(ErrorCode::CorruptState, "unknown operation " + std::to_string(operation));
        }
      });
  return restored;
}

void JournaledLinearPolicy::addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) {
  policy_->addArms(ids, count, features, featureLength);
  StateWriter& out = journal_.record(kAddArms);
  out.u32s(ids, count);
  out.f64s(features, featureLength);
}

void JournaledLinearPolicy::removeArms(const Id* ids, std::size_t count) {
  policy_->removeArms(ids, count);
  journal_.record(kRemoveArms).u32s(ids, count);
}

Id JournaledLinearPolicy::select() {
  const Id arm = policy_->select();
  journal_.record(kSelect).u32(arm);
  return arm;
}

void JournaledLinearPolicy::update(Id arm, double reward) {
  policy_->update(arm, reward);
  StateWriter& out = journal_.record(kUpdate);
  out.u32(arm);
  out.f64(reward);
}

}  // namespace sublinear
