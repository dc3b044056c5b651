#include "sublinear/linear/thompson_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

namespace sublinear {

namespace {
const double kSqrtTwo = std::sqrt(2.0);

bool transformed(const Json& options) { return readBoolOption(option_groups::thompson(), options, "negativeRewardTransform"); }
}  // namespace

bool ThompsonSampling::usesSubspace(int dim, const Json& options) {
  // The reward transform's model is in d + 1 dimensions.
  if (transformed(options)) {
    require(readStringOption(option_groups::armSubspace(), options, "subspace") != "arms", ErrorCode::InvalidArgument,
            "option 'subspace': 'arms' cannot be combined with negativeRewardTransform (it is in d dimensions)");
    return false;
  }
  return usesSubspaceOverOwnArms(dim, options);
}

int ThompsonSampling::modelDimension(int dim, const Json& options) {
  if (transformed(options)) return dim + 1;
  return usesSubspace(dim, options) ? modelDimensionOverOwnArms(dim, options) : dim;
}

ThompsonSampling::ThompsonSampling(std::string type, const std::string& defaultIndex, int dim, const Json& options)
    : RidgePolicy(dim, options, modelDimension(dim, options), RidgeRegression::Form::Factored),
      type_(std::move(type)),
      transform_(transformed(options)),
      inflation_(readOption(option_groups::thompson(), options, "inflation")),
      shortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::thompson(), options, "shortlist"))),
      audit_(options, shortlist_, readSeedOption(option_groups::ridge(), options)) {
  // Construction effort 16 instead of HnswIndex's 200, and M 8 instead of 16 up to 32 dimensions:
  // the graph is built with what its searches save (the incremental build), so its cost decides
  // when Sub-TS overtakes Linear TS in total time, and M 16 costs about twice M 8's building. The
  // shortlist is ranked exactly, and the arms audits found missing are recalled (audit()): without
  // them M 8 lost Linear TS's regret on some seeds (the graph missed the best arm at every step
  // after its completion). At d = 64 M 8 lost regret even so, so larger models keep M 16
  // (bench/results/design-measurements.md).
  // Build credit kBuildCredit instead of HnswIndex's 1: see there.
  if (usesSubspace(dim, options)) {
    subspace_ = std::make_unique<ArmSubspace>(dim, ridge_.dim(), readOption(option_groups::armSubspace(), options, "subspaceEnergy"),
                                              readSeedOption(option_groups::ridge(), options));
  }
  // The index holds the arms as they are (d, or d + 1 with the transform): a subspace model's
  // queries are lifted back to d dimensions.
  const int indexDim = transform_ ? dim + 1 : dim;
  const PolicyIndexSpec spec(options, defaultIndex, graphDefaults(indexDim));
  index_ = spec.make(static_cast<std::size_t>(indexDim));
}

Json ThompsonSampling::graphDefaults(int modelDim) {
  const int links = modelDim <= kCoarseGraphMaxDimension ? kCoarseGraphLinks : kGraphLinks;
  return Json{{"efConstruction", kGraphConstruction}, {"M", links}, {"buildCredit", kBuildCredit}};
}

const char* ThompsonSampling::graphDefaultsText() {
  static const std::string text = "{ type: 'hnsw', M: " + std::to_string(kCoarseGraphLinks) + " (" + std::to_string(kGraphLinks) +
                                  " above " + std::to_string(kCoarseGraphMaxDimension) +
                                  " dimensions), efConstruction: " + std::to_string(kGraphConstruction) + " }";
  return text.c_str();
}

namespace {
// The catalogue's index holds its features as they are: a transform of the model's features would
// need other vectors, and the index is the catalogue's.
const Json& optionsOverCatalogue(const Json& options) {
  require(!readBoolOption(option_groups::thompson(), options, "negativeRewardTransform"), ErrorCode::InvalidArgument,
          "option 'negativeRewardTransform' is not available over a catalogue (it would change the vectors of the catalogue's index)");
  require(!(options.is_object() && options.contains("index")), ErrorCode::InvalidArgument,
          "option 'index': over a catalogue the index is the catalogue's (give it to the Catalogue)");
  return options;
}
}  // namespace

