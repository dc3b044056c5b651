#include "sublinear/mips/hnsw_index.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "hnsw_graph.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/mips/mips_option_tables.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

using namespace hnsw_detail;

HnswIndex::HnswIndex(std::size_t dim, const Json& options) : MipsIndex(dim, storageOption(option_groups::hnsw(), options)) {
  const OptionGroup& specs = option_groups::hnsw();
  M_ = static_cast<std::size_t>(readIntegerOption(specs, options, "M"));
  efConstruction_ = static_cast<std::size_t>(readIntegerOption(specs, options, "efConstruction"));
  efSearch_ = static_cast<std::size_t>(readIntegerOption(specs, options, "efSearch", 0));
  if (efSearch_ == 0) efSearch_ = defaultEfSearch(dim);
  seed_ = readSeedOption(specs, options);
  const std::string space = readStringOption(specs, options, "space");
  incremental_ = readStringOption(specs, options, "build") == "incremental";
  buildCredit_ = readOption(specs, options, "buildCredit");
  filterCrossover_ = readOption(specs, options, "filterCrossover");
  inlineRows_ = readStringOption(specs, options, "inlineRows");
  orderNodes_ = readStringOption(specs, options, "orderNodes") == "auto";
  spaceDecided_ = space != "auto";
  setSpace(space == "euclidean");
}

std::size_t HnswIndex::defaultEfSearch(std::size_t dim) { return dim >= kWideBeamDimension ? kWideEfSearch : kEfSearch; }

std::size_t HnswIndex::searchBeam(std::size_t ef, std::size_t count) const {
  return (items_.quantised() ? static_cast<std::size_t>(std::ceil(kQuantisedBeamWidening * static_cast<double>(ef))) : ef) + count - 1;
}

bool HnswIndex::inlinesRows() const {
  if (inlineRows_ != "auto") return inlineRows_ == "always";
  const double referencedBytes = static_cast<double>(items_.size()) * static_cast<double>(items_.rowBytes() + sizeof(std::uint32_t));
  return items_.rowBytes() <= kInlineRowBytes && referencedBytes > kInlineFromBytes;
}

void HnswIndex::makeScratch() {
  // A graph query, or an inlined node's data (insert() makes it here): the row and the extra coordinate.
  if (scratch_.empty()) scratch_.assign(std::max(graphStride(), items_.stride() + 1), 0.0f);
}

HnswIndex::~HnswIndex() = default;

void HnswIndex::setSpace(bool euclidean) { euclidean_ = euclidean; }

std::size_t HnswIndex::graphVectorFloats(bool euclidean) const {
  return items_.quantised() ? quantised::graphVectorBytes(quantised::codeBytes(dim())) / sizeof(float)
                            : paddedDimension(dim() + (euclidean ? 1 : 0));
}

const float* HnswIndex::graphQuery(const float* paddedQuery) {
  SearchScratch* const batch = BatchScratch<SearchScratch>::of(this);
  std::vector<float>& buffer = batch != nullptr ? batch->query : scratch_;
  if (!items_.quantised()) {
    // The query of the euclidean reduction is (q, 0): the padding is zero.
    std::copy(paddedQuery, paddedQuery + dim(), buffer.begin());
    std::fill(buffer.begin() + static_cast<std::ptrdiff_t>(dim()), buffer.end(), 0.0f);
    return buffer.data();
  }
  // Codes, scale and an extra coordinate of 0, as an item's graph vector.
  const std::size_t codeBytes = quantised::codeBytes(dim());
  auto* codes = reinterpret_cast<std::int8_t*>(buffer.data());
  const float scale = quantised::encode(paddedQuery, dim(), codes);
  buffer[codeBytes / sizeof(float)] = scale;
  buffer[codeBytes / sizeof(float) + 1] = 0.0f;
  return buffer.data();
}

void HnswIndex::countGraphEvaluations(Graph& graph, std::uint64_t evaluations) {
  if (SearchScratch* const batch = BatchScratch<SearchScratch>::of(this)) {
    batch->graphEvaluations += evaluations;
  } else {
    graph.space.setEvaluations(graph.evaluations() + evaluations);
  }
}

bool HnswIndex::searchesConcurrently(const SearchOptions&) const { return graph_ != nullptr && trialGraph_ == nullptr && built_ == items_.size(); }

