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

