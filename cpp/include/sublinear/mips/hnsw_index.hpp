#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <string>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/batch_scratch.hpp"
#include "sublinear/mips/filtered_graph_search.hpp"
#include "sublinear/mips/inner_product.hpp"
#include "sublinear/mips/mips_index.hpp"
#include "sublinear/mips/quantised_rows.hpp"

namespace sublinear {

// A hierarchical navigable small-world graph (hnswlib's HierarchicalNSW, Malkov & Yashunin) over the
// items, in one of two spaces:
//   "inner-product": hnswlib's inner-product distance 1 - <x, q> directly.
//   "euclidean": the reduction of Bachrach et al. (Yang et al., arXiv:2103.02729, Appendix A.1). Every
// item x is stored as
//     (x, sqrt(R^2 - |x|^2)) and the query as (q, 0), so |x' - q'|^2 = R^2 + |q|^2 - 2<x, q>: the nearest
//     neighbour is the maximum inner product, in a true metric.
//
// Built as it is used (build "incremental", the default). The items the graph holds are the first
// rows of the store; the rest wait and are scanned exactly. A search asks the graph about the built
// rows, scans the waiting ones, and then inserts waiting items into the graph until the call has
// cost (1 + buildCredit) full scans. So no call costs more than that (no add() freezes a page while
// a graph of 10^6 items is built), the total never exceeds (1 + buildCredit) times an exhaustive
// scan's at any horizon (the ski-rental argument: the graph is paid for with what scanning would
// have cost), and answers are exact for every item not yet in the graph. build() finishes the graph
// at once (in a Worker, say). With build "immediate", add() inserts every item before it returns.
// Those two bulk builds insert on parallelism() threads (core/parallelism.hpp) once the graph holds
// kParallelSeed nodes, when an insertion is costly enough to gain from threads (efConstruction times
// the row length; see kParallelWork: Sub-TS's light graph builds faster on one thread): every node's level is still drawn in row order from the graph's own
// generator, so only the links depend on thread timing. A space trial builds its two graphs on a
// thread each (each in row order: the same graphs as on one thread). The reuse of freed slots stays
// on one thread, and so does the slice a search builds, in row order; with a helper thread the slice
// is built while the calling thread scans the waiting rows (runSideBySide), so on two cores a search
// takes about the longer of the two, and the graph and answer are those of one thread.
// Below kGraphMinimum items an incremental index keeps no graph: a scan is cheaper than a search.
//
// Which space serves depends on the data, so the default, "auto", measures it: when the graph is
// started over at least kGraphMinimum items, a second graph in the euclidean space is built beside
// the inner-product one over the first rows (up to 10,000), both are searched with the next waiting
// items as queries, and the space of higher recall@10 keeps its graph (stats().space, spaceTrial).
// The trial searches with the beam the index's searches use (searchBeam): that of the search whose
// build slice ends it (its count: k or the shortlist), or, when the build runs outside a search
// (build(), add() with build "immediate"), a top-10 search's with at least the default efSearch for
// the dimension: an efSearch below it leaves the beam to the searches' shortlists. (With efSearch 1
// and a shortlist as the beam the trial had searched with a beam of 10 and kept the inner-product
// graph at recall 0.62 on Fashion-MNIST, where the reduction reaches 0.995.)
// On Gaussian data the inner-product graph finds more of the true top 10 (after the reduction every
// query (q, 0) is about R away from every item, so the greedy descent has little gradient to
// follow); on real image vectors (Fashion-MNIST, nonnegative, all in one narrow cone) the
// inner-product graph funnels every search to a few large-norm hubs and the reduction wins.
// Candidates come from searchKnn with ef = efSearch + count - 1 (count = max(k, shortlist)), so
// both knobs widen the search; the base class ranks them exactly.
//
// Filters (SearchOptions' exclude and labels): the graph is searched with a beam in which every node
// may be traversed but only eligible ones are kept (FilteredGraphSearch, over hnswlib's graph memory),
// unless the eligible items are so few that scoring each of them is cheaper than a beam that has to
// wander past the others to fill. With a fraction f of the items eligible, a beam of
// efSearch + count - 1 eligible nodes visits about beam / f nodes: its cost is taken as
// filterCrossover x beam / f rows of the exhaustive scan, and the exact scan of the eligible items
// (eligibleScanRows: the rows, or their posting lists) answers when it costs no more. filterCrossover
// is measured (bench/filters.mjs, bench/results/filters.md).
//
// Vectors in the graph, in one of two layouts of a node's data (GraphRows,
// filtered_graph_search.hpp), chosen per graph by the row's size and the graph's:
//   Inlined (rows of at most one cache line in a graph beyond the caches, kInlineRowBytes and
//     kInlineFromBytes): each node's level-0 record keeps a copy of its item's row (and, in the
//     euclidean reduction, the extra coordinate) beside its links, as hnswlib lays out its own
//     records, so a search reads a visited node's row where it reads the node. Graphs of many items
//     outgrow every cache, and a row found through a reference costs a second miss per visited
//     node: at 10^6 x 16 (M 16, efConstruction 200, wasm in Node, the same graph copied into both
//     layouts, searches interleaved, same answers) queries took 0.74-0.85x the referenced layout's
//     time with floats and 0.57-0.77x with int8 codes, and this code 0.79-0.84x and 0.82-0.89x of
//     the referenced code's (3dde588) on one saved graph (bench/results/design-measurements.md);
//     against native hnswlib
//     (bench/results/native-million.md) float queries went from 1.39-1.75x native's time to
//     1.20-1.24x and int8 from 1.96-2.84x to 1.33-1.44x (runs on a shared machine). The copy costs
//     the row's bytes per node (at 10^6 x 16: 128 bytes of vectors an item instead of 72, 382 on
//     the heap instead of 326); a deleted node keeps steering searches with the copy in its record,
//     and rows moving in the store change nothing in the graph.
//   Referenced (longer rows, smaller graphs): one copy of the vectors. A node holds no vector but
//     a reference to the item's row in the store (and the extra coordinate as a float), and every
//     graph distance reads the row through it. A node costs 8 (or 16) bytes beside its links
//     instead of a second row: the reference (and extra coordinate) in its record, where hnswlib's
//     relinking of a reused slot (updatePoint) reads it, and again in a dense array that searches
//     and insertions read, which stays in cache where the records would each cost a miss before the
//     row's (with the records alone, queries took 1.1-1.2x as long as with a second copy of the
//     rows beside the links, and builds 1.1-1.2x; with the dense copy queries as long at 10^5
//     items, and insertions, in our own loop, faster). Rows move in the store only where this class
//     moves them (a removal swaps a built row into the removed one's place, and the node follows
//     it); a deleted node, which still steers searches, keeps a copy of its item's row among the
//     graph's retired rows until its slot is reused.
// Node order: hnswlib numbers nodes in insertion order; a bulk build that leaves no row waiting
// renumbers them breadth first from the entry point once the graph has doubled (kOrderGrowth,
// orderGraph), and in the referenced layout puts the built rows of the store in that order too, so
// that the nodes and rows a search reads together lie together in memory.
// Insertions of new nodes run in our own loop (GraphInserter, hnsw_graph.hpp: hnswlib's addPoint
// step for step, without its allocations); reuses of freed slots go through hnswlib's updatePoint.
// Both layouts build the same graph and answer the same (the same distances, bit for bit), and the
// saved graph does not depend on the layout (every node's data is made again on load).
//
// Storage "int8" (quantised::encode: 8-bit codes and a float scale per row): the store keeps the
// codes instead of float rows, so graph distances are integer dot products of the rows' codes
// (codeDot) and the item's vector is the decoded row everywhere: its scores, its saved state. The
// query is quantised the same way for the graph's descent only; the whole final beam (widened to
// kQuantisedBeamWidening x efSearch + count - 1 nodes, hnsw_graph.hpp; all of it, not `count`) is
// returned as candidates and the base class ranks them with the float query against the stored rows.
//
// A changing set: removal marks the node deleted (hnswlib's markDelete) and frees its slot; the next
// insertion takes a freed slot (hnswlib's updatePoint relinks it), so the graph does not grow under
// add/remove cycles. When freed slots outnumber the nodes in use, or slots have been reused more
// often than there are nodes (relinking can strand a few nodes), the graph is started over, and
// built again as above. Capacity doubles with resizeIndex when full. In the euclidean space R starts
// at the largest norm; an item beyond R starts the graph over with R = kNormHeadroom times the new
// largest norm, so R grows geometrically and restarts are rare. Removals never shrink R.
class HnswIndex final : public MipsIndex {
 public:
  static constexpr double kNormHeadroom = 1.25;
  // What one graph distance computation of an insertion costs in rows of an exhaustive scan: the scan
  // streams rows through a four-row kernel, while an insertion's visit is a random access, a call
  // through hnswlib's function pointer, heap updates and neighbour selection. Calibrated on wasm in
  // Node so that a search with its building costs at most (1 + buildCredit) scans in time, not only
  // in counted work (bench/horizon.mjs checks the bound); it converts the credit into insertions.
  // That holds while the graph fits in a cache (kCachedGraphBytes); beyond, every visit goes to main
  // memory while the scan still streams, and a visit costs about 45% more per doubling of the
  // graph's memory (kEvaluationCostGrowth; bench/results/design-measurements.md). The cost depends on the
  // graph alone, never on timing: the same calls build the same graph.
  static constexpr double kEvaluationCost = 24.0;
  static constexpr double kCachedGraphBytes = 16.0 * 1024 * 1024;
  static constexpr double kEvaluationCostGrowth = 0.45;
  // kEvaluationCost for a graph whose nodes take `graphBytes`, raised per doubling beyond kCachedGraphBytes.
  static double evaluationCost(double graphBytes);
  // Fewer items than this are scanned (incremental build); the space trial needs as many.
  static constexpr std::size_t kGraphMinimum = 1000;
  // An incremental graph is started (and searched before it is complete) only when a scan reads at
  // least this many rows per node a search would visit: below, building it costs more than it can
  // save within the bound of (1 + buildCredit) scans: with Sub-TS's defaults at d = 16 a complete
  // graph's step cost about what a scan of 5,000-10,000 arms costs, and while it was built Sub-TS's
  // total time exceeded twice Linear TS's up to some 30,000 arms (bench/results/design-measurements.md). 30
  // rows a visit starts that graph from 44,640 arms. A graph built on request (build()) is searched at any
  // size.
  static constexpr double kScanRowsPerSearchVisit = 30.0;
  // A bulk build inserts on one thread until the graph holds this many nodes: an insertion (as
  // hnswlib's addPoint) takes the first node as the entry point without a lock, so concurrent
  // insertions into an (almost) empty graph could leave a node unlinked; and a few hundred nodes
  // are not worth threads.
  static constexpr std::size_t kParallelSeed = 1000;
  // A bulk build (build(), or add() with build "immediate") that leaves no row waiting renumbers the
  // graph's nodes breadth first from the entry point (orderGraph), when the graph has grown
  // kOrderGrowth-fold since its last renumbering: nodes are numbered in insertion order, so the
  // neighbours a search scores after expanding a node lie anywhere in the graph's memory, and beyond
  // the caches each costs a miss in a page of its own. Renumbered, the neighbours a node placed are
  // consecutive records (and, referenced, consecutive rows of the store, which follow the nodes).
  // The same graph, the same answers; measured on saved graphs loaded by two builds in one process
  // (wasm in Node, searches interleaved): at 10^6 x 16 (inlined) queries took 0.88-0.94x the time
  // in int8 and 0.92-0.94x in f32; on Fashion-MNIST (referenced) 0.89-0.90x in int8 and 0.80-0.82x
  // in f32, of which the graph's renumbering alone gave 0.93-1.0x. An incremental build's slices do
  // not renumber: the ordering costs some full scans of the items, beyond a search's bound.
  static constexpr std::size_t kOrderGrowth = 2;
  // A graph inlines its rows (see "Vectors in the graph" above) when a row takes at most
  // kInlineRowBytes (floats up to 16 dimensions, int8 codes and scale up to 48: one cache line, so
  // the copy costs at most 64 bytes an item) and the rows it would read through references (the
  // store's rows and the dense references, of the items held when the graph is started or loaded)
  // take more than kInlineFromBytes: a cache (kCachedGraphBytes), beyond which each reference costs
  // a second miss. Below, the compact store is the faster layout: at 10^5 x 16 (the same graph in
  // both layouts, interleaved) int8 queries took 1.16-1.27x as long inlined (2.4 MB of rows and
  // references against 16 MB of records), floats 0.98-1.01x; at 10^6 x 16 inlined ones took
  // 0.74-0.85x (floats) and 0.57-0.77x (int8) of the referenced time. Where between the two sizes the
  // layouts cross was not measured; a graph keeps the layout it was started (or loaded) with.
  static constexpr std::size_t kInlineRowBytes = 64;
  static constexpr double kInlineFromBytes = kCachedGraphBytes;
  // efSearch when none is given: kEfSearch below kWideBeamDimension coordinates, kWideEfSearch from
  // there. Real vectors of many coordinates (images, text embeddings) need a wider beam than
  // Gaussian ones of few: on Fashion-MNIST (784 pixels, the euclidean graph that 'auto' picks, M 16,
  // efConstruction 200) beams of 64, 128 and 160 found 0.879, 0.950 and 0.966 of the true top 10,
  // and a beam of 144 + 9 found 0.963 (bench/results/design-measurements.md). At 16 or 32 Gaussian
  // coordinates 64 already reaches 0.95.
  static constexpr std::size_t kEfSearch = 64;
  static constexpr std::size_t kWideBeamDimension = 256;
  static constexpr std::size_t kWideEfSearch = 144;

