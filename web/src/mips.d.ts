// Maximum inner product search (docs/mips.md, "Maximum inner product search").
import type { AttributeAddOptions, AttributeFilter, Disposable, Floats, Ids, ItemLabels, ItemValues } from './common.js';

export interface SearchResult {
  /** Best first. */
  ids: Uint32Array;
  /** The exact inner products of those items, descending. */
  scores: Float32Array;
}

/**
 * The answers of searchBatch, query after query, in flat typed arrays: query q's answer is
 * `ids.subarray(q * stride, q * stride + counts[q])` and the same slice of `scores`, exactly what
 * `search(queries[q], k, options)` returns. Slots beyond counts[q] hold id 0 and score NaN.
 *
 * ```ts
 * const { ids, scores, counts, stride } = index.searchBatch(queries, 10);
 * for (let q = 0; q < counts.length; q++) {
 *   const best = ids.subarray(q * stride, q * stride + counts[q]);
 * }
 * ```
 */
export interface BatchSearchResult {
  /** n x stride ids; query q's first, best first, from q * stride. */
  ids: Uint32Array;
  /** The exact inner products, aligned with ids. */
  scores: Float32Array;
  /** How many answers each query has: min(k, size), or min(k, eligible count) with filters (fewer where an approximate index found fewer). */
  counts: Uint32Array;
  /** Slots per query: min(k, size). */
  stride: number;
}

/**
 * The attribute conditions (labels, allLabels, noLabels, where) and `exclude` all apply (AND). Every
 * index type returns only eligible items, and min(k, eligible count) of them: FEWER than k when fewer
 * are eligible. Nothing eligible: EMPTY.
 */
export interface SearchOptions extends AttributeFilter {
  /** Retrieve this many candidates and rank them exactly (where the index supports it). */
  shortlist?: number;
  /** Ids never returned (ids the index does not hold are ignored). */
  exclude?: Ids;
}

/**
 * The items' labels (one per item, or an array per item; default 0) and named values, for search's
 * filters. A wrong count throws INVALID_ARGUMENT (values: DIMENSION_MISMATCH), and nothing is added.
 */
export interface AddOptions extends AttributeAddOptions {}

export interface IndexStats {
  /** Full-dimension inner products computed since creation. */
  innerProducts: number;
  searches: number;
  size: number;
  type: string;
  /** 'f32' or 'int8' (the storage option). */
  storage: 'f32' | 'int8';
  /** Bytes of item vectors per item: the store's row, and what a structure keeps beside it (per graph node a reference to the row, and the rows of deleted nodes; or, for rows of at most 64 bytes in a graph beyond the caches, a copy of the row). */
  vectorBytesPerItem: number;
  [key: string]: unknown;
}

export interface IndexOptions {
  dim: number;
  seed?: number;
}

