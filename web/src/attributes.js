// Items' attributes and filters (docs/recommender.md, "Attributes"), turned into what the bindings read
// (cpp/bindings/attribute_arguments.hpp): labels and values in typed arrays for the heap, value names
// and the rarer filter conditions as JSON. Every length is checked here, before anything is copied
// into wasm memory; the core checks again what it stores.
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { isArray, readOptions, toFloat64Array, toIdArray } from './convert.js';

// As cpp/include/sublinear/core/limits.hpp.
export const MAX_LABELS_PER_ITEM = 1024;
export const MAX_VALUE_NAMES = 64;
export const MAX_VALUE_NAME_BYTES = 128;
export const MAX_FILTER_LABELS = 1 << 20;

const NO_IDS = new Uint32Array(0);
const NO_VALUES = new Float64Array(0);
const utf8 = new TextEncoder();

function checkValueName(name, noun) {
  const bytes = utf8.encode(name).length;
  if (bytes === 0 || bytes > MAX_VALUE_NAME_BYTES) {
    const shown = name.length > 20 ? `${name.slice(0, 20)}...` : name;
    throw invalidArgument(`${noun}: the name '${shown}' has ${bytes} bytes; a value name has 1 to ${MAX_VALUE_NAME_BYTES}`);
  }
}

function valueNames(values, noun) {
  const names = Object.keys(values);
  if (names.length > MAX_VALUE_NAMES) throw invalidArgument(`${noun} names ${names.length} values; at most ${MAX_VALUE_NAMES}`);
  for (const name of names) checkValueName(name, noun);
  return names;
}

// labels: one unsigned integer per item, or one array of them per item. Form 0: none given.
// `mismatch`: the code of a count other than the items' (an index's add has always said
// DIMENSION_MISMATCH, a catalogue's and a policy's INVALID_ARGUMENT).
function readLabels(labels, count, noun, mismatch = ErrorCode.INVALID_ARGUMENT) {
  if (labels === undefined) return { form: 0, labels: NO_IDS, counts: NO_IDS };
  // An array of arrays (or of typed arrays) is several labels per item.
  const nested = isArray(labels, noun) && labels.length > 0 && (isArray(labels[0], `${noun}[0]`) || ArrayBuffer.isView(labels[0]));
  if (!nested) {
    const flat = toIdArray(labels, noun);
    if (flat.length !== count) throw new BanditError(mismatch, `${noun}: expected one per item (${count}), got ${flat.length}`);
    return { form: 1, labels: flat, counts: NO_IDS };
  }
  if (labels.length !== count) throw new BanditError(mismatch, `${noun}: expected one list per item (${count}), got ${labels.length}`);
  const counts = new Uint32Array(count);
  const lists = new Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const list = labels[i];
    if (!isArray(list, `${noun}[${i}]`) && !ArrayBuffer.isView(list)) throw invalidArgument(`${noun}[${i}] must be an array of labels`);
    // The length first: a list of 10^6 labels is refused before it is read.
    if (list.length > MAX_LABELS_PER_ITEM) {
      throw invalidArgument(`${noun}[${i}] holds ${list.length} labels; an item may carry at most ${MAX_LABELS_PER_ITEM}`);
    }
    lists[i] = toIdArray(list, `${noun}[${i}]`);
    counts[i] = lists[i].length;
    total += lists[i].length;
  }
  const flat = new Uint32Array(total);
  let at = 0;
  for (const list of lists) {
    flat.set(list, at);
    at += list.length;
  }
  return { form: 2, labels: flat, counts };
}

// values: { name: numbers, one per item }, laid out name by name.
function readValues(values, count, noun) {
  if (values === undefined) return { names: '', values: NO_VALUES };
  const given = readOptions(values, noun);
  const names = valueNames(given, noun);
  if (names.length === 0) return { names: '', values: NO_VALUES };
  const laid = new Float64Array(names.length * count);
  names.forEach((name, c) => {
    const column = toFloat64Array(given[name], `${noun}.${name}`, (length) => {
      if (length !== count) {
        throw new BanditError(ErrorCode.DIMENSION_MISMATCH, `${noun}.${name} must hold one number per item: ${count} items, ${length} numbers`);
      }
    });
    laid.set(column, c * count);
  });
  return { names: JSON.stringify(names), values: laid };
}