void HnswIndex::prepareConcurrentSearches() {
  // What a search would otherwise fill on first need: the scratch's size, the graph's labels beside
  // its nodes and its dense copy of the nodes' references (Graph::layout).
  makeScratch();
  labelSlots();
  graph_->syncReferences();
}

void HnswIndex::runSearchThread(const std::function<void()>& searches) {
  SearchScratch scratch;
  scratch.query.assign(scratch_.size(), 0.0f);
  {
    const BatchScratch<SearchScratch> batch(this, &scratch);
    searches();
  }
  const std::lock_guard<std::mutex> lock(batchGuard_);
  graph_->space.setEvaluations(graph_->evaluations() + scratch.graphEvaluations);
}

float HnswIndex::extraCoordinate(const float* storedRow) const {
  const double norm = items_.quantised()
                          ? quantised::squaredNorm(reinterpret_cast<const std::int8_t*>(storedRow), quantised::rowScale(storedRow, quantised::codeBytes(dim())), dim())
                          : squaredNorm(storedRow, dim());
  return static_cast<float>(std::sqrt(std::max(0.0, transformNorm_ * transformNorm_ - norm)));
}

void HnswIndex::nodeData(const Graph& graph, std::size_t row, float* out) const {
  writeNodeData(graph.space.rows(), row, graph.euclidean ? extraCoordinate(items_.rowData(row)) : 0.0f, out);
}

void HnswIndex::followRow(Id id) {
  for (Graph* graph : {graph_.get(), trialGraph_.get()}) {
    // An inlined node keeps its copy of the row wherever the row moves.
    if (graph == nullptr || graph->inlined()) continue;
    const auto found = graph->hnsw.label_lookup_.find(id);
    if (found != graph->hnsw.label_lookup_.end()) graph->setRow(found->second, items_.rowOf(id));
  }
}

std::unique_ptr<HnswIndex::Graph> HnswIndex::newGraph(bool euclidean) {
  const std::size_t capacity = std::max(kMinimumCapacity, items_.size());
  // A different hnswlib seed per graph, still determined by the index's seed.
  auto graph = std::make_unique<Graph>(items_, dim(), graphVectorFloats(euclidean), euclidean, capacity, M_, efConstruction_,
                                       seed_ + graphsBuilt_, items_.quantised() ? quantised::codeBytes(dim()) : 0, inlinesRows());
  ++graphsBuilt_;
  return graph;
}

std::uint64_t HnswIndex::distanceComputations() const {
  return retiredEvaluations_ + (graph_ ? graph_->evaluations() : 0) + (trialGraph_ ? trialGraph_->evaluations() : 0);
}

void HnswIndex::onAdd(const Id* ids, std::size_t count) {
  makeScratch();
  double batchNorm = 0.0;
  for (std::size_t i = 0; i < count; ++i) batchNorm = std::max(batchNorm, std::sqrt(items_.squaredNorm(items_.rowOf(ids[i]))));
  largestNorm_ = std::max(largestNorm_, batchNorm);
  // New items wait in the rows after the built ones. The euclidean reduction needs R >= every norm:
  // a larger item means a new R and a new graph.
  if (graph_ && euclidean_ && batchNorm > transformNorm_) {
    ++rebuilds_;
    startOver();
  }
  // An immediate graph started before the index was large enough for the space trial starts over
  // with it.
  if (graph_ && !spaceDecided_ && !trialGraph_ && items_.size() >= kGraphMinimum) startOver();
  if (!incremental_) buildPending(items_.size());
}

