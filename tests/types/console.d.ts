// The one global the consumers use that lib ES2022 lacks (a host's own, not the package's).
declare const console: { log(...values: unknown[]): void };
