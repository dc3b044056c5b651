// Types shared by every area of the API.

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