/** The interface every MIPS index shares. */
export interface MipsIndex extends Disposable {
  readonly dim: number;
  readonly size: number;
  has(id: number): boolean;
  /** ids: n identifiers; vectors: n*dim numbers; options.labels: n labels. */
  add(ids: Ids, vectors: Floats, options?: AddOptions): void;
  /** An unknown id throws UNKNOWN_ID and nothing is removed. */
  remove(ids: Ids): void;
  /** New labels for stored items (the shapes of add's): no change to the index's structure. */
  setLabels(ids: Ids, labels: ItemLabels): void;
  /** New values for stored items (other names keep theirs): no change to the index's structure. */
  setValues(ids: Ids, values: ItemValues): void;
  /**
   * New vectors for stored items (n*dim numbers), their labels and values kept: each leaves the
   * structure and comes back as a new item (HNSW scans it exactly until a later search's slice, or
   * build(), links it again). UNKNOWN_ID, DUPLICATE_ID, DIMENSION_MISMATCH, NON_FINITE: nothing changed.
   */
  setFeatures(ids: Ids, vectors: Floats): void;
  /**
   * The min(k, size) items of largest inner product, best first; with filters (options.exclude,
   * options.labels), the min(k, eligible count) best eligible items, so fewer than k when fewer are
   * eligible, and EMPTY when none is.
   */
  search(query: Floats, k: number, options?: SearchOptions): SearchResult;
  /**
   * search(query, k, options) for each of n queries, with the same answers as n calls in order.
   * `queries`: n*dim numbers in one flat array (a Float32Array, say), or an array of n vectors.
   * Where a search only reads the index (ExactIndex, HnswIndex once every item is in its graph,
   * GreedyMipsIndex, LshIndex and PcaTreeIndex without filters) the queries are shared among the module's threads
   * (sb.threads); other index types (and an HnswIndex with items waiting, whose searches build)
   * answer them in order on the calling thread (docs/mips.md, "Many queries at once").
   * Every query is checked before any is searched: a length not a multiple of dim (or vectors of
   * other lengths) throws DIMENSION_MISMATCH, a non-finite entry NON_FINITE, k < 1 or more than
   * 2^24 queries or 2^28 answer slots INVALID_ARGUMENT; the index is then unchanged.
   */
  searchBatch(queries: Floats | readonly Floats[], k: number, options?: SearchOptions): BatchSearchResult;
  /**
   * Builds the structure of up to `maxItems` waiting items now (all by default) and returns how many
   * still wait. Only HnswIndex's incremental build leaves items waiting (they are scanned exactly
   * meanwhile); call it in a Worker or in idle time to finish the graph early. Others return 0.
   */
  build(maxItems?: number): number;
  stats(): IndexStats;
  /** The whole state (versioned, checksummed; docs/state-format.md). */
  toBytes(): Uint8Array;
}

export interface ExactIndexOptions extends IndexOptions {
  /**
   * 'f32' (default): float rows. 'int8': 8-bit codes and one float scale per row, a quarter of the
   * memory; an item's vector is then its decoded row (its scores, its saved state). Up to 65,536 dimensions.
   */
  storage?: 'f32' | 'int8';
}

export interface HnswIndexOptions extends IndexOptions {
  /**
   * 'f32' (default): float rows. 'int8': 8-bit codes and one float scale per row in the store and in
   * the graph (integer dot products while walking it, over a beam 1.5 times efSearch wide); the whole
   * beam is ranked with the float query against the decoded rows, which are then the items' vectors.
   * Up to 65,536 dimensions.
   */
  storage?: 'f32' | 'int8';
  /** Links per node (>= 2, default 16). */
  M?: number;
  /** Candidate list size while building (default 200). */
  efConstruction?: number;
  /**
   * Candidates kept while searching beyond those asked for (the beam is efSearch + max(k, shortlist) - 1).
   * Default: 64 below 256 dimensions, 144 from 256 (real vectors of many coordinates need the wider beam).
   */
  efSearch?: number;
  /**
   * 'auto' (default): once 1,000 items are in, both spaces are measured on a sample and the one of
   * higher recall is kept (stats().space, stats().spaceTrial); 'inner-product'; or 'euclidean' (the
   * reduction of Bachrach et al.).
   */
  space?: 'auto' | 'inner-product' | 'euclidean';
  /**
   * 'incremental' (default): add() only stores the items; each search scans the items not yet in the
   * graph exactly and then inserts some of them, so that no search costs more than
   * (1 + buildCredit) exhaustive scans and the total never more than that many times a scan's
   * (stats().built, stats().pending; build() finishes at once). Graph work is counted in scan rows
   * (stats().evaluationCost per distance computation, higher once the graph outgrows a cache), so the
   * bound holds in time as measured, not exactly. The graph is started only where it pays: while a
   * search would visit more than a 30th of the items (up to (efSearch + k - 1) x 2M nodes; 44,640
   * items for Sub-TS's default graph, 70,080 for a top-10 search with HnswIndex's defaults), every
   * search is an exact scan and nothing is built. A graph finished with build() is searched at any size.
   * 'immediate': add() inserts every item before it returns.
   */
  build?: 'incremental' | 'immediate';
  /** Graph building per search, in exhaustive scans of the items (> 0, default 1). */
  buildCredit?: number;
  /**
   * Filtered searches: a graph search that keeps only eligible nodes visits about beam / f nodes when a
   * fraction f of the items is eligible (beam = efSearch + max(k, shortlist) - 1); its cost is taken as
   * filterCrossover x beam / f rows of an exhaustive scan, and the eligible items are scanned exactly
   * instead whenever that costs no more. The default is measured by `npm run bench -- filters`;
   * 0 always searches the graph.
   */
  filterCrossover?: number;
}

