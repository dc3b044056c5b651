// The one error type of the package. `code` is one of the strings of ErrorCode (API.md).
export const ErrorCode = Object.freeze({
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  DIMENSION_MISMATCH: 'DIMENSION_MISMATCH',
  NON_FINITE: 'NON_FINITE',
  UNKNOWN_ID: 'UNKNOWN_ID',
  DUPLICATE_ID: 'DUPLICATE_ID',
  EMPTY: 'EMPTY',
  DISPOSED: 'DISPOSED',
  CORRUPT_STATE: 'CORRUPT_STATE',
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
