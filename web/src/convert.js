// Every argument of the public API is read here, completely, before any wasm object is touched:
// each function below turns one JavaScript value into a value the wasm side can take (a number or
// a typed array this module owns or has checked), or throws a BanditError naming the argument.
// A value is read once, so getters and Proxies run before the call and cannot change what was
// checked; checks that a conversion would hide (a float32 overflow, a uint32 wrap, a coerced
// string) are made on the caller's values.
import { BanditError, ErrorCode, invalidArgument } from './errors.js';

export const MAX_UINT32 = 0xffffffff;

// Largest magnitude of an entry of a vector, a feature or a reward: with |x_i| <= 1e15 and dim <=
// 10^6 (the core's largest dim), every inner product, squared norm and squared distance of two
// vectors is at most 4 * 10^6 * 10^30 = 4e36, below float32's 3.4e38, so no score of a float32
// index becomes Infinity. The core's arm sets and ridge updates use the same bound (ArmSet::kMaxMagnitude).
export const MAX_MAGNITUDE = 1e15;
const FLOAT32_MAX = 3.4028234663852886e38;

// The typed-array intrinsics: an instance's own `length` or `buffer` property (or a Proxy) cannot
// pass for them.
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (key) => Object.getOwnPropertyDescriptor(TypedArrayPrototype, key).get;
const typedArrayTag = intrinsic(Symbol.toStringTag);
const typedArrayLength = intrinsic('length');
const typedArrayBuffer = intrinsic('buffer');
const typedArrayByteOffset = intrinsic('byteOffset');

// 'Float32Array', ... for a real typed array, undefined otherwise (DataView, Proxy, plain object).
function tagOf(value) {
  return typeof value === 'object' && value !== null ? typedArrayTag.call(value) : undefined;
}