ThompsonSampling::ThompsonSampling(std::string type, std::shared_ptr<Catalogue> catalogue, bool scanCatalogue, const Json& options)
    : RidgePolicy(catalogue, optionsOverCatalogue(options), modelDimensionOver(catalogue.get(), options), RidgeRegression::Form::Factored),
      type_(std::move(type)),
      transform_(false),
      inflation_(readOption(option_groups::thompson(), options, "inflation")),
      shortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::thompson(), options, "shortlist"))),
      audit_(options, shortlist_, readSeedOption(option_groups::ridge(), options)) {
  // The catalogue's arms and their changes are every user's: so is their subspace (usesSubspaceOver).
  catalogueSubspace_ = usesSubspaceOver(*catalogue_, options);
  scanCatalogue_ = scanCatalogue;
}

const ArmSubspace* ThompsonSampling::basis() const {
  if (subspace_) return subspace_.get();
  return catalogueSubspace_ ? catalogue_->fittedSubspace() : nullptr;
}

Vector ThompsonSampling::modelFeatures(const double* features) const {
  if (const ArmSubspace* b = basis()) return b->project(features);
  const Eigen::Map<const Vector> x(features, arms_.dim());
  if (!transform_) return x;
  Vector lifted(arms_.dim() + 1);
  lifted.head(arms_.dim()) = x / kSqrtTwo;
  lifted[arms_.dim()] = kSqrtTwo / 2.0;
  return lifted;
}

double ThompsonSampling::modelReward(double reward) const { return transform_ ? reward / 2.0 + 0.5 : reward; }

Vector ThompsonSampling::theta() const {
  if (subspace_) return subspace_->lift(ridge_.theta());
  if (catalogueSubspace_) return RidgePolicy::theta();
  if (!transform_) return ridge_.theta();
  return kSqrtTwo * ridge_.theta().head(arms_.dim());
}

void ThompsonSampling::indexVector(const double* features, float* out) const {
  const auto d = static_cast<std::size_t>(arms_.dim());
  if (!transform_) {
    // Without the transform the index holds the arms as they are, with or without a subspace.
    for (std::size_t j = 0; j < d; ++j) out[j] = static_cast<float>(features[j]);
    return;
  }
  const Vector x = modelFeatures(features);
  for (std::size_t j = 0; j <= d; ++j) out[j] = static_cast<float>(x[static_cast<Eigen::Index>(j)]);
}

void ThompsonSampling::onAddArms(const Id* ids, std::size_t count) {
  const auto modelDim = static_cast<std::size_t>(index_->dim());
  // The rows are the batch's, in its order (ArmSet::add appended them): no lookup by id, and no
  // Vector allocated per arm (10^6 of them slowed adds in a heap fragmented by earlier work).
  const std::size_t first = arms_.size() - count;
  std::vector<float> vectors(count * modelDim);
  for (std::size_t i = 0; i < count; ++i) indexVector(arms_.rowData(first + i), vectors.data() + i * modelDim);
  index_->add(ids, count, vectors.data(), vectors.size(), arms_.attributesOfRows(first, count));
  // The first batch fits the subspace before any update can project onto it.
  if (subspace_ && subspace_->due(arms_.size())) fitSubspace();
}

void ThompsonSampling::fitSubspace() {
  // The model moves to the new coordinates: its observations z = B_old^T x become M z with
  // M = B_new^T B_old (exact for arms inside the old span), so V = lambda I + sum z z^T becomes
  // lambda I + M (V - lambda I) M^T and b becomes M b; directions new to the basis start at the prior.
  moveModelBy(subspace_->fit(arms_));
}

void ThompsonSampling::onRemoveArms(const Id* ids, std::size_t count) {
  index_->remove(ids, count);
  // Refitted at the next selection (the arms are still in arms_ here).
  if (subspace_) subspace_->noteRemoved(count);
  recalled_.erase(std::remove_if(recalled_.begin(), recalled_.end(), [&](Id id) { return !index_->contains(id); }),
                  recalled_.end());
}