void HnswIndex::onRemove(const Id* ids, std::size_t count) {
  if (!graph_) return;
  if (count == items_.size()) {
    // Emptied: drop the graphs rather than keep deleted nodes (and hnswlib's fixed 1.5 MiB of
    // locks) for items that are gone.
    startOver();
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!graph_->holds(ids[i])) continue;
    erase(*graph_, ids[i]);
    if (trialGraph_) erase(*trialGraph_, ids[i]);
    // Keep the built rows a prefix: the removed item moves to the first waiting row's place, where
    // the store fills its hole with a row from the end, which waits too (so no node's row moves
    // then). The built item it changes places with now lives in the removed one's row.
    const std::size_t row = items_.rowOf(ids[i]);
    swapRows(row, built_ - 1);
    if (row != built_ - 1) followRow(items_.idAt(row));
    --built_;
  }
  if (graph_->freeSlots.size() >= kCompactionFloor && graph_->freeSlots.size() > graph_->live()) {
    ++compactions_;
    startOver();
    return;
  }
  // A graph is sized for the store when started; when the store shrinks to less than half of it,
  // fit it, so that memory (and a saved graph's capacity) stays within twice what is held.
  const std::size_t remaining = items_.size() - count;
  for (Graph* graph : {graph_.get(), trialGraph_.get()}) {
    if (graph == nullptr) continue;
    const std::size_t needed = std::max({kMinimumCapacity, graph->hnsw.cur_element_count, remaining});
    if (graph->hnsw.max_elements_ > 2 * needed) graph->hnsw.resizeIndex(needed);
  }
}

bool HnswIndex::scanIsCheaper(std::size_t count) const {
  // A search's beam holds efSearch + count - 1 candidates and visits up to 2M neighbours of each.
  const double visits = static_cast<double>(efSearch_ + count - 1) * 2.0 * static_cast<double>(M_);
  return static_cast<double>(items_.size()) < kScanRowsPerSearchVisit * visits;
}

std::vector<Id> HnswIndex::filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) {
  // Few eligible items: scoring them all costs less than a beam that wanders past the others to
  // fill (about beam / fraction visits, filterCrossover scan rows per beam entry at fraction 1).
  const double beam = static_cast<double>(efSearch_ + count - 1);
  if (eligibleScanRows(eligible) <= filterCrossover_ * beam / eligible.fraction()) return scanEligible(paddedQuery, count, eligible);
  std::vector<Id> ids;
  graphCandidates(paddedQuery, count, &eligible, ids);
  return ids;
}

void HnswIndex::onLabelsChanged(const Id* ids, std::size_t count) {
  if (!graph_) return;
  const auto& lookup = graph_->hnsw.label_lookup_;
  for (std::size_t i = 0; i < count; ++i) {
    const auto found = lookup.find(ids[i]);
    if (found != lookup.end() && found->second < graph_->slotLabels.size()) graph_->slotLabels[found->second] = labelOf(ids[i]);
  }
}

void HnswIndex::labelSlots() {
  if (!graph_) return;
  Graph& graph = *graph_;
  auto& hnsw = graph.hnsw;
  // Slot labels after a parallel build or a load: once, from the items the live nodes hold.
  if (graph.slotLabels.size() != hnsw.cur_element_count) {
    graph.slotLabels.assign(hnsw.cur_element_count, 0);
    for (hnswlib::tableint node = 0; node < hnsw.cur_element_count; ++node) {
      if (!hnsw.isMarkedDeleted(node)) graph.slotLabels[node] = labelOf(static_cast<Id>(hnsw.getExternalLabel(node)));
    }
  }
}

std::vector<Id> HnswIndex::filteredGraphSearch(const float* query, std::size_t ef, const Eligibility& eligible, double& evaluations,
                                               bool& exhausted) {
  labelSlots();
  Graph& graph = *graph_;
  const GraphLayout layout = graph.layout();
  // A beam that has spent the exact scan's cost of the eligible items gives up (exhausted): the
  // caller scans them instead.
  const double budget = eligibleScanRows(eligible) / kSearchEvaluationRows;
  // Conditions beyond one label a row read the rows' attributes through the store's id map.
  const Label* slotLabels = eligible.byOneLabel() ? graph.slotLabels.data() : nullptr;
  const auto rowOf = [this](Id id) { return items_.rowOf(id); };
  FilteredGraphSearch& search = searchScratch().search;
  const auto nodes = search.search(layout, query, ef, slotLabels, rowOf, eligible, static_cast<std::uint64_t>(std::max(budget, 64.0)));
  evaluations = static_cast<double>(search.evaluations());
  countGraphEvaluations(graph, search.evaluations());
  exhausted = search.exhausted();
  std::vector<Id> ids;
  keepCandidates(nodes, ids);
  return ids;
}

