#include "sublinear/linear/policy_index.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear {

PolicyIndexSpec::PolicyIndexSpec(const Json& policyOptions, const std::string& defaultType, const Json& hnswDefaults) {
  spec_ = Json::object();
  if (policyOptions.is_object() && policyOptions.contains("index") && !policyOptions["index"].is_null()) {
    const Json& given = policyOptions["index"];
    if (!given.is_object()) fail(ErrorCode::InvalidArgument, "option 'index' must be an object { type, ...options }");
    spec_ = given;
  }
  type_ = readString(spec_, "type", defaultType);
  spec_["type"] = type_;
  if (type_ == "hnsw") {
    for (const auto& [name, value] : hnswDefaults.items()) {
      if (!spec_.contains(name)) spec_[name] = value;
    }
  }
  hasSeed_ = spec_.contains("seed") && !spec_["seed"].is_null();
  seed_ = readSeed(policyOptions);
  if (hasSeed_) seed_ = readSeed(spec_);
}

std::unique_ptr<MipsIndex> PolicyIndexSpec::make(std::size_t dim, std::uint64_t stream) const {
  Json spec = spec_;
  // Keep within 2^53 (the range readSeed accepts) while separating the streams.
  spec["seed"] = (seed_ + 0x9E3779B9ULL * (stream + 1)) & ((1ULL << 53) - 1);
  return makeMipsIndex(dim, spec);
}

}  // namespace sublinear