export interface LshIndexOptions extends IndexOptions {
  /** a: sign bits ANDed into one key, 1..64 (default 8). */
  bits?: number;
  /** b: hash tables ORed together (default 16). */
  tables?: number;
}

/** The kebab-case name of every index type, as the core registers them (`sb.optionTable()` lists the
 * same; tests/js/option-tables.test.js holds the two equal). */
export type IndexType = 'exact' | 'hnsw' | 'lsh' | 'adaptive' | 'bounded-me' | 'greedy' | 'pca-tree';

/** `{ type, ...options }` of any index type, e.g. `{ type: 'hnsw', M: 8 }`. */
export interface BaseIndexSpec {
  type: string;
  [option: string]: unknown;
}

export interface AdaptiveIndexOptions extends IndexOptions {
  /** The index type of each copy (default `{ type: 'hnsw' }`); its seed is set per copy. */
  base?: BaseIndexSpec;
  /** kappa: independent copies, 1..64 (default 3). */
  copies?: number;
  /** Queries are normalised and rounded to multiples of epsilon / dim, epsilon in (0, 1) (default 0.01). */
  epsilon?: number;
}

/** The members every index class shares (the JS classes extend one common base). */
// Merged into the class: [Symbol.dispose]() where the consumer's lib declares it (common.d.ts).
declare interface IndexMembers extends globalThis.Disposable {}

declare abstract class IndexMembers implements MipsIndex {
  /** The kebab-case type name, as in `index: { type }`. */
  static readonly type: string;
  /**
   * Restores an index saved by toBytes(); it continues exactly as the original would. Damaged bytes,
   * bytes of another class and a state of another format version (the message names both) throw
   * CORRUPT_STATE.
   */
  static fromBytes<T extends IndexMembers>(this: abstract new (...args: any[]) => T, bytes: Uint8Array): T;
  readonly dim: number;
  readonly size: number;
  readonly disposed: boolean;
  has(id: number): boolean;
  add(ids: Ids, vectors: Floats, options?: AddOptions): void;
  remove(ids: Ids): void;
  setLabels(ids: Ids, labels: ItemLabels): void;
  setValues(ids: Ids, values: ItemValues): void;
  setFeatures(ids: Ids, vectors: Floats): void;
  search(query: Floats, k: number, options?: SearchOptions): SearchResult;
  searchBatch(queries: Floats | readonly Floats[], k: number, options?: SearchOptions): BatchSearchResult;
  build(maxItems?: number): number;
  stats(): IndexStats;
  toBytes(): Uint8Array;
  dispose(): void;
}

export declare class ExactIndex extends IndexMembers {
  constructor(options: ExactIndexOptions);
}

export declare class HnswIndex extends IndexMembers {
  constructor(options: HnswIndexOptions);
}

export declare class LshIndex extends IndexMembers {
  constructor(options: LshIndexOptions);
}

export declare class AdaptiveIndex extends IndexMembers {
  constructor(options: AdaptiveIndexOptions);
}

/** The classes of this area on a module instance. */
export interface MipsClasses {
  readonly ExactIndex: typeof ExactIndex;
  readonly HnswIndex: typeof HnswIndex;
  readonly LshIndex: typeof LshIndex;
  readonly AdaptiveIndex: typeof AdaptiveIndex;
}