void HnswIndex::keepCandidates(const std::vector<std::uint32_t>& nodes, std::vector<Id>& ids, const std::vector<float>* scores) {
  ids.reserve(ids.size() + nodes.size());
  SearchScratch& scratch = searchScratch();
  auto& kept = scratch.candidateRows;
  for (const auto node : nodes) {
    const auto id = static_cast<Id>(graph_->hnsw.getExternalLabel(node));
    ids.push_back(id);
    kept.emplace_back(id, node);
  }
  if (scores != nullptr) scratch.candidateScores.assign(scores->begin(), scores->end());
}

void HnswIndex::candidateRows(const std::vector<Id>& ids, const float** rows, float* scores) const {
  SearchScratch& scratch = searchScratch();
  auto& kept = scratch.candidateRows;
  const bool scored = !scratch.candidateScores.empty();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const float* held = graph_ && i < kept.size() && kept[i].first == ids[i] ? graph_->rowHeldBy(kept[i].second, ids[i]) : nullptr;
    if (held != nullptr && scored) {
      // The graph search scored this node's row against the same padded query with innerProduct's
      // bits (keepsScores), and the node still holds the item: the ranking would compute the same float.
      rows[i] = nullptr;
      scores[i] = scratch.candidateScores[i];
      continue;
    }
    rows[i] = held != nullptr ? held : items_.vectorOf(ids[i]);
  }
  kept.clear();
  scratch.candidateScores.clear();
}

void HnswIndex::collectCandidates(const float* paddedQuery, std::size_t count, std::vector<Id>& ids) {
  graphCandidates(paddedQuery, count, nullptr, ids);
}

std::vector<Id> HnswIndex::candidates(const float* paddedQuery, std::size_t count) {
  std::vector<Id> ids;
  graphCandidates(paddedQuery, count, nullptr, ids);
  return ids;
}

void HnswIndex::graphCandidates(const float* paddedQuery, std::size_t count, const Eligibility* eligible, std::vector<Id>& ids) {
  makeScratch();
  ids.clear();
  searchScratch().candidateRows.clear();
  searchScratch().candidateScores.clear();
  // A build in this search (below) may end the space trial, which then searches with its beam.
  struct SearchCount {
    std::size_t& held;
    SearchCount(std::size_t& slot, std::size_t count) : held(slot) { held = count; }
    ~SearchCount() { held = 0; }
    SearchCount(const SearchCount&) = delete;
    SearchCount& operator=(const SearchCount&) = delete;
  };
  // A batch thread's search builds nothing (searchesConcurrently): it leaves the index's slot alone.
  std::size_t batchSearchCount = 0;
  const SearchCount searching(BatchScratch<SearchScratch>::of(this) != nullptr ? batchSearchCount : slicingSearchCount_, count);
  // An immediate graph dropped by a removal (a compaction, a new R) is built again before it answers,
  // in the order it was built: the search's eligibility names rows, which orderGraph would move.
  if (!incremental_) buildWaiting(items_.size());
  const std::size_t n = items_.size();
  double searchEvaluations = 0.0;
  if (incremental_ && built_ < n && scanIsCheaper(count)) {
    ids = eligible ? scanEligible(paddedQuery, count, *eligible) : scan(paddedQuery, std::min(count, n), 0);
    return;
  }
  if (built_ > 0) {
    auto& hnsw = graph_->hnsw;
    const float* query = graphQuery(paddedQuery);
    // Int8 storage: the beam is widened (kQuantisedBeamWidening), was ordered by the quantised
    // query, and all of it goes to the exact ranking.
    const std::size_t beam = searchBeam(efSearch_, count);
    const std::size_t wanted = items_.quantised() ? beam : count;
    // The beam holds efSearch candidates beyond the `count` asked for (searchKnn would use
    // max(ef, count)): so a longer shortlist always means a wider search.
    if (eligible) {
      bool exhausted = false;
      ids = filteredGraphSearch(query, beam, *eligible, searchEvaluations, exhausted);
      countInnerProducts(searchEvaluations);
      if (exhausted) {
        ids = scanEligible(paddedQuery, count, *eligible);
        return;
      }
      if (ids.size() > wanted) ids.resize(wanted);
    } else {
      // hnswlib's searchKnn, step for step, without its per-query allocations (FilteredGraphSearch).
      const GraphLayout layout = graph_->layout();
      FilteredGraphSearch& search = searchScratch().search;
      const auto& found = search.nearest(layout, query, beam, std::min(wanted, built_), hnsw.num_deleted_ != 0);
      searchEvaluations = static_cast<double>(search.evaluations());
      countGraphEvaluations(*graph_, search.evaluations());
      countInnerProducts(searchEvaluations);
      keepCandidates(found, ids, FilteredGraphSearch::keepsScores(layout) ? &search.foundScores() : nullptr);
    }
  }
  if (built_ == n) return;
  // The waiting rows, exactly.
  const std::size_t first = built_;
  std::vector<Id> waiting;
  const auto scanWaiting = [&] {
    waiting = eligible ? scanEligible(paddedQuery, count, *eligible, first) : scan(paddedQuery, std::min(count, n - first), first);
  };
  // The credit: what the rest of (1 + buildCredit) scans of the store leaves after this search.
  const double cost = currentEvaluationCost();
  const double credit = (1.0 + buildCredit_) * static_cast<double>(n) - (static_cast<double>(n - first) + cost * searchEvaluations);
  if (incremental_ && n >= kGraphMinimum && credit > 0.0) {
    // The scan reads the waiting rows and the store's counters; the slice reads the same rows and
    // writes only the graphs (and scratch_, which the scan does not use): with a helper thread the
    // two run at once, and the call takes about the longer of them rather than their sum. The graph
    // and the answer are those of one thread.
    runSideBySide(scanWaiting, [&] { buildFor(credit / cost, n); });
  } else {
    scanWaiting();
  }
  ids.insert(ids.end(), waiting.begin(), waiting.end());
}

