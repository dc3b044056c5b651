// JavaScript values to the typed arrays the wasm side reads, with the checks that cannot be made
// after conversion (a float32 conversion or a uint32 wrap would hide the caller's mistake).
import { invalidArgument } from './errors.js';

const MAX_ID = 0xffffffff;

function isArrayLike(value) {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

export function toFloat32Array(values, name) {
  if (values instanceof Float32Array) return values;
  if (!isArrayLike(values) || values instanceof DataView) {
    throw invalidArgument(`${name} must be a Float32Array, a Float64Array or an array of numbers`);
  }
  if (Array.isArray(values)) {
    for (let i = 0; i < values.length; i++) {
      if (typeof values[i] !== 'number') throw invalidArgument(`${name}[${i}] is not a number`);
    }
  }
  return Float32Array.from(values);
}

export function toFloat64Array(values, name) {
  if (values instanceof Float64Array) return values;
  if (!isArrayLike(values) || values instanceof DataView) {
    throw invalidArgument(`${name} must be a Float64Array, a Float32Array or an array of numbers`);
  }
  if (Array.isArray(values)) {
    for (let i = 0; i < values.length; i++) {
      if (typeof values[i] !== 'number') throw invalidArgument(`${name}[${i}] is not a number`);
    }
  }
  return Float64Array.from(values);
}

export function toIdArray(ids, name = 'ids') {
  if (ids instanceof Uint32Array) return ids;
  if (!isArrayLike(ids) || ids instanceof DataView) {
    throw invalidArgument(`${name} must be a Uint32Array or an array of integers in [0, 2^32-1]`);
  }
  const out = new Uint32Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = typeof ids[i] === 'bigint' ? Number(ids[i]) : ids[i];
    if (!Number.isInteger(id) || id < 0 || id > MAX_ID) {
      throw invalidArgument(`${name}[${i}] = ${String(ids[i])} is not an integer in [0, 2^32-1]`);
    }
    out[i] = id;
  }
  return out;
}

export function requirePositiveInteger(value, name, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw invalidArgument(`${name} must be an integer in [1, ${max}], got ${String(value)}`);
  }
  return value;
}

export function requireObject(value, name) {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(`${name} must be an object`);
  }
  return value;
}

// Options travel to C++ as JSON; JSON would silently turn NaN and Infinity into null (an absent
// option), so they are rejected here, naming the option.
export function optionsToJson(options) {
  return JSON.stringify(options, (key, value) => {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw invalidArgument(`option '${key}' must be a finite number, got ${value}`);
    }
    if (typeof value === 'bigint') return Number(value);
    if (ArrayBuffer.isView(value)) return Array.from(value);
    return value;
  });
}
