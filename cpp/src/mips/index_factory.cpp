#include "sublinear/mips/index_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/adaptive_index.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/lsh_index.hpp"
#include "sublinear/mips/bounded_me_index.hpp"
#include "sublinear/mips/greedy_mips_index.hpp"
#include "sublinear/mips/pca_tree_index.hpp"

namespace sublinear {

// Every index with options reads them in its constructor (dim, options) through its option table
// (core/option_tables.cpp); the keys are checked against that table first. ExactIndex reads only
// the seed every index accepts, which it validates and ignores (the exact scan draws no random numbers).
std::unique_ptr<MipsIndex> makeMipsIndex(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  const std::string type = readString(spec, "type", "exact");
  bool known = false;
  for (const auto& name : mipsIndexTypes()) known = known || name == type;
  if (known) optionTable("index", type).check(spec);
  if (type == "exact") {
    readSeedOption(option_groups::exact(), spec);
    return std::make_unique<ExactIndex>(dim, storageOption(option_groups::exact(), spec));
  }
  if (type == "hnsw") return std::make_unique<HnswIndex>(dim, spec);
  if (type == "lsh") return std::make_unique<LshIndex>(dim, spec);
  if (type == "adaptive") return std::make_unique<AdaptiveIndex>(dim, spec);
  if (type == "bounded-me") return std::make_unique<BoundedMEIndex>(dim, spec);
  if (type == "greedy") return std::make_unique<GreedyMipsIndex>(dim, spec);
  if (type == "pca-tree") return std::make_unique<PcaTreeIndex>(dim, spec);
  std::string names;
  for (const auto& name : mipsIndexTypes()) names += (names.empty() ? "" : ", ") + name;
  fail(ErrorCode::InvalidArgument, "unknown index type '" + type + "' (known: " + names + ")");
}

std::uint64_t leastSavedIndexBytes(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  const std::string type = readString(spec, "type", "exact");
  // low_ and high_, one float each per coordinate (BoundedMEIndex::saveStructure).
  if (type == "bounded-me") return 2 * sizeof(float) * static_cast<std::uint64_t>(dim);
  if (type == "adaptive") {
    const auto copies = static_cast<std::uint64_t>(readIntegerOption(option_groups::adaptive(), spec, "copies"));
    Json base = Json{{"type", "hnsw"}};
    if (spec.contains("base") && spec.at("base").is_object()) {
      base = spec.at("base");
      if (!base.contains("type")) base["type"] = "hnsw";
    }
    // A nested adaptive base is refused by the constructor; not recursing keeps this cheap too.
    if (readString(base, "type", "hnsw") == "adaptive") return 0;
    return copies * leastSavedIndexBytes(dim, base);
  }
  return 0;
}

std::vector<std::string> mipsIndexTypes() { return {"exact", "hnsw", "lsh", "adaptive", "bounded-me", "greedy", "pca-tree"}; }

}  // namespace sublinear
