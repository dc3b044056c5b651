// Items' attributes and filters (docs/recommender.md, "Attributes"), turned into what the bindings read
// (cpp/bindings/attribute_arguments.hpp): labels and values in typed arrays for the heap, value names
// and the rarer filter conditions as JSON. Every length is checked here, before anything is copied
// into wasm memory; the core checks again what it stores.
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { dataToJson, isArray, readOptions, toFloat64Array, toIdArray } from './convert.js';

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

// Reading and laying out are apart: the readers run in the methods' argument converters, where every
// getter of the caller's values runs before the object's handle is taken (a getter may dispose of the
// object); attributeBatch, which knows the ids' count, runs no code of the caller.

// labels: one unsigned integer per item, or one array of them per item. Form 0: none given.
function readLabels(labels, noun) {
  if (labels === undefined) return { form: 0, flat: NO_IDS, counts: NO_IDS };
  // An array of arrays (or of typed arrays) is several labels per item.
  const nested = isArray(labels, noun) && labels.length > 0 && (isArray(labels[0], `${noun}[0]`) || ArrayBuffer.isView(labels[0]));
  if (!nested) return { form: 1, flat: toIdArray(labels, noun), counts: NO_IDS };
  const count = labels.length;
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
  return { form: 2, flat, counts };
}

// values: { name: numbers, one per item }.
function readValues(values, noun) {
  if (values === undefined) return { names: [], columns: [] };
  const given = readOptions(values, noun);
  const names = valueNames(given, noun);
  return { names, columns: names.map((name) => toFloat64Array(given[name], `${noun}.${name}`)) };
}

const NO_LABELS_READ = readLabels(undefined);
const NO_VALUES_READ = readValues(undefined);

/** add(ids, rows, { labels, values }), read (see above). */
export function readAddAttributes(options) {
  const { labels, values } = readOptions(options, 'add options', ['labels', 'values']);
  return { labels: readLabels(labels, 'labels'), values: readValues(values, 'values') };
}

/** setLabels(ids, labels): the same shapes as add's labels. */
export function readLabelChanges(labels) {
  if (labels === undefined) throw invalidArgument('setLabels(ids, labels): labels are required');
  return { labels: readLabels(labels, 'labels'), values: NO_VALUES_READ };
}

/** setValues(ids, { name: numbers }). */
export function readValueChanges(values) {
  if (values === undefined) throw invalidArgument('setValues(ids, values): values are required');
  return { labels: NO_LABELS_READ, values: readValues(values, 'values') };
}

/**
 * The attributes read for `count` ids, checked and laid out for the heap: { form, labels, counts,
 * names (JSON, '' for none), values (name by name) }. `mismatch`: the code of labels of another count
 * (an index's add has always said DIMENSION_MISMATCH, a catalogue's and a policy's INVALID_ARGUMENT).
 */
export function attributeBatch({ labels, values }, count, mismatch = ErrorCode.INVALID_ARGUMENT) {
  const given = labels.form === 2 ? labels.counts.length : labels.flat.length;
  if (labels.form !== 0 && given !== count) {
    throw new BanditError(mismatch, `labels: expected ${labels.form === 2 ? 'one list' : 'one'} per item (${count}), got ${given}`);
  }
  let laid = NO_VALUES;
  values.columns.forEach((column, c) => {
    if (column.length !== count) {
      throw new BanditError(ErrorCode.DIMENSION_MISMATCH, `values.${values.names[c]} must hold one number per item: ${count} items, ${column.length} numbers`);
    }
  });
  if (values.names.length > 0) {
    laid = new Float64Array(values.names.length * count);
    values.columns.forEach((column, c) => laid.set(column, c * count));
  }
  return {
    form: labels.form, labels: labels.flat, counts: labels.counts,
    names: values.names.length === 0 ? '' : dataToJson(values.names, 'value name'), values: laid,
  };
}

// A filter's label list, its length refused before it is read.
function filterLabels(labels, name) {
  const length = ArrayBuffer.isView(labels) || isArray(labels, name) ? labels.length : 0;
  if (length > MAX_FILTER_LABELS) throw invalidArgument(`${name} lists ${length} labels; a filter lists at most ${MAX_FILTER_LABELS}`);
  return toIdArray(labels, name);
}