  // Options: see option_groups::hnsw().
  HnswIndex(std::size_t dim, const Json& options);
  ~HnswIndex() override;
  std::string type() const override { return "hnsw"; }
  // Only the graph approximates: with nothing in it, a search scans every item.
  bool approximates() const override { return built_ > 0; }
  Json stats() const override;
  // The store's row, and per item what the graphs (the space trial's too) keep beside their links:
  // inlined, each node's copy of its row (and extra coordinate); referenced, each node's reference
  // and extra coordinate (in its record and in the dense copy searches read) and the retired rows
  // of deleted nodes.
  double vectorBytesPerItem() const override;

 protected:
  std::size_t buildPending(std::size_t maxItems) override;
  void onAdd(const Id* ids, std::size_t count) override;
  void onRemove(const Id* ids, std::size_t count) override;
  // The labels the graph keeps beside its nodes follow; the graph itself does not change.
  void onLabelsChanged(const Id* ids, std::size_t count) override;
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  // The graph search's answers straight into `ids` (a search's reused buffer).
  void collectCandidates(const float* paddedQuery, std::size_t count, std::vector<Id>& ids) override;
  std::vector<Id> filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) override;
  // The graph search's answers from what it just computed (its scratch's candidateRows): their
  // inner products when the search kept them (FilteredGraphSearch::keepsScores: float rows, the
  // inner-product space, unfiltered), else the rows it read, in the node records when they hold the
  // rows; the rest through the store.
  void candidateRows(const std::vector<Id>& ids, const float** rows, float* scores) const override;
  // Whether a scan of every item costs less than an incremental graph would (kScanRowsPerSearchVisit).
  bool scanIsCheaper(std::size_t count) const;
  // Once every item is in the graph a search only reads it: a batch's searches run on all threads.
  // While items wait, a search may build (a slice, the space trial): a batch runs them in order.
  bool searchesConcurrently(const SearchOptions& options) const override;
  void prepareConcurrentSearches() override;
  void runSearchThread(const std::function<void()>& searches) override;
  void saveStructure(StateWriter& out) const override;
  void loadStructure(StateReader& in) override;

