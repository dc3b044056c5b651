#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// The `index` option of a policy: `{ type, ...options }` handed to makeMipsIndex, with the type
// defaulting per policy (the paper's choice: "hnsw" for Sub-Elim and Sub-TS, "exact" for the
// linear baselines) and the seed, when the spec has none, derived from the policy's seed so that
// one seed fixes the whole run.
class PolicyIndexSpec {
 public:
  // hnswDefaults: options an "hnsw" index takes from the policy when the caller's spec leaves them out.
  PolicyIndexSpec(const Json& policyOptions, const std::string& defaultType, const Json& hnswDefaults = Json::object());

  const std::string& type() const { return type_; }
  // A new index of dimension `dim`; `stream` distinguishes several indexes of one policy.
  std::unique_ptr<MipsIndex> make(std::size_t dim, std::uint64_t stream = 0) const;

 private:
  Json spec_;
  std::string type_;
  bool hasSeed_;
  std::uint64_t seed_;
};

}  // namespace sublinear