std::vector<float> ThompsonSampling::drawQuery() {
  lastScale_ = inflation_ * (theoreticalRadius() ? adaptiveRadius(delta() / (4.0 * static_cast<double>(horizon())))
                                                  : practicalRadius(1.0));
  if (subspace_ && subspace_->due(arms_.size())) fitSubspace();
  syncSubspace();
  const ArmSubspace* b = basis();
  const Vector sampled = b ? b->lift(ridge_.sampleTheta(random_, lastScale_)) : ridge_.sampleTheta(random_, lastScale_);
  std::vector<float> query(static_cast<std::size_t>(sampled.size()));
  for (Eigen::Index j = 0; j < sampled.size(); ++j) query[static_cast<std::size_t>(j)] = static_cast<float>(sampled[j]);
  lastQuery_ = query;
  return query;
}

Id ThompsonSampling::chooseArm() {
  const std::vector<float> query = drawQuery();
  const std::uint64_t workBefore = index().innerProducts();
  SearchResult result = search(query, 1, ArmFilter{});
  if (catalogue_) catalogueInnerProducts_ += index().innerProducts() - workBefore;
  if (!result.ids.empty()) return result.ids.front();
  ++emptyQueries_;
  return arms_.idAt(static_cast<std::size_t>(random_.uniformInt(arms_.size())));
}

std::vector<Id> ThompsonSampling::chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& /*eligible*/) {
  // One draw, its top `count`: the slate Thompson sampling would show if it ranked by one sample.
  const std::vector<float> query = drawQuery();
  const std::uint64_t workBefore = index().innerProducts();
  std::optional<Eligibility>* kept = deciding() ? &choiceEligibility_ : nullptr;
  SearchResult result = search(query, count, filter, kept);
  if (result.ids.size() < count) {
    // Only an unfiltered search of an approximate index may find fewer than asked (a filtered one
    // completes its answer exactly): the exact answer instead, counted as an empty query.
    ++emptyQueries_;
    SearchOptions filters;
    filters.exclude = filter.exclude;
    static_cast<AttributeFilter&>(filters) = filter;
    filters.keptEligibility = kept;
    result = index().searchExactly(query.data(), query.size(), count, filters);
  }
  if (catalogue_) catalogueInnerProducts_ += index().innerProducts() - workBefore;
  return result.ids;
}

SearchResult ThompsonSampling::search(const std::vector<float>& query, std::size_t k, const ArmFilter& filter,
                                      std::optional<Eligibility>* indexEligible) {
  MipsIndex& searched = index();
  SearchOptions searchOptions;
  searchOptions.exclude = filter.exclude;
  static_cast<AttributeFilter&>(searchOptions) = filter;
  searchOptions.keptEligibility = indexEligible;
  if (scanCatalogue_) return searched.searchExactly(query.data(), query.size(), k, searchOptions);
  // A slate of k ranks k - 1 candidates more than one arm does, so that the margin the shortlist
  // leaves beyond the answer stays the same.
  searchOptions.shortlist = shortlist_ + k - 1;
  // Over a catalogue a recalled arm may have left it since: the index skips ids it does not hold.
  searchOptions.alsoRank = recalled_;
  const std::uint64_t workBefore = searched.approximateInnerProducts();
  SearchResult result = searched.search(query.data(), query.size(), k, searchOptions);
  const bool drawn = audit_.due(searched, workBefore);
  if (!audit_.sliced()) return drawn ? audit(query, result, k, searchOptions) : result;
  // One slice of the pending audit a search (this one's own when it is the one audited): the
  // answer played is the index's, and an arm the audit finds beating its answer is recalled.
  audit_.offer(searched, drawn, query, searchOptions, result.ids.empty() ? -INFINITY : result.scores.front());
  if (const std::optional<Id> winner = audit_.advance(searched, shortlist_)) recall(*winner);
  return result;
}

void ThompsonSampling::recall(Id winner) {
  recalled_.erase(std::remove(recalled_.begin(), recalled_.end(), winner), recalled_.end());
  // An arm removed while its audit was pending is not recalled (onRemoveArms dropped it already).
  if (!index().contains(winner)) return;
  recalled_.insert(recalled_.begin(), winner);
  if (recalled_.size() > kRecalled) recalled_.pop_back();
}

std::uint64_t ThompsonSampling::indexInnerProducts() const { return catalogue_ ? catalogueInnerProducts_ : index_->innerProducts(); }