double HnswIndex::vectorBytesPerItem() const {
  // The store's row, and what the graphs keep per item beside their links: each node's reference
  // (and extra coordinate), and the rows of deleted nodes.
  double bytes = MipsIndex::vectorBytesPerItem();
  if (size() == 0) return bytes;
  for (const Graph* graph : {graph_.get(), trialGraph_.get()}) {
    if (graph == nullptr) continue;
    // Inlined, the records' (their rows). Referenced, the records' and their dense copies'
    // (Graph::references, extras), and the retired rows in use: a freed one is capacity that the next
    // deletion reuses, and a saved state does not hold it, so a restored index reports what the
    // original does.
    const std::size_t rowFloats = graph->space.rows().rowFloats;
    const std::size_t retiredInUse = graph->retired.size() - graph->freeRetired.size() * rowFloats;
    const double copies = graph->inlined() ? 1.0 : 2.0;
    const double graphBytes = copies * static_cast<double>(graph->hnsw.data_size_) * static_cast<double>(graph->hnsw.cur_element_count) +
                              static_cast<double>(retiredInUse * sizeof(float));
    bytes += graphBytes / static_cast<double>(size());
  }
  return bytes;
}

Json HnswIndex::stats() const {
  Json result = MipsIndex::stats();
  result["space"] = euclidean_ ? "euclidean" : "inner-product";
  result["M"] = M_;
  result["efConstruction"] = efConstruction_;
  result["efSearch"] = efSearch_;
  result["build"] = incremental_ ? "incremental" : "immediate";
  result["buildCredit"] = buildCredit_;
  result["evaluationCost"] = currentEvaluationCost();
  result["built"] = built_;
  result["pending"] = items_.size() - built_;
  result["rebuilds"] = rebuilds_;
  result["compactions"] = compactions_;
  result["graphSlots"] = graph_ ? graph_->hnsw.cur_element_count : 0;
  result["capacity"] = graph_ ? graph_->hnsw.max_elements_ : 0;
  result["freeSlots"] = graph_ ? graph_->freeSlots.size() : 0;
  result["reusedSinceBuild"] = graph_ ? graph_->reused : 0;
  // Every graph's work: the trial's and retired graphs' included.
  result["distanceComputations"] = distanceComputations();
  if (euclidean_) result["transformNorm"] = transformNorm_;
  result["spaceDecided"] = spaceDecided_;
  if (innerProductTrialRecall_ >= 0.0 || trialGraph_) {
    result["spaceTrial"] = Json{{"innerProductRecall", innerProductTrialRecall_},
                                {"euclideanRecall", euclideanTrialRecall_},
                                {"distanceComputations", trialGraph_ ? trialGraph_->evaluations() : trialEvaluations_},
                                {"running", trialGraph_ != nullptr}};
  }
  return result;
}

}  // namespace sublinear
