#include "sublinear/mips/index_factory.hpp"

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/adaptive_index.hpp"
#include "sublinear/mips/bounded_me_index.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/greedy_mips_index.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/lsh_index.hpp"
#include "sublinear/mips/mips_option_tables.hpp"
#include "sublinear/mips/pca_tree_index.hpp"

namespace sublinear {

namespace {
template <class Index>
std::unique_ptr<MipsIndex> construct(std::size_t dim, const Json& spec) {
  return std::make_unique<Index>(dim, spec);
}
}  // namespace

// Every index with options reads them in its constructor (dim, options) through its option table
// (mips/mips_option_tables.cpp); the keys are checked against that table first. ExactIndex reads only
// the seed every index accepts, which it validates and ignores (the exact scan draws no random numbers).
TypeRegistry<MipsIndexType>& mipsIndexRegistry() {
  static TypeRegistry<MipsIndexType> registry("index", "unknown index type", {
      {"exact", "ExactIndex",
       [](std::size_t dim, const Json& spec) -> std::unique_ptr<MipsIndex> {
         readSeedOption(option_groups::exact(), spec);
         return std::make_unique<ExactIndex>(dim, storageOption(option_groups::exact(), spec));
       },
       nullptr, {}},
      {"hnsw", "HnswIndex", construct<HnswIndex>, nullptr, {}},
      {"lsh", "LshIndex", construct<LshIndex>, nullptr, {}},
      {"adaptive", "AdaptiveIndex", construct<AdaptiveIndex>,
       [](std::size_t dim, const Json& spec) -> std::uint64_t {
         const auto copies = static_cast<std::uint64_t>(readIntegerOption(option_groups::adaptive(), spec, "copies"));
         Json base = Json{{"type", "hnsw"}};
         if (spec.contains("base") && spec.at("base").is_object()) {
           base = spec.at("base");
           if (!base.contains("type")) base["type"] = "hnsw";
         }
         // A nested adaptive base is refused by the constructor; not recursing keeps this cheap too.
         if (readString(base, "type", "hnsw") == "adaptive") return 0;
         return copies * leastSavedIndexBytes(dim, base);
       },
       {}},
      // low_ and high_, one float each per coordinate (BoundedMEIndex::saveStructure).
      {"bounded-me", "BoundedMEIndex", construct<BoundedMEIndex>,
       [](std::size_t dim, const Json&) -> std::uint64_t { return 2 * sizeof(float) * static_cast<std::uint64_t>(dim); }, {}},
      {"greedy", "GreedyMipsIndex", construct<GreedyMipsIndex>, nullptr, {}},
      {"pca-tree", "PcaTreeIndex", construct<PcaTreeIndex>, nullptr, {}},
  });
  return registry;
}

std::unique_ptr<MipsIndex> makeMipsIndex(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  const std::string type = readString(spec, "type", "exact");
  return mipsIndexRegistry().checked(type, spec).make(dim, spec);
}

std::uint64_t leastSavedIndexBytes(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  const MipsIndexType* entry = mipsIndexRegistry().find(readString(spec, "type", "exact"));
  return entry != nullptr && entry->leastSavedBytes ? entry->leastSavedBytes(dim, spec) : 0;
}

std::vector<std::string> mipsIndexTypes() { return mipsIndexRegistry().types(); }

}  // namespace sublinear
