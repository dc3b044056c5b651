#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/operation_journal.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// A linear policy as a user holds it: the policy made from `{ type, dim, ...options }` and the
// journal that is its saved state (operation_journal.hpp): arm additions and removals, selections
// and updates, recorded once they succeed.
class JournaledLinearPolicy {
 public:
  // spec: { type, dim, ...options } as in makeLinearPolicy; dim is required (1..1000).
  explicit JournaledLinearPolicy(const Json& spec);

  // Restores toBytes() of a policy of `expectedType` (any linear policy type when empty).
  static std::unique_ptr<JournaledLinearPolicy> fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                          const std::string& expectedType);

  const LinearPolicy& policy() const { return *policy_; }

  void addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength);
  void removeArms(const Id* ids, std::size_t count);
  Id select();
  void update(Id arm, double reward);

  std::vector<std::uint8_t> toBytes() const { return journal_.toBytes(); }

 private:
  std::unique_ptr<LinearPolicy> policy_;
  OperationJournal journal_;
};

}  // namespace sublinear
