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
const arrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;

// Whether `value` is an ArrayBuffer itself: not a Proxy of one (instanceof would say yes, and its
// byteLength then throw a TypeError), nor a SharedArrayBuffer.
function isArrayBuffer(value) {
  try {
    arrayBufferByteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

// 'Float32Array', ... for a real typed array, undefined otherwise (DataView, Proxy, plain object).
export function tagOf(value) {
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

/** Runs `read` on a caller's value; a revoked Proxy's TypeError becomes an INVALID_ARGUMENT naming it. */
export function guardProxy(read, name) {
  try {
    return read();
  } catch (error) {
    throw proxyError(error, name);
  }
}

/** What guardProxy throws for `error` thrown while reading `name`: a revoked Proxy's TypeError as an INVALID_ARGUMENT, anything else as it is. */
export function proxyError(error, name) {
  return error instanceof TypeError && /revoked/.test(error.message) ? invalidArgument(`${name} is a revoked Proxy`) : error;
}

/** Array.isArray for a caller's value: a revoked Proxy is an INVALID_ARGUMENT naming `name`. */
export function isArray(value, name) {
  return guardProxy(() => Array.isArray(value), name);
}

const nonFinite = (message) => new BanditError(ErrorCode.NON_FINITE, message);

// The elements of `values` (a typed array or an array) in a typed array: a new view of the same
// memory when it already has the target type (so that the caller's own `buffer` or `byteLength`
// properties are never read later), a copy otherwise. `check(value, i, name)` throws for a rejected element;
// `checkLength(length)`, if given, throws for a length the call cannot take, before any element is
// read or anything as large as the length is allocated. `bound`, if given, is what `check` accepts:
// exactly the numbers in [-bound, bound] (floats), so a typed array is scanned by a loop of its own
// and `check` runs only on the first entry outside, to throw its error.
function readArray(values, name, Target, expected, check, checkLength, bound) {
  const tag = tagOf(values);
  if (tag !== undefined) {
    if (tag === 'BigInt64Array' || tag === 'BigUint64Array') {
      throw invalidArgument(`${name} must be ${expected}, not a ${tag} (BigInt values are not accepted)`);
    }
    if (isDetached(typedArrayBuffer.call(values))) throw invalidArgument(`${name} is a view of a detached ArrayBuffer`);
    const length = typedArrayLength.call(values);
    checkLength?.(length);
    if (bound === undefined) {
      for (let i = 0; i < length; i++) check(values[i], i, name);
    } else {
      const outside = firstOutside(values, length, bound);
      if (outside >= 0) check(values[outside], outside, name);
    }
    if (tag === Target.name) return new Target(typedArrayBuffer.call(values), typedArrayByteOffset.call(values), length);
    // A typed array's elements are its own (no getter runs): the constructor converts them natively.
    return new Target(values);
  }
  if (!guardProxy(() => Array.isArray(values), name)) throw invalidArgument(`${name} must be ${expected}, got ${describe(values)}`);
  // An array (or a Proxy of one) is read element by element, once.
  const length = values.length;
  if (!Number.isInteger(length) || length < 0 || length > MAX_UINT32) throw invalidArgument(`${name} has an invalid length`);
  checkLength?.(length);
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
    check(value, i, name);
    copy[i] = value;
  }
  return copy;
}

// The first index of a typed array's entries (in [0, length)) outside [-bound, bound], NaN
// included, or -1. A loop of its own, apart from readArray's per-entry checks: a search's query is
// read here at every call, and an element load shared by every typed array type the package reads
// (ids, labels, floats) is a slow megamorphic one (a query of 16 floats cost a third of a search
// call over a small index).
function firstOutside(values, length, bound) {
  for (let i = 0; i < length; i++) {
    const value = values[i];
    if (!(value <= bound && value >= -bound)) return i;
  }
  return -1;
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
  let array;
  try {
    array = Array.isArray(value);
  } catch {
    // Only a revoked Proxy makes Array.isArray throw; the message must still be made.
    return 'a revoked Proxy';
  }
  if (array) return 'an array';
  const tag = tagOf(value);
  if (tag !== undefined) return `a ${tag}`;
  if (typeof value === 'object') return value instanceof DataView ? 'a DataView' : 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}...` : value)}`;
  if (typeof value === 'bigint') return `the BigInt ${value}n`;
  if (typeof value === 'function') return 'a function';
  return String(value);
}

// The element checks take the array's name rather than closing over it: a closure made at every
// conversion (a search's query, at every call) is garbage to collect.
function checkEntry(value, i, name, float32) {
  if (value !== value || value === Infinity || value === -Infinity) throw nonFinite(`${name}[${i}] is ${value}`);
  if (value > MAX_MAGNITUDE || value < -MAX_MAGNITUDE) {
    // Beyond float32's range the stored value itself would be infinite.
    if (float32 && Math.abs(value) > FLOAT32_MAX) throw nonFinite(`${name}[${i}] = ${value} overflows float32`);
    throw invalidArgument(`${name}[${i}] = ${value} exceeds 1e15 in magnitude (inner products must stay finite in float32)`);
  }
}
const checkFloat32Entry = (value, i, name) => checkEntry(value, i, name, true);
const checkFeatureEntry = (value, i, name) => checkEntry(value, i, name, false);

/** Vectors stored or searched as float32 (index items, queries): finite, |x| <= MAX_MAGNITUDE. */
export function toFloat32Array(values, name) {
  return readArray(values, name, Float32Array, 'a Float32Array, a Float64Array or an array of numbers', checkFloat32Entry, undefined, MAX_MAGNITUDE);
}

/**
 * Features and rewards that enter a ridge regression or an index: finite, |x| <= MAX_MAGNITUDE.
 * `checkLength(length)`, if given, refuses a length before any element is read (readArray).
 */
export function toFeatureArray(values, name, checkLength) {
  return readArray(values, name, Float64Array, 'a Float64Array, a Float32Array or an array of numbers', checkFeatureEntry, checkLength, MAX_MAGNITUDE);
}

/** Doubles that are only compared or range-checked by the core (weights, bounded rewards): finite. */
export function toFloat64Array(values, name, checkLength) {
  return readArray(values, name, Float64Array, 'a Float64Array, a Float32Array or an array of numbers', checkFinite, checkLength, Number.MAX_VALUE);
}

function checkFinite(value, i, name) {
  if (value !== value || value === Infinity || value === -Infinity) throw nonFinite(`${name}[${i}] is ${value}`);
}

/** A checkLength for toFeatureArray and toFloat64Array: one entry per id of `ids` (already read). */
export function lengthOf(ids, name, idsName) {
  return (length) => {
    if (length !== ids.length) throw new BanditError(ErrorCode.DIMENSION_MISMATCH, `${name} must hold one number per entry of ${idsName}: ${idsName} has ${ids.length}, ${name} ${length}`);
  };
}

/** Identifiers (and arm or row indices): integers in [0, 2^32-1]. */
export function toIdArray(values, name = 'ids', checkLength = undefined) {
  return readArray(values, name, Uint32Array, 'a Uint32Array or an array of integers in [0, 2^32-1]', checkId, checkLength);
}

function checkId(value, i, name) {
  if (!Number.isInteger(value) || value < 0 || value > MAX_UINT32) {
    throw invalidArgument(`${name}[${i}] = ${describe(value)} is not an integer in [0, 2^32-1]`);
  }
}

/** Bytes (a saved state, a ratings file): a Uint8Array or an ArrayBuffer that is not detached. */
export function toBytes(value, name) {
  if (isArrayBuffer(value)) {
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
  // guardProxy's catch written out: a search with options reads them at every call,
  // and a closure a read is garbage to collect.
  let given;
  try {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
      throw invalidArgument(`${name} must be an object, got ${describe(value)}`);
    }
    given = Object.keys(value);
  } catch (error) {
    throw proxyError(error, name);
  }
  // Own enumerable keys only, into an object with no prototype: a key the caller did not give reads
  // as undefined even where another script added it to Object.prototype.
  const copy = Object.create(null);
  for (const key of given) copy[key] = value[key];
  if (keys) {
    for (const key of Object.keys(copy)) {
      if (!keys.includes(key)) throw invalidArgument(`unknown ${name} key '${key}' (known: ${keys.join(', ')})`);
    }
  }
  return copy;
}

// Options travel to C++ as JSON, written here rather than by JSON.stringify, which looks a toJSON up
// on every object, through Object.prototype and Array.prototype: another script's toJSON there (or
// the caller's own) would replace the options checked. Each value is read once, own enumerable keys
// only, as readOptions reads the top level. JSON would silently turn NaN and Infinity into null (an
// absent option) and BigInts into an exception, so they are refused here, naming the option; typed
// arrays become arrays (of numbers only), a Date its ISO string (what Date's own toJSON makes).
// Like the C++ parser's limit (kMaxOptionDepth): deeper options are refused (10^5 levels would
// overflow the stack, a cycle would never end).
const MAX_OPTION_DEPTH = 64;
// JSON.stringify looks a toJSON up only for objects and BigInts: of a string or a number it runs none.
const quote = JSON.stringify;
const dateTime = Date.prototype.getTime;
const dateToISOString = Date.prototype.toISOString;

function isDate(value) {
  try {
    dateTime.call(value);
    return true;
  } catch {
    return false;
  }
}

// The JSON text of `value`, the `noun` named `key` ("option 'seed'") at nesting `depth`.
function jsonOf(value, noun, key, depth) {
  // Made only where it is needed: an option may hold 10^6 numbers.
  const name = () => `${noun} '${key}'`;
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw invalidArgument(`${name()} must be a finite number, got ${value}`);
      return quote(value);
    case 'bigint':
      throw invalidArgument(`${name()} must be a number, not a BigInt`);
    case 'function':
    case 'symbol':
      throw invalidArgument(`${name()} must not be a ${typeof value}`);
    case 'undefined':
      // Only an array's element gets here (an undefined key is left out), as JSON.stringify writes it.
      return 'null';
    default:
      break;
  }
  if (value === null) return 'null';
  if (tagOf(value) !== undefined) {
    const numbers = toFloat64Array(value, name());
    let text = '[';
    for (let i = 0; i < numbers.length; i++) text += `${i > 0 ? ',' : ''}${quote(numbers[i])}`;
    return `${text}]`;
  }
  if (depth > MAX_OPTION_DEPTH) throw invalidArgument(`${noun}s are nested more than ${MAX_OPTION_DEPTH} levels deep (or refer to themselves)`);
  if (isDate(value)) return Number.isNaN(dateTime.call(value)) ? 'null' : quote(dateToISOString.call(value));
  return guardProxy(() => {
    if (Array.isArray(value)) {
      const length = value.length;
      let text = '[';
      for (let i = 0; i < length; i++) {
        // A hole reads through to Array.prototype, where another script may have put an index.
        if (!Object.hasOwn(value, i)) throw invalidArgument(`${name()}[${i}] is missing (a sparse array)`);
        text += `${i > 0 ? ',' : ''}${jsonOf(value[i], noun, key, depth + 1)}`;
      }
      return `${text}]`;
    }
    let text = '{';
    for (const child of Object.keys(value)) {
      const entry = value[child];
      // As JSON.stringify leaves it out: an option given as undefined is not given.
      if (entry === undefined) continue;
      text += `${text.length > 1 ? ',' : ''}${quote(child)}:${jsonOf(entry, noun, child, depth + 1)}`;
    }
    return `${text}}`;
  }, name());
}

/** JSON of plain data (an object of numbers, strings, booleans, null, arrays, typed arrays) that runs no toJSON; `noun` names its keys in errors. */
export function dataToJson(value, noun) {
  return jsonOf(value, noun, '', 1);
}

export function optionsToJson(options) {
  return dataToJson(options, 'option');
}