/** add(ids, rows, { labels, values }): the attributes of `count` items (`mismatch`: see readLabels). */
export function readAddAttributes(options, count, mismatch) {
  const { labels, values } = readOptions(options, 'add options', ['labels', 'values']);
  return { ...readLabels(labels, count, 'labels', mismatch), ...readValues(values, count, 'values') };
}

/** setLabels(ids, labels): the same shapes as add's labels. */
export function readLabelChanges(labels, count) {
  if (labels === undefined) throw invalidArgument('setLabels(ids, labels): labels are required');
  return { ...readLabels(labels, count, 'labels'), names: '', values: NO_VALUES };
}

/** setValues(ids, { name: numbers }). */
export function readValueChanges(values, count) {
  if (values === undefined) throw invalidArgument('setValues(ids, values): values are required');
  return { form: 0, labels: NO_IDS, counts: NO_IDS, ...readValues(values, count, 'values') };
}

// A filter's label list, its length refused before it is read.
function filterLabels(labels, name) {
  const length = ArrayBuffer.isView(labels) || isArray(labels, name) ? labels.length : 0;
  if (length > MAX_FILTER_LABELS) throw invalidArgument(`${name} lists ${length} labels; a filter lists at most ${MAX_FILTER_LABELS}`);
  return toIdArray(labels, name);
}

// The conditions beyond exclude and labels, as the bindings' JSON ('' when none).
function conditionsJson({ allLabels, noLabels, where }, noun) {
  const conditions = {};
  if (allLabels !== undefined) conditions.allLabels = Array.from(filterLabels(allLabels, `${noun}.allLabels`));
  if (noLabels !== undefined) conditions.noLabels = Array.from(filterLabels(noLabels, `${noun}.noLabels`));
  if (where !== undefined) {
    const ranges = readOptions(where, `${noun}.where`);
    const names = valueNames(ranges, `${noun}.where`);
    conditions.where = names.map((name) => {
      const range = ranges[name];
      if (!isArray(range, `${noun}.where.${name}`) || range.length !== 2) {
        throw invalidArgument(`${noun}.where.${name} must be [low, high]`);
      }
      const bound = (value, side) => {
        if (typeof value !== 'number' || Number.isNaN(value)) {
          throw invalidArgument(`${noun}.where.${name}: the ${side} bound must be a number, got ${String(value)}`);
        }
        // JSON has no Infinity.
        return value === Infinity ? 'inf' : value === -Infinity ? '-inf' : value;
      };
      const low = bound(range[0], 'low');
      const high = bound(range[1], 'high');
      if (range[0] > range[1]) throw invalidArgument(`${noun}.where.${name} is empty: ${range[0]} > ${range[1]}`);
      return [name, low, high];
    });
  }
  return Object.keys(conditions).length === 0 ? '' : JSON.stringify(conditions);
}

export const FILTER_KEYS = ['exclude', 'labels', 'allLabels', 'noLabels', 'where'];

/**
 * A filter { exclude, labels, allLabels, noLabels, where } of a search or a choice: exclude and labels
 * as typed arrays for the heap, the rest as JSON. `extraKeys` are the call's other options.
 */
export function readFilter(options, noun, extraKeys = [], prefix = '') {
  const given = readOptions(options, noun, [...extraKeys, ...FILTER_KEYS]);
  return {
    given,
    exclude: given.exclude === undefined ? NO_IDS : toIdArray(given.exclude, `${prefix}exclude`),
    labels: given.labels === undefined ? NO_IDS : filterLabels(given.labels, `${prefix}labels`),
    conditions: conditionsJson(given, noun),
  };
}

/** A filter of an evaluation log's record: [exclude, labels] or [exclude, labels, conditions]. */
export function filterRecord(filter, noun) {
  const { exclude, labels, conditions } = readFilter(filter, noun, [], `${noun}.`);
  const record = [Array.from(exclude), Array.from(labels)];
  if (conditions !== '') record.push(JSON.parse(conditions));
  return record;
}