// ---- Liu et al. (arXiv:1812.06360, A Bandit Approach to MIPS): BoundedME and the baselines Greedy-MIPS and
// PCA-MIPS ----

export interface BoundedMEIndexOptions extends IndexOptions {
  /**
   * In (0, 1), default 0.1: allowed suboptimality of the mean reward, as a fraction of the reward
   * range [a, b] of x_j q_j (from the per-coordinate data bounds and the query). With probability
   * >= 1 - delta the k-th result's inner product is within epsilon * (b - a) * dim of the true k-th best
   * (stats().suboptimalityBound). Larger epsilon: fewer coordinates read.
   */
  epsilon?: number;
  /** In (0, 1), default 0.1: failure probability. */
  delta?: number;
}

export interface BoundedMEIndexStats extends IndexStats {
  /** Coordinates multiplied in total (innerProducts counts them as fractions of dim). */
  pulls: number;
  rounds: number;
  epsilon: number;
  delta: number;
  /** Reward range [rewardLow, rewardHigh] of the last search and its guarantee in inner-product units. */
  rewardLow: number;
  rewardHigh: number;
  suboptimalityBound: number;
}

/** BoundedME (Liu et al., Algorithm 1): median elimination over coordinates pulled without replacement; no preprocessing. */
export declare class BoundedMEIndex extends IndexMembers {
  constructor(options: BoundedMEIndexOptions);
  stats(): BoundedMEIndexStats;
}

export interface GreedyMipsIndexOptions extends IndexOptions {
  /** Candidates screened per query (absolute). Give this or budgetFraction. */
  budget?: number;
  /** Candidates screened as a fraction of the size, in (0, 1], default 0.1. */
  budgetFraction?: number;
}

/** Budgeted Greedy-MIPS (Yu et al. 2017): per-coordinate sorted lists, greedy screening of `budget` candidates, exact ranking. */
export declare class GreedyMipsIndex extends IndexMembers {
  constructor(options: GreedyMipsIndexOptions);
}

export interface PcaTreeIndexOptions extends IndexOptions {
  /**
   * Tree depth in [0, 20]; 0 is the exact scan. Default: floor(log2(size / 1024)) at each build, so
   * that leaves hold 1024 to 2047 items (a search reads one); a given depth is kept whatever the size.
   */
  depth?: number;
}

/** PCA-MIPS (Bachrach et al. 2014): Euclidean transform, median splits on principal directions, search in the query's leaf. */
export declare class PcaTreeIndex extends IndexMembers {
  constructor(options: PcaTreeIndexOptions);
}

export interface BoundedMEOptions {
  /** In (0, 1), default 0.1, relative to high - low. */
  epsilon?: number;
  /** In (0, 1), default 0.1. */
  delta?: number;
  /** Arms to return, default 1. */
  k?: number;
  seed?: number;
  /** Bounds of every reward, default [0, 1]; rewards outside throw INVALID_ARGUMENT. */
  low?: number;
  high?: number;
  /**
   * Draw order without replacement: 'shared' (one random order of positions for all arms, as in
   * MIPS; default), 'independent' (one random order per arm), 'given' (the lists' own order).
   */
  order?: 'shared' | 'independent' | 'given';
}

export interface BoundedMEResult {
  /** k arm indices in [0, K), best empirical mean first. */
  arms: Uint32Array;
  /** Rewards drawn in total (at most K * N). */
  pulls: number;
}

export interface MipsClasses {
  readonly BoundedMEIndex: typeof BoundedMEIndex;
  readonly GreedyMipsIndex: typeof GreedyMipsIndex;
  readonly PcaTreeIndex: typeof PcaTreeIndex;
  /** BoundedME on explicit reward lists (MAB-BP): rewards[arm * N + j] for K arms with N rewards each. */
  boundedME(rewards: Floats, K: number, N: number, options?: BoundedMEOptions): BoundedMEResult;
}
