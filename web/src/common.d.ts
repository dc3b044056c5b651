// Types shared by every area of the API.

export type ErrorCodeName =
  | 'INVALID_ARGUMENT'
  | 'DIMENSION_MISMATCH'
  | 'NON_FINITE'
  | 'UNKNOWN_ID'
  | 'DUPLICATE_ID'
  | 'EMPTY'
  | 'DISPOSED'
  | 'CORRUPT_STATE'
  | 'OUT_OF_MEMORY';

export declare const ErrorCode: { readonly [K in ErrorCodeName]: K };

export declare class BanditError extends Error {
  constructor(code: ErrorCodeName, message: string);
  readonly code: ErrorCodeName;
}

export declare const version: string;

/**
 * Numbers in a flat row-major layout: n vectors of dimension dim, as a typed array (not BigInt64Array
 * or BigUint64Array, not on a detached buffer) or an array of numbers. NaN and +-Infinity throw
 * NON_FINITE. Vectors, features and rewards of linear and combinatorial policies must be at most 1e15
 * in magnitude (INVALID_ARGUMENT; NON_FINITE beyond float32's range): with dim <= 10^6 every
 * inner product and squared norm then stays finite in float32.
 */
export type Floats = Float32Array | Float64Array | ArrayLike<number>;
/** Item and arm identifiers: integers in [0, 2^32-1], as numbers (no strings, BigInts or null). */
export type Ids = Uint32Array | ArrayLike<number>;

declare global {
  /**
   * Empty unless the consumer's lib includes esnext.disposable (target esnext, or lib
   * "esnext.disposable"), where it merges with the lib's `Disposable { [Symbol.dispose](): void }`:
   * every object of the package then works with `using`, and no other target needs that lib
   * (a member written `[Symbol.dispose]()` here would not compile without it, TS2550).
   */
  interface Disposable {}
}

/** Every object that owns wasm memory. At run time each also has `[Symbol.dispose]()` (Symbol.for('Symbol.dispose') where Symbol.dispose is missing). */
export interface Disposable extends globalThis.Disposable {
  /** Frees the wasm memory; any later call throws a BanditError with code DISPOSED. */
  dispose(): void;
  readonly disposed: boolean;
}


/**
 * Items' labels: one unsigned 32-bit integer per item (a category), or one array of them per item
 * (categories, tags, sizes: at most 1024 an item). Default: label 0 for every item.
 */
export type ItemLabels = Ids | ArrayLike<Ids>;

/**
 * Items' named numbers, one per item for each name: `{ price, stock }` (at most 64 names of 1 to 128
 * bytes). An item without a value of a name never passes a `where` on it.
 */
export type ItemValues = { [name: string]: Floats };

/** add()'s attributes of an index, a catalogue or a policy's own arms. */
export interface AttributeAddOptions {
  labels?: ItemLabels;
  values?: ItemValues;
}

/**
 * Conditions on the items' attributes, combined with AND (API.md v3): at least one of `labels`, every
 * one of `allLabels`, none of `noLabels`, and for each name of `where` a value in [low, high]
 * (Infinity allowed; a NaN bound, low > high or a name no item was given: INVALID_ARGUMENT).
 */
export interface AttributeFilter {
  /** Any of these labels; every label when absent or empty. */
  labels?: Ids;
  /** Every one of these labels. */
  allLabels?: Ids;
  /** None of these labels. */
  noLabels?: Ids;
  /** Named values in ranges: `{ price: [0, 50], stock: [1, Infinity] }`. */
  where?: { [name: string]: [number, number] };
}