// The conditions beyond exclude and labels, as the bindings' JSON ('' when none).
function conditionsJson({ allLabels, noLabels, where }, noun) {
  // The usual filter has none of them: no object made and measured for it.
  if (allLabels === undefined && noLabels === undefined && where === undefined) return '';
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
  return Object.keys(conditions).length === 0 ? '' : dataToJson(conditions, 'filter key');
}

export const FILTER_KEYS = ['exclude', 'labels', 'allLabels', 'noLabels', 'where'];

// A call's known keys, made once for each list of extra keys a caller keeps (search's), not at every call.
const knownKeys = new WeakMap();
function filterKeys(extraKeys) {
  let keys = knownKeys.get(extraKeys);
  if (keys === undefined) {
    keys = [...extraKeys, ...FILTER_KEYS];
    knownKeys.set(extraKeys, keys);
  }
  return keys;
}

/**
 * A filter { exclude, labels, allLabels, noLabels, where } of a search or a choice: exclude and labels
 * as typed arrays for the heap, the rest as JSON. `extraKeys` are the call's other options.
 */
export function readFilter(options, noun, extraKeys = [], prefix = '') {
  const given = readOptions(options, noun, filterKeys(extraKeys));
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

// setLabels(ids, labels) and setValues(ids, { name: numbers }) of a catalogue and of every index
// type: the attributes only, no change to the index's structure. `runtime`: withHeap and
// attributesOnHeap; `toIds` reads the ids.
export function attributeChangeMethods({ withHeap, attributesOnHeap }, toIds) {
  return {
    setLabels: {
      args: [toIds, readLabelChanges],
      call: (handle, ids, labels) => attributesOnHeap(attributeBatch(labels, ids.length), (a) =>
        withHeap([ids], (idAddress) => handle.setLabels(idAddress, ids.length, a.form, a.labelAddress, a.labels.length, a.countAddress))),
    },
    setValues: {
      args: [toIds, readValueChanges],
      call: (handle, ids, values) => attributesOnHeap(attributeBatch(values, ids.length), (a) =>
        withHeap([ids], (idAddress) => handle.setValues(idAddress, ids.length, a.names, a.valueAddress, a.values.length))),
    },
  };
}

// setFeatures(ids, rows) of a catalogue and of every index type: new features for stored items, the
// attributes kept. `toRows` reads the rows (doubles for a catalogue, floats for an index); a batch
// of the wrong length is refused before anything is copied into the module's memory.
export function featureChangeMethod({ withHeap }, toIds, toRows) {
  return {
    setFeatures: {
      args: [toIds, (rows) => toRows(rows, 'features')],
      call: (handle, ids, rows) => {
        const dim = handle.dim();
        if (rows.length !== ids.length * dim) {
          throw new BanditError(ErrorCode.DIMENSION_MISMATCH,
            `setFeatures(ids, features): expected ${ids.length} x ${dim} = ${ids.length * dim} feature entries, got ${rows.length}`);
        }
        return withHeap([ids, rows], (idAddress, rowAddress) => handle.setFeatures(idAddress, ids.length, rowAddress, rows.length));
      },
    },
  };
}

// An add method of a table (Catalogue.add, LinearPolicy.addArms): (ids, features, { labels, values }),
// labels one unsigned 32-bit label per arm (a category, default 0) or an array of them per arm; values,
// { name: one number per arm }. The rows stream to the heap as runtime.withIdsAndRows decides.
export function attributedAddMethod(runtime, name, toIds, toRows) {
  return {
    [name]: {
      args: [toIds, (rows) => toRows(rows, 'features'), readAddAttributes],
      call: (handle, ids, rows, attributes) => runtime.attributesOnHeap(attributeBatch(attributes, ids.length), (a) =>
        runtime.withIdsAndRows(ids, rows, (idAddress, rowAddress, array) => handle[name](idAddress, ids.length,
          rowAddress, rows.length, array, a.form, a.labelAddress, a.labels.length, a.countAddress,
          a.names, a.valueAddress, a.values.length))),
    },
  };
}
