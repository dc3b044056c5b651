#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/operation_journal.hpp"
#include "sublinear/matroid/semi_bandit_policy.hpp"

namespace sublinear {

// A matroid semi-bandit policy as a user holds it: the policy over a copy of the matroid and the
// journal that is its saved state (operation_journal.hpp): the options, the matroid, then every
// selection and update, recorded once they succeed.
class JournaledSemiBanditPolicy {
 public:
  JournaledSemiBanditPolicy(const std::string& type, const Matroid& matroid, const Json& options);

  // Restores toBytes() of a policy of `expectedType` (any semi-bandit policy type when empty).
  static std::unique_ptr<JournaledSemiBanditPolicy> fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                              const std::string& expectedType);

  const SemiBanditPolicy& policy() const { return *policy_; }

  const std::vector<Id>& select();
  void update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength);

  std::vector<std::uint8_t> toBytes() const { return journal_.toBytes(); }

 private:
  std::unique_ptr<SemiBanditPolicy> policy_;
  OperationJournal journal_;
};

}  // namespace sublinear
