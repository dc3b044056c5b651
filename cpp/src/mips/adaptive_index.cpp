#include "sublinear/mips/adaptive_index.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

AdaptiveIndex::AdaptiveIndex(std::size_t dim, const Json& options) : MipsIndex(dim) {
  const OptionGroup& specs = option_groups::adaptive();
  const auto copies = static_cast<std::size_t>(readIntegerOption(specs, options, "copies"));
  const double epsilon = readOption(specs, options, "epsilon");
  gridStep_ = epsilon / static_cast<double>(dim);
  Json base = Json{{"type", "hnsw"}};
  if (options.is_object() && options.contains("base") && !options.at("base").is_null()) {
    base = options.at("base");
    require(base.is_object(), ErrorCode::InvalidArgument, "option 'base' must be an object { type, ...options }");
    if (!base.contains("type")) base["type"] = "hnsw";
  }
  baseType_ = readString(base, "type", "hnsw");
  // A seed given in `base` is validated like any index's, then replaced by each copy's own draw.
  if (base.contains("seed")) readSeed(base);
  // Copies of copies would multiply: 64 levels of options could ask for 64^64 indexes.
  require(baseType_ != "adaptive", ErrorCode::InvalidArgument,
          "option 'base' cannot be an adaptive index (the copies are independent indexes of another type)");
  // The copies take the adaptive index's float rows: quantising them again would be a second rounding
  // of what the adaptive index keeps, and their codes would not match a copy saved and restored.
  require(!base.contains("storage") || base.at("storage") == "f32", ErrorCode::InvalidArgument,
          "option 'base.storage' must be 'f32' (an adaptive index keeps its items as floats)");
  // Independent copies: each one's seed is a fresh draw from the index's seed.
  Random seeds(readSeedOption(specs, options));
  for (std::size_t i = 0; i < copies; ++i) {
    base["seed"] = seeds.nextU64() >> 11;  // 53 bits: a seed JSON (and JavaScript) carries exactly
    copies_.push_back(makeMipsIndex(dim, base));
  }
}

std::vector<float> AdaptiveIndex::roundedQuery(const float* query) const {
  double squaredNorm = 0.0;
  for (std::size_t i = 0; i < dim(); ++i) squaredNorm += static_cast<double>(query[i]) * query[i];
  const double norm = std::sqrt(squaredNorm);
  std::vector<float> rounded(dim(), 0.0f);
  if (norm == 0.0) return rounded;
  for (std::size_t i = 0; i < dim(); ++i) {
    rounded[i] = static_cast<float>(std::floor(query[i] / norm / gridStep_ + 0.5) * gridStep_);
  }
  return rounded;
}

std::size_t AdaptiveIndex::buildPending(std::size_t maxItems) {
  std::size_t waiting = 0;
  for (auto& copy : copies_) waiting = std::max(waiting, copy->build(maxItems));
  return waiting;
}

void AdaptiveIndex::onAdd(const Id* ids, std::size_t count) {
  std::vector<float> vectors(count * dim());
  for (std::size_t i = 0; i < count; ++i) {
    const float* vector = items_.vectorOf(ids[i]);
    std::copy(vector, vector + dim(), vectors.begin() + static_cast<std::ptrdiff_t>(i * dim()));
  }
  const ItemAttributes batch = attributesOf(ids, count);
  std::size_t done = 0;
  try {
    for (; done < copies_.size(); ++done) copies_[done]->add(ids, count, vectors.data(), vectors.size(), batch);
  } catch (...) {
    for (std::size_t i = 0; i < done; ++i) copies_[i]->remove(ids, count);
    throw;
  }
}

void AdaptiveIndex::onRemove(const Id* ids, std::size_t count) {
  for (auto& copy : copies_) copy->remove(ids, count);
}

ItemAttributes AdaptiveIndex::attributesOf(const Id* ids, std::size_t count) const {
  ItemAttributes batch;
  batch.reserve(count);
  for (std::size_t i = 0; i < count; ++i) batch.appendRowOf(attributes(), items_.rowOf(ids[i]));
  return batch;
}

// The copies filter their own searches: they hold the same attributes.
void AdaptiveIndex::onLabelsChanged(const Id* ids, std::size_t count) {
  const ItemAttributes batch = attributesOf(ids, count);
  for (auto& copy : copies_) copy->setLabels(ids, count, batch);
}

void AdaptiveIndex::onValuesChanged(const Id* ids, std::size_t count) {
  const ItemAttributes batch = attributesOf(ids, count);
  for (auto& copy : copies_) copy->setValues(ids, count, batch);
}

std::vector<Id> AdaptiveIndex::candidates(const float* paddedQuery, std::size_t count) {
  return pooledCandidates(paddedQuery, count, SearchOptions{});
}

std::vector<Id> AdaptiveIndex::filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) {
  SearchOptions filter;
  static_cast<AttributeFilter&>(filter) = eligible.conditions();
  filter.exclude = eligible.excludedIds();
  return pooledCandidates(paddedQuery, count, filter);
}

std::vector<Id> AdaptiveIndex::pooledCandidates(const float* paddedQuery, std::size_t count, const SearchOptions& options) {
  const std::vector<float> rounded = roundedQuery(paddedQuery);
  std::vector<Id> pooled;
  for (auto& copy : copies_) {
    const SearchResult answer = copy->search(rounded.data(), rounded.size(), count, options);
    pooled.insert(pooled.end(), answer.ids.begin(), answer.ids.end());
  }
  // The copies mostly agree: rank each id once.
  std::sort(pooled.begin(), pooled.end());
  pooled.erase(std::unique(pooled.begin(), pooled.end()), pooled.end());
  return pooled;
}

// Each copy's own snapshot, in copy order; the options fix their number, types and seeds.
void AdaptiveIndex::saveStructure(StateWriter& out) const {
  for (const auto& copy : copies_) copy->save(out);
}

void AdaptiveIndex::loadStructure(StateReader& in) {
  for (auto& copy : copies_) {
    copy->load(in);
    // Every copy took the same additions and removals as this index, so it holds this index's items
    // with their vectors and labels, in rows of its own order (an HNSW copy keeps its built rows
    // first, in its graph's order).
    const VectorStore& theirs = copy->items();
    in.check(theirs.size() == size(), "adaptive: a copy holds another number of items");
    for (std::size_t row = 0; row < size(); ++row) {
      const Id id = items_.idAt(row);
      in.check(theirs.contains(id), "adaptive: a copy holds other items");
      const std::size_t theirRow = theirs.rowOf(id);
      in.check(std::equal(items_.rowData(row), items_.rowData(row) + items_.stride(), theirs.rowData(theirRow)), "adaptive: a copy holds other items");
      in.check(copy->attributes().sameRow(theirRow, attributes(), row), "adaptive: a copy holds other attributes");
    }
  }
}

Json AdaptiveIndex::stats() const {
  Json result = MipsIndex::stats();
  std::uint64_t total = innerProducts();
  Json copyStats = Json::array();
  for (const auto& copy : copies_) {
    total += copy->innerProducts();
    copyStats.push_back(copy->stats());
  }
  result["innerProducts"] = total;
  result["copies"] = copies_.size();
  result["gridStep"] = gridStep_;
  result["base"] = baseType_;
  result["copyStats"] = copyStats;
  return result;
}

}  // namespace sublinear
