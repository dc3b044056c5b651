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

/** The classes of this area on a module instance. */
export interface MipsClasses {
  readonly ExactIndex: typeof ExactIndex;
}