SearchResult ThompsonSampling::audit(const std::vector<float>& query, const SearchResult& answer, std::size_t k, const SearchOptions& filters) {
  MipsIndex& searched = index();
  const std::uint64_t workBefore = searched.innerProducts();
  // The exact answer under the same filters; the audit compares the top arms (a slate's first).
  SearchResult exact = searched.searchExactly(query.data(), query.size(), k, filters);
  if (exact.ids.empty()) return answer;
  const float found = answer.ids.empty() ? -INFINITY : answer.scores.front();
  shortlist_ = audit_.record(found, exact.scores.front(), searched.innerProducts() - workBefore, shortlist_);
  if (exact.scores.front() > found) recall(exact.ids.front());
  return exact;
}

void ThompsonSampling::saveFields(StateWriter& out) const {
  out.f64(lastScale_);
  out.u64(emptyQueries_);
  out.u64(shortlist_);
  audit_.save(out);
  // Present exactly when the options ask for a subspace (the constructor decides from them).
  if (subspace_) subspace_->save(out);
  // Over the catalogue's subspace: the version the model is in and its fingerprint (the head holds
  // them too, for the refusal of another lineage before anything is made: see checkContext).
  saveSubspaceLineage(out);
  out.u32s(recalled_.data(), recalled_.size());
  // Over a catalogue the index is the catalogue's: the user keeps only its share of the work.
  if (catalogue_) {
    out.u64(catalogueInnerProducts_);
  } else {
    index_->save(out);
  }
}

void ThompsonSampling::loadFields(StateReader& in) {
  lastScale_ = in.f64();
  in.check(std::isfinite(lastScale_) && lastScale_ >= 0.0, "sampling scale is not a finite non-negative number");
  emptyQueries_ = in.u64();
  const std::uint64_t shortlist = in.u64();
  // The shortlist only grows, from the option's value (what the constructor set) up to maxShortlist.
  in.check(shortlist >= shortlist_ && shortlist <= audit_.maxShortlist(), "shortlist is out of range");
  shortlist_ = static_cast<std::size_t>(shortlist);
  audit_.load(in, index().dim());
  if (subspace_) subspace_->load(in);
  loadSubspaceLineage(in);
  const std::vector<std::uint32_t> recalled = in.u32s();
  in.check(recalled.size() <= kRecalled, "too many recalled arms");
  if (catalogue_) {
    catalogueInnerProducts_ = in.u64();
    // The catalogue may have lost a recalled arm since the state was saved: it is skipped by searches.
    for (const std::uint32_t id : recalled) {
      in.check(std::count(recalled.begin(), recalled.end(), id) == 1, "a recalled arm is not a distinct arm");
    }
    recalled_.assign(recalled.begin(), recalled.end());
    return;
  }
  index_->load(in);
  // The index holds exactly the arms, each as the model sees it (onAddArms).
  in.check(index_->size() == arms_.size(), "the index does not hold the arms");
  std::vector<float> expected(index_->dim());
  for (std::size_t row = 0; row < arms_.size(); ++row) {
    const Id id = arms_.idAt(row);
    in.check(index_->contains(id), "arm " + std::to_string(id) + " is missing from the index");
    in.check(index_->attributes().sameRow(index_->items().rowOf(id), arms_.attributes(), row),
             "the index holds other attributes for arm " + std::to_string(id));
    indexVector(arms_.rowData(row), expected.data());
    in.check(index_->items().holds(index_->items().rowOf(id), expected.data()), "the index holds another vector for arm " + std::to_string(id));
  }
  for (const std::uint32_t id : recalled) {
    in.check(arms_.contains(id) && std::count(recalled.begin(), recalled.end(), id) == 1, "a recalled arm is not a distinct arm");
  }
  recalled_.assign(recalled.begin(), recalled.end());
}

Json ThompsonSampling::extraStats() const {
  Json index = this->index().stats();
  Json approximation = audit_.stats(!scanCatalogue_ && audit_.active(this->index()), selections());
  approximation["recalledArms"] = recalled_.size();

  // Over a catalogue the index's counters are every user's: this user searched once a selection.
  const std::uint64_t searches = catalogue_ ? selections() : index.value("searches", std::uint64_t{0});
  Json stats{{"index", index},
             {"searches", searches},
             {"scale", lastScale_},
             {"shortlist", shortlist_},
             {"emptyQueries", emptyQueries_},
             {"approximation", approximation}};
  if (subspace_) stats["subspace"] = subspace_->stats();
  return stats;
}

}  // namespace sublinear
