#include "sublinear/mips/index_factory.hpp"

#include <algorithm>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/mips/adaptive_index.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/mips/hnsw_index.hpp"
#include "sublinear/mips/lsh_index.hpp"
#include "sublinear/mips/bounded_me_index.hpp"
#include "sublinear/mips/greedy_mips_index.hpp"
#include "sublinear/mips/pca_tree_index.hpp"

namespace sublinear {

namespace {
std::unique_ptr<MipsIndex> makeIndexOfType(std::size_t dim, const std::string& type, const Json& spec) {
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
}  // namespace

std::unique_ptr<MipsIndex> makeMipsIndex(std::size_t dim, const Json& spec) {
  requireObject(spec, "index options");
  auto index = makeIndexOfType(dim, readString(spec, "type", "exact"), spec);
  index->options_ = spec;
  index->options_["type"] = index->type();
  return index;
}

std::unique_ptr<MipsIndex> mipsIndexFromBytes(const std::uint8_t* bytes, std::size_t length, const std::string& expectedType) {
  const std::string type = StateReader::peekType(bytes, length);
  const auto types = mipsIndexTypes();
  if (std::find(types.begin(), types.end(), type) == types.end() || (!expectedType.empty() && type != expectedType)) {
    fail(ErrorCode::CorruptState, "saved state is not of a " + (expectedType.empty() ? std::string("MIPS index") : expectedType) +
                                      " (it holds a " + type + ")");
  }
  StateReader in(bytes, length, type);
  const Json options = in.json();
  const std::uint64_t dim = in.u64();
  in.check(options.is_object() && options.value("type", "") == type && dim >= 1 && dim <= kMaxDimension, "bad index header");
  std::unique_ptr<MipsIndex> index;
  try {
    index = makeMipsIndex(static_cast<std::size_t>(dim), options);
  } catch (const Error& error) {
    fail(ErrorCode::CorruptState, std::string("saved index options are invalid: ") + error.what());
  }
  index->loadState(in);
  in.finish();
  return index;
}

std::vector<std::string> mipsIndexTypes() { return {"exact", "hnsw", "lsh", "adaptive", "bounded-me", "greedy", "pca-tree"}; }

}  // namespace sublinear
