// Types of the public API (hand-written: emcc 3.1.6 has no --emit-tsd). Checked by tsc in tests/types.

export type ErrorCodeName =
  | 'INVALID_ARGUMENT'
  | 'DIMENSION_MISMATCH'
  | 'NON_FINITE'
  | 'UNKNOWN_ID'
  | 'DUPLICATE_ID'
  | 'EMPTY'
  | 'DISPOSED'
  | 'CORRUPT_STATE';

export declare const ErrorCode: { readonly [K in ErrorCodeName]: K };

export declare class BanditError extends Error {
  constructor(code: ErrorCodeName, message: string);
  readonly code: ErrorCodeName;
}

export declare const version: string;

/** Numbers in a flat row-major layout: n vectors of dimension dim. */
export type Floats = Float32Array | Float64Array | ArrayLike<number>;
/** Item and arm identifiers: integers in [0, 2^32-1]. */
export type Ids = Uint32Array | ArrayLike<number>;

export interface Disposable {
  /** Frees the wasm memory; any later call throws a BanditError with code DISPOSED. */
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}

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

export interface InitOptions {
  /** The .wasm bytes, when the host has them already. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Maps the module's file names (the .wasm) to URLs. */
  locateFile?: (path: string, prefix: string) => string;
}

/** One instance of the WebAssembly module and the classes bound to it. */
export interface SublinearBandits {
  readonly version: string;
  readonly BanditError: typeof BanditError;
  readonly ErrorCode: typeof ErrorCode;
  readonly ExactIndex: typeof ExactIndex;
  /** Size of the WebAssembly memory and the bytes malloc has handed out (for leak checks). */
  memoryUsage(): { heapBytes: number; allocatedBytes: number };
  /** Hex checksum of the core's random transforms for a seed; identical in every build. */
  randomChecksum(seed: number, count: number): string;
}

export declare function init(options?: InitOptions): Promise<SublinearBandits>;
export default init;
