#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// A matroid semi-bandit policy as a user holds it: the policy over a copy of the matroid and its
// saved state, a snapshot (core/snapshot.hpp): the options, the matroid, then the policy's fields.
class PersistentSemiBanditPolicy {
 public:
  PersistentSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options);

  // Restores toBytes() of a policy of `expectedType` (any semi-bandit policy type when empty).
  static std::unique_ptr<PersistentSemiBanditPolicy> fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                              const std::string& expectedType);

  const SemiBanditPolicy& policy() const { return *policy_; }

  const std::vector<Id>& select();
  void update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength);

  std::vector<std::uint8_t> toBytes() const;

 private:
  Json options_;
  std::unique_ptr<SemiBanditPolicy> policy_;
};

}  // namespace sublinear
