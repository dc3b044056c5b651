#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// A linear policy as a user holds it: the policy made from `{ type, dim, ...options }` and its saved
// state, a snapshot of the options and the policy's structures (core/snapshot.hpp).
class PersistentLinearPolicy {
 public:
  // spec: { type, dim, ...options } as in makeLinearPolicy; dim is required (1..4096).
  explicit PersistentLinearPolicy(const Json& spec);
  // A user over a shared catalogue: spec { type, ...options } without dim (makeLinearPolicy's
  // catalogue form).
  PersistentLinearPolicy(const Json& spec, std::shared_ptr<Catalogue> catalogue);

  // Restores toBytes() of a policy of `expectedType` (any linear policy type when empty). A user's
  // state (saved over a catalogue) needs the catalogue it was saved over, or one loaded from that
  // catalogue's snapshot, possibly changed since: the same identity. Without a catalogue, with one of
  // another identity, or with one for a state that holds its own arms: INVALID_ARGUMENT naming the
  // reason (the bytes are intact; the argument is wrong). Damaged bytes: CORRUPT_STATE.
  static std::unique_ptr<PersistentLinearPolicy> fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                          const std::string& expectedType,
                                                          std::shared_ptr<Catalogue> catalogue = nullptr);

  // The envelope type of a user's state: the policy's type and "@catalogue". Its payload is the
  // options, the catalogue's identity, then the policy's fields without arms or index
  // (RidgePolicy::save over a catalogue).
  static std::string userStateType(const std::string& policyType) { return policyType + "@catalogue"; }

  const LinearPolicy& policy() const { return *policy_; }
  // The catalogue the policy reads its arms from, or null.
  const std::shared_ptr<Catalogue>& catalogue() const { return catalogue_; }
  std::size_t buildIndex(std::size_t maxItems) { return policy_->buildIndex(maxItems); }

  // labels: null (every label 0) or one per arm.
  void addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
               const Label* labels = nullptr, std::size_t labelCount = 0);
  void removeArms(const Id* ids, std::size_t count);
  Id select(const ArmFilter& filter = {});
  std::vector<Id> selectSlate(std::size_t k, const ArmFilter& filter);
  void update(Id arm, double reward);
  Decision decide(std::size_t k, const ArmFilter& filter, bool slate) { return policy_->decide(k, filter, slate); }
  void reward(std::uint64_t eventId, const double* rewards, std::size_t count) { policy_->reward(eventId, rewards, count); }
  std::vector<std::pair<Id, double>> choiceDistribution(std::size_t position, const ArmFilter& filter, std::size_t draws) {
    return policy_->choiceDistribution(position, filter, draws);
  }

  std::vector<std::uint8_t> toBytes() const;

 private:
  Json spec_;
  std::shared_ptr<Catalogue> catalogue_;
  std::unique_ptr<LinearPolicy> policy_;
};

}  // namespace sublinear
