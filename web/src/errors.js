// The one error type of the package. `code` is one of the strings of ErrorCode (common.d.ts).
export const ErrorCode = Object.freeze({
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  DIMENSION_MISMATCH: 'DIMENSION_MISMATCH',
  NON_FINITE: 'NON_FINITE',
  UNKNOWN_ID: 'UNKNOWN_ID',
  DUPLICATE_ID: 'DUPLICATE_ID',
  EMPTY: 'EMPTY',
  DISPOSED: 'DISPOSED',
  CORRUPT_STATE: 'CORRUPT_STATE',
  // The WebAssembly heap cannot hold what a call needs (it grows to 4 GiB at most); the object is unchanged.
  OUT_OF_MEMORY: 'OUT_OF_MEMORY',
});

export class BanditError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'BanditError';
    this.code = code;
  }
}

export function invalidArgument(message) {
  return new BanditError(ErrorCode.INVALID_ARGUMENT, message);
}