function isDetached(buffer) {
  if (buffer.byteLength > 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

// Runs `read` on a caller's value; a revoked Proxy's TypeError becomes an INVALID_ARGUMENT naming it.
function guardProxy(read, name) {
  try {
    return read();
  } catch (error) {
    if (error instanceof TypeError && /revoked/.test(error.message)) throw invalidArgument(`${name} is a revoked Proxy`);
    throw error;
  }
}

/** Array.isArray for a caller's value: a revoked Proxy is an INVALID_ARGUMENT naming `name`. */
export function isArray(value, name) {
  return guardProxy(() => Array.isArray(value), name);
}

const nonFinite = (message) => new BanditError(ErrorCode.NON_FINITE, message);

// The elements of `values` (a typed array or an array) in a typed array: a new view of the same
// memory when it already has the target type (so that the caller's own `buffer` or `byteLength`
// properties are never read later), a copy otherwise. `check(value, i)` throws for a rejected element.
function readArray(values, name, Target, expected, check) {
  const tag = tagOf(values);
  if (tag !== undefined) {
    if (tag === 'BigInt64Array' || tag === 'BigUint64Array') {
      throw invalidArgument(`${name} must be ${expected}, not a ${tag} (BigInt values are not accepted)`);
    }
    if (isDetached(typedArrayBuffer.call(values))) throw invalidArgument(`${name} is a view of a detached ArrayBuffer`);
    const length = typedArrayLength.call(values);
    for (let i = 0; i < length; i++) check(values[i], i);
    if (tag === Target.name) return new Target(typedArrayBuffer.call(values), typedArrayByteOffset.call(values), length);
    const copy = new Target(length);
    for (let i = 0; i < length; i++) copy[i] = values[i];
    return copy;
  }
  if (!guardProxy(() => Array.isArray(values), name)) throw invalidArgument(`${name} must be ${expected}, got ${describe(values)}`);
  // An array (or a Proxy of one) is read element by element, once.
  const length = values.length;
  if (!Number.isInteger(length) || length < 0 || length > MAX_UINT32) throw invalidArgument(`${name} has an invalid length`);
  // A hole reads through to the prototypes: refused, and before anything as large as the length
  // claims is allocated (a sparse array may claim 2^32 - 1 elements).
  const holey = (i) => invalidArgument(`${name}[${i}] is missing (a sparse array)`);
  if (length > 0 && !Object.hasOwn(values, length - 1)) throw holey(length - 1);
  // Where no prototype has indexed properties a hole reads undefined, which the element check refuses.
  const checkOwn = prototypesHaveIndices(values);
  const copy = new Target(length);
  for (let i = 0; i < length; i++) {
    if (checkOwn && !Object.hasOwn(values, i)) throw holey(i);
    const value = values[i];
    if (typeof value !== 'number') throw invalidArgument(`${name}[${i}] is not a number (${describe(value)})`);
    check(value, i);
    copy[i] = value;
  }
  return copy;
}

const isIndex = (key) => typeof key === 'string' && /^(?:0|[1-9][0-9]*)$/.test(key);

// Whether another script gave a prototype of `object` (Array.prototype, Object.prototype, ...)
// indexed properties, which an array's holes would read.
function prototypesHaveIndices(object) {
  for (let proto = Object.getPrototypeOf(object); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (Reflect.ownKeys(proto).some(isIndex)) return true;
  }
  return false;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const tag = tagOf(value);
  if (tag !== undefined) return `a ${tag}`;
  if (typeof value === 'object') return value instanceof DataView ? 'a DataView' : 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}...` : value)}`;
  if (typeof value === 'bigint') return `the BigInt ${value}n`;
  if (typeof value === 'function') return 'a function';
  return String(value);
}

function checkEntry(name, float32) {
  return (value, i) => {
    if (value !== value || value === Infinity || value === -Infinity) throw nonFinite(`${name}[${i}] is ${value}`);
    if (value > MAX_MAGNITUDE || value < -MAX_MAGNITUDE) {
      // Beyond float32's range the stored value itself would be infinite.
      if (float32 && Math.abs(value) > FLOAT32_MAX) throw nonFinite(`${name}[${i}] = ${value} overflows float32`);
      throw invalidArgument(`${name}[${i}] = ${value} exceeds 1e15 in magnitude (inner products must stay finite in float32)`);
    }
  };
}

/** Vectors stored or searched as float32 (index items, queries): finite, |x| <= MAX_MAGNITUDE. */
export function toFloat32Array(values, name) {
  return readArray(values, name, Float32Array, 'a Float32Array, a Float64Array or an array of numbers', checkEntry(name, true));
}

/** Features and rewards that enter a ridge regression or an index: finite, |x| <= MAX_MAGNITUDE. */
export function toFeatureArray(values, name) {
  return readArray(values, name, Float64Array, 'a Float64Array, a Float32Array or an array of numbers', checkEntry(name, false));
}

/** Doubles that are only compared or range-checked by the core (weights, bounded rewards): finite. */
export function toFloat64Array(values, name) {
  return readArray(values, name, Float64Array, 'a Float64Array, a Float32Array or an array of numbers', (value, i) => {
    if (value !== value || value === Infinity || value === -Infinity) throw nonFinite(`${name}[${i}] is ${value}`);
  });
}

/** Identifiers (and arm or row indices): integers in [0, 2^32-1]. */
export function toIdArray(values, name = 'ids') {
  return readArray(values, name, Uint32Array, 'a Uint32Array or an array of integers in [0, 2^32-1]', (value, i) => {
    if (!Number.isInteger(value) || value < 0 || value > MAX_UINT32) {
      throw invalidArgument(`${name}[${i}] = ${describe(value)} is not an integer in [0, 2^32-1]`);
    }
  });
}

/** Bytes (a saved state, a ratings file): a Uint8Array or an ArrayBuffer that is not detached. */
export function toBytes(value, name) {
  if (value instanceof ArrayBuffer) {
    if (isDetached(value)) throw invalidArgument(`${name} is a detached ArrayBuffer`);
    return new Uint8Array(value);
  }
  if (tagOf(value) !== 'Uint8Array') throw invalidArgument(`${name} must be a Uint8Array, got ${describe(value)}`);
  const buffer = typedArrayBuffer.call(value);
  if (isDetached(buffer)) throw invalidArgument(`${name} is a view of a detached ArrayBuffer`);
  return new Uint8Array(buffer, typedArrayByteOffset.call(value), typedArrayLength.call(value));
}

/** A number: finite (NON_FINITE otherwise) and at most `max` in magnitude. */
export function requireNumber(value, name, max = Number.MAX_VALUE) {
  if (typeof value !== 'number') throw invalidArgument(`${name} must be a number, got ${describe(value)}`);
  if (!Number.isFinite(value)) throw nonFinite(`${name} must be finite, got ${value}`);
  if (Math.abs(value) > max) throw invalidArgument(`${name} = ${value} exceeds ${max} in magnitude`);
  return value;
}

/** An integer in [min, max]; no coercion (null, "5", 5.5 and 5n are refused). */
export function requireInteger(value, name, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidArgument(`${name} must be an integer in [${min}, ${max === MAX_UINT32 ? '2^32-1' : max}], got ${describe(value)}`);
  }
  return value;
}

