#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// A linear policy as a user holds it: the policy made from `{ type, dim, ...options }` and its saved
// state, a snapshot of the options and the policy's structures (core/snapshot.hpp).
class PersistentLinearPolicy {
 public:
  // spec: { type, dim, ...options } as in makeLinearPolicy; dim is required (1..1000).
  explicit PersistentLinearPolicy(const Json& spec);

  // Restores toBytes() of a policy of `expectedType` (any linear policy type when empty).
  static std::unique_ptr<PersistentLinearPolicy> fromBytes(const std::uint8_t* bytes, std::size_t length,
                                                          const std::string& expectedType);

  const LinearPolicy& policy() const { return *policy_; }
  std::size_t buildIndex(std::size_t maxItems) { return policy_->buildIndex(maxItems); }

  void addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength);
  void removeArms(const Id* ids, std::size_t count);
  Id select();
  void update(Id arm, double reward);

  std::vector<std::uint8_t> toBytes() const;

 private:
  Json spec_;
  std::unique_ptr<LinearPolicy> policy_;
};

}  // namespace sublinear