 private:
  // hnswlib's types stay in cpp/src/mips/hnsw_graph.hpp, which only HnswIndex's three source files
  // include: nothing else compiles hnswlib.
  struct Graph;

  std::unique_ptr<Graph> newGraph(bool euclidean);
  // candidates() and filteredCandidates() (eligible non-null): the graph over the built rows, an
  // exact scan of the waiting ones, and the build slice the search pays for.
  // Into `ids`, which it clears first.
  void graphCandidates(const float* paddedQuery, std::size_t count, const Eligibility* eligible, std::vector<Id>& ids);
  // The eligible nodes of the graph nearest the graph query `query` (graphQuery's), up to `ef`, as
  // item ids; with `exhausted` set when the beam spent the eligible items' scan cost before it converged.
  std::vector<Id> filteredGraphSearch(const float* query, std::size_t ef, const Eligibility& eligible, double& evaluations,
                                      bool& exhausted);
  // Drops the graphs: every item waits again (a new R, a compaction, an emptied index).
  void startOver();
  // A graph over no rows yet, with the space trial's second graph while the space is undecided.
  void startGraph();
  // Inserts the first waiting row into the graph (and the trial's), ending the trial when due;
  // returns the distance computations it took, in rows of the store's length.
  double buildStep();
  // evaluationCost() of the graphs as they are (the trial's included: both are visited).
  double currentEvaluationCost() const;
  // Build steps until `evaluations` (as buildStep counts them) are spent or `maxItems` rows inserted.
  void buildFor(double evaluations, std::size_t maxItems);
  // Inserts up to `maxItems` waiting rows on `threads` threads (what buildFor does without a budget);
  // returns how many it inserted.
  std::size_t buildInParallel(std::size_t maxItems, std::size_t threads);
  // The space trial's rows, up to `maxItems`, into its two graphs at once, one thread each, then the
  // decision if the trial is done; returns how many rows it inserted.
  std::size_t buildTrialInParallel(std::size_t maxItems);
  // Starts the graph over after many slot reuses (see buildFor).
  void compactIfStranded();
  // Inserts up to `maxItems` waiting rows, on threads when that pays (buildPending without orderGraph).
  void buildWaiting(std::size_t maxItems);
  // After a bulk build that left no row waiting: renumbers the graph's nodes for locality
  // (Graph::orderForLocality) and, referenced, puts the built rows of the store in the nodes' order,
  // once the graph has kOrderGrowth times the nodes of its last ordering (so the renumbering costs
  // O(1) per insertion over any sequence of builds) and at least kGraphMinimum.
  void orderGraph();
  void decideSpace();
  // The beam of a graph search for `count` candidates (max(k, shortlist)) with efSearch `ef`:
  // ef + count - 1, the ef part widened by kQuantisedBeamWidening in int8 storage.
  std::size_t searchBeam(std::size_t ef, std::size_t count) const;
  // efSearch when none is given, for `dim` coordinates (kEfSearch, kWideEfSearch).
  static std::size_t defaultEfSearch(std::size_t dim);
  // Every graph's work: retired graphs' and the trial's included (never decreases).
  std::uint64_t distanceComputations() const;
  // Adds the work of a graph being dropped to the work counter.
  void retire(std::unique_ptr<Graph> graph);
  void insert(Graph& graph, Id id);
  // Floats of a graph query: the item, its euclidean coordinate (0), the padding; in int8 storage the
  // codes, the scale and the extra coordinate (quantised::graphVectorBytes).
  std::size_t graphStride() const { return graphVectorFloats(true); }
  // The padded query (queryStride() floats) as a graph query, in scratch_ (a batch thread's own
  // buffer in its searches); returns where.
  const float* graphQuery(const float* paddedQuery);
  // Allocates scratch_ (once; on the calling thread, before any parallel work).
  void makeScratch();
  // The same with the node's data made in `buffer` (hnsw_detail::nodeDataFloats of the graph's rows).
  void insert(Graph& graph, Id id, float* buffer);
  void erase(Graph& graph, Id id);
  void setSpace(bool euclidean);
  // A graph's nodes (links per layer, labels, deleted marks and the vectors only deleted nodes
  // still hold), validated on load against the first `built_` rows of the store.
  void saveGraph(const Graph& graph, StateWriter& out) const;
  std::unique_ptr<Graph> loadGraph(StateReader& in, bool euclidean);
  // The data of `graph`'s node holding the item of `row` (a reference to the row or, inlined, a copy
  // of it; then in the euclidean reduction its extra coordinate sqrt(R^2 - |x|^2)), into `out`
  // (hnsw_detail::nodeDataFloats): each thread of a parallel build has its own.
  void nodeData(const Graph& graph, std::size_t row, float* out) const;
  // Whether a graph started (or loaded) now keeps its rows inlined (kInlineRowBytes, kInlineFromBytes).
  bool inlinesRows() const;
  // The euclidean reduction's extra coordinate of a stored row (codes and scale in int8).
  float extraCoordinate(const float* storedRow) const;
  // Floats of the vector a graph distance reads in the given space (the row with the extra
  // coordinate, padded; codes, scale and extra coordinate in int8), by which its work is weighed.
  std::size_t graphVectorFloats(bool euclidean) const;
  // Points the node of the item (in every referenced graph holding it) at its row after the row
  // moved; an inlined node keeps its copy.
  void followRow(Id id);
  std::size_t M_;
  std::size_t efConstruction_;
  std::size_t efSearch_;
  std::uint64_t seed_;
  bool incremental_ = true;
  double buildCredit_ = 1.0;
  double filterCrossover_ = 0.0;
  // The internal option inlineRows: "auto" (kInlineRowBytes, kInlineFromBytes), or every graph's
  // rows "always" inlined or "never" (tests build both layouts of one graph with it).
  std::string inlineRows_;
  // The internal option orderNodes: "auto" (orderGraph), or "never" (tests compare the two).
  bool orderNodes_ = true;
  // What a graph search writes as it runs. A search uses the index's own (searchScratch_, and
  // scratch_ for its graph query); each thread of a batch (searchBatch) has its own, so that the
  // batch's searches share nothing they write but the atomic work counters.
  struct SearchScratch {
    // The graph query (a batch thread's; the index's own searches use scratch_).
    std::vector<float> query;
    FilteredGraphSearch search;
    // The last graph search's answers (as graphCandidates returns them, in order) and their nodes,
    // for the ranking that follows it in MipsIndex::search (candidateRows), which takes them. Nodes,
    // not row addresses: the build slice a search pays for may grow the graph's memory in between;
    // a node is used only if it still holds its item (Graph::rowHeldBy).
    std::vector<std::pair<Id, std::uint32_t>> candidateRows;
    // The graph's inner products of candidateRows' items, one each, when the search kept them
    // (FilteredGraphSearch::foundScores); empty otherwise.
    std::vector<float> candidateScores;
    // A batch thread's graph distance computations, added to the graph's counter after its searches.
    std::uint64_t graphEvaluations = 0;
  };
  // mutable: candidateRows are taken by a const method.
  mutable SearchScratch searchScratch_;
  // The scratch the search running on this thread writes: its batch thread's (runSearchThread), or
  // the index's own.
  SearchScratch& searchScratch() const {
    SearchScratch* const batch = BatchScratch<SearchScratch>::of(this);
    return batch != nullptr ? *batch : searchScratch_;
  }
  // A graph search's distance computations into the graph's counter (or its batch thread's).
  void countGraphEvaluations(Graph& graph, std::uint64_t evaluations);
  // Guards the graph's counter while batch threads add theirs.
  std::mutex batchGuard_;
  // Fills the graph's labels beside its nodes after a parallel build or a load (filtered searches read them).
  void labelSlots();
  // Keeps the ids and nodes `nodes` of the graph in the search's candidateRows (with their inner
  // products `scores`, one a node, when not null) and appends the ids to `ids`.
  void keepCandidates(const std::vector<std::uint32_t>& nodes, std::vector<Id>& ids, const std::vector<float>* scores = nullptr);
  bool euclidean_ = false;
  bool spaceDecided_ = true;
  double innerProductTrialRecall_ = -1.0;
  double euclideanTrialRecall_ = -1.0;
  std::uint64_t trialEvaluations_ = 0;
  // R of the euclidean reduction and the largest item norm seen so far.
  double transformNorm_ = 0.0;
  double largestNorm_ = 0.0;
  std::uint64_t graphsBuilt_ = 0;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t compactions_ = 0;
  std::uint64_t retiredEvaluations_ = 0;
  // One graph query (graphStride() floats), made with the first item or query rather than by the
  // constructor: an index with no items costs nothing per dimension, so 64 copies of an empty
  // index of 10^6 dimensions restored from a few hundred bytes stay a few hundred bytes.
  std::vector<float> scratch_;
  // The graph holds exactly the items of rows [0, built_); rows [built_, size()) wait.
  std::size_t built_ = 0;
  std::unique_ptr<Graph> graph_;
  // During the space trial: the euclidean graph over the same rows, and the rows the trial builds.
  std::unique_ptr<Graph> trialGraph_;
  std::size_t trialTarget_ = 0;
  // The count of the search running (graphCandidates), whose build may end the space trial: the
  // trial's beam; 0 outside a search.
  std::size_t slicingSearchCount_ = 0;
};

}  // namespace sublinear
