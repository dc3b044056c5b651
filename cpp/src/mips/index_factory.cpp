#include "sublinear/mips/index_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/mips/adaptive_index.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/lsh_index.hpp"
#include "sublinear/mips/bounded_me_index.hpp"
#include "sublinear/mips/greedy_mips_index.hpp"
#include "sublinear/mips/pca_tree_index.hpp"

namespace sublinear {

std::unique_ptr<MipsIndex> makeMipsIndex(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  const std::string type = readString(spec, "type", "exact");
  if (type == "exact") return std::make_unique<ExactIndex>(dim);
  if (type == "hnsw") return std::make_unique<HnswIndex>(dim, spec);
  if (type == "lsh") return std::make_unique<LshIndex>(dim, spec);
  if (type == "adaptive") return std::make_unique<AdaptiveIndex>(dim, spec);
  if (type == "bounded-me") {
    return std::make_unique<BoundedMEIndex>(dim, readNumber(spec, "epsilon", 0.1, 0, 1, false, false),
                                            readNumber(spec, "delta", 0.1, 0, 1, false, false), readSeed(spec));
  }
  if (type == "greedy") {
    require(!(spec.contains("budget") && spec.contains("budgetFraction")), ErrorCode::InvalidArgument,
            "give either option 'budget' (candidates) or 'budgetFraction' (of the size), not both");
    return std::make_unique<GreedyMipsIndex>(dim, static_cast<std::size_t>(readInteger(spec, "budget", 0, 1, 4294967295LL)),
                                             readNumber(spec, "budgetFraction", 0.1, 0, 1, false, true));
  }
  if (type == "pca-tree") {
    return std::make_unique<PcaTreeIndex>(dim, static_cast<std::size_t>(readInteger(spec, "depth", 8, 0, PcaTreeIndex::kMaxDepth)),
                                          readSeed(spec));
  }
  std::string known;
  for (const auto& name : mipsIndexTypes()) known += (known.empty() ? "" : ", ") + name;
  fail(ErrorCode::InvalidArgument, "unknown index type '" + type + "' (known: " + known + ")");
}

std::vector<std::string> mipsIndexTypes() { return {"exact", "hnsw", "lsh", "adaptive", "bounded-me", "greedy", "pca-tree"}; }

}  // namespace sublinear