export function requirePositiveInteger(value, name, max = MAX_UINT32) {
  return requireInteger(value, name, 1, max);
}

/** An item or arm identifier. */
export function requireId(value, name = 'id') {
  return requireInteger(value, name, 0, MAX_UINT32);
}

/**
 * A plain options object (undefined gives {}), read once into a fresh object. With `keys`, a key
 * outside them is refused naming it (options that JavaScript reads itself; the core checks its own).
 */
export function readOptions(value, name, keys) {
  if (value === undefined) return Object.create(null);
  if (value === null || typeof value !== 'object' || guardProxy(() => Array.isArray(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer, name)) {
    throw invalidArgument(`${name} must be an object, got ${describe(value)}`);
  }
  // Own enumerable keys only, into an object with no prototype: a key the caller did not give reads
  // as undefined even where another script added it to Object.prototype.
  const copy = Object.create(null);
  for (const key of guardProxy(() => Object.keys(value), name)) copy[key] = value[key];
  if (keys) {
    for (const key of Object.keys(copy)) {
      if (!keys.includes(key)) throw invalidArgument(`unknown ${name} key '${key}' (known: ${keys.join(', ')})`);
    }
  }
  return copy;
}

// Options travel to C++ as JSON; JSON would silently turn NaN and Infinity into null (an absent
// option) and BigInts into an exception, so they are refused here, naming the option. Typed arrays
// become arrays (of numbers only).
// Like the C++ parser's limit (kMaxOptionDepth): deeper options are refused before JSON.stringify
// would recurse into them (a stack overflow for 10^5 levels, a TypeError for a cycle).
const MAX_OPTION_DEPTH = 64;

function checkNesting(options) {
  const pending = [[options, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop();
    if (value === null || typeof value !== 'object' || tagOf(value) !== undefined) continue;
    if (depth > MAX_OPTION_DEPTH) throw invalidArgument(`options are nested more than ${MAX_OPTION_DEPTH} levels deep (or refer to themselves)`);
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
}

export function optionsToJson(options) {
  checkNesting(options);
  return JSON.stringify(options, (key, value) => {
    if (typeof value === 'number' && !Number.isFinite(value)) throw invalidArgument(`option '${key}' must be a finite number, got ${value}`);
    if (typeof value === 'bigint') throw invalidArgument(`option '${key}' must be a number, not a BigInt`);
    if (typeof value === 'function' || typeof value === 'symbol') throw invalidArgument(`option '${key}' must not be a ${typeof value}`);
    if (tagOf(value) !== undefined) return Array.from(toFloat64Array(value, `option '${key}'`));
    return value;
  });
}

/**
 * add(ids, rows, { labels }) of an index or a catalogue: one unsigned 32-bit label per id (the core
 * checks the count), or null when none were given.
 */
export function readAddOptions(options) {
  const { labels } = readOptions(options, 'add options', ['labels']);
  return labels === undefined ? null : toIdArray(labels, 'labels');
}
