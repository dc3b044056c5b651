#include "sublinear/mips/index_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/mips/adaptive_index.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/lsh_index.hpp"

namespace sublinear {

std::unique_ptr<MipsIndex> makeMipsIndex(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  const std::string type = readString(spec, "type", "exact");
  if (type == "exact") return std::make_unique<ExactIndex>(dim);
  if (type == "hnsw") return std::make_unique<HnswIndex>(dim, spec);
  if (type == "lsh") return std::make_unique<LshIndex>(dim, spec);
  if (type == "adaptive") return std::make_unique<AdaptiveIndex>(dim, spec);
  std::string known;
  for (const auto& name : mipsIndexTypes()) known += (known.empty() ? "" : ", ") + name;
  fail(ErrorCode::InvalidArgument, "unknown index type '" + type + "' (known: " + known + ")");
}

std::vector<std::string> mipsIndexTypes() { return {"exact", "hnsw", "lsh", "adaptive"}; }

}  // namespace sublinear
