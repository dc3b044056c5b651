// Maximum inner product search (API.md, "Maximum inner product search").
import type { Disposable, Floats, Ids } from './common.js';

export interface SearchResult {
  /** Best first. */
  ids: Uint32Array;
  /** The exact inner products of those items, descending. */
  scores: Float32Array;
}

export interface SearchOptions {
  /** Retrieve this many candidates and rank them exactly (where the index supports it). */
  shortlist?: number;
}

export interface IndexStats {
  /** Full-dimension inner products computed since creation. */
  innerProducts: number;
  searches: number;
  size: number;
  type: string;
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
  /** ids: n identifiers; vectors: n*dim numbers. */
  add(ids: Ids, vectors: Floats): void;
  /** An unknown id throws UNKNOWN_ID and nothing is removed. */
  remove(ids: Ids): void;
  /** The min(k, size) items of largest inner product, best first. */
  search(query: Floats, k: number, options?: SearchOptions): SearchResult;
  stats(): IndexStats;
}

export declare class ExactIndex implements MipsIndex {
  constructor(options: IndexOptions);
  readonly dim: number;
  readonly size: number;
  readonly disposed: boolean;
  has(id: number): boolean;
  add(ids: Ids, vectors: Floats): void;
  remove(ids: Ids): void;
  search(query: Floats, k: number, options?: SearchOptions): SearchResult;
  stats(): IndexStats;
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface HnswIndexOptions extends IndexOptions {
  /** Links per node (>= 2, default 16). */
  M?: number;
  /** Candidate list size while building (default 200). */
  efConstruction?: number;
  /** Candidate list size while searching (default 64; the search uses max(efSearch, k, shortlist)). */
  efSearch?: number;
  /** 'inner-product' (default, measured better) or 'euclidean' (the reduction of Bachrach et al.). */
  space?: 'inner-product' | 'euclidean';
}

export interface LshIndexOptions extends IndexOptions {
  /** a: sign bits ANDed into one key, 1..64 (default 8). */
  bits?: number;
  /** b: hash tables ORed together (default 16). */
  tables?: number;
}

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
declare abstract class IndexMembers implements MipsIndex {
  readonly dim: number;
  readonly size: number;
  readonly disposed: boolean;
  has(id: number): boolean;
  add(ids: Ids, vectors: Floats): void;
  remove(ids: Ids): void;
  search(query: Floats, k: number, options?: SearchOptions): SearchResult;
  stats(): IndexStats;
  dispose(): void;
  [Symbol.dispose](): void;
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
