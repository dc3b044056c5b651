// The decision log's file formats (docs/evaluation.md, "Logs in and out"): JSON lines, one object per decision
// with `arm`, `reward` and `propensity`, optionally `position` (a slate's position, 0 first) and the
// filters the decision was made under, `exclude`, `labels`, `allLabels` and `noLabels` (arrays of
// integers) and `where` ({ name: [low, high] }, null for an open side: JSON has no Infinity); other
// keys, such as an event id or a time, are ignored. Or CSV with a header naming at least the columns
// arm, reward and propensity (in any order), optionally position, exclude, labels, allLabels and
// noLabels (integers separated by spaces; `where` only in JSON lines). Numbers are JSON numbers in JSON lines (a string is refused) and decimal text in CSV
// (integers: digits only, no hex, no exponent).
// A record may name its `user` (a population's log; in every record or in none) and its `page` (the
// slate it was shown on, e.g. decideSlate()'s event id; in every record or in none) and its
// `prefixPropensity` (the logger's probability of the page's items up to and including this record's,
// decideSlate()'s prefixPropensities, what 'page-cascade' reads; in every record or in none) and its
// `policyArm` (the arm the logging policy would have shown there had it not explored, decideSlate()'s
// policyArms, what 'page-pi' reads of the exploration mix; in every record or in none).
// parseDecisionLog(text) -> { arms, rewards, propensities, positions?, pages?, prefixPropensities?, policyArms?, filters?, users? }.
import { invalidArgument } from './errors.js';
import { dataToJson, isArray } from './convert.js';

const COLUMNS = ['arm', 'reward', 'propensity'];
const OPTIONAL_COLUMNS = ['position', 'page', 'prefixPropensity', 'policyArm', 'exclude', 'labels', 'allLabels', 'noLabels', 'where'];
const LABEL_COLUMNS = ['exclude', 'labels', 'allLabels', 'noLabels'];
// The user a record was decided for (a population's log, evaluate() with users): in every record or in none.
const USER_COLUMN = 'user';

// A cell or a field as the message shows it: JSON.stringify would throw for a BigInt and run a toJSON.
function shown(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  return value !== null && typeof value === 'object' ? 'an object' : String(value);
}

// A CSV cell's number is decimal text (an integer: digits only); a JSON lines field's is a JSON
// number, never a string. Number() alone would read "0x10" as 16, "" as 0 and "1e9" as an integer.
export const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
export const DIGITS = /^\d+$/;

function numberAt(value, column, where, csv, pattern = DECIMAL) {
  let number = value;
  if (typeof value === 'string') {
    // Only a CSV cell is text; a quoted number in JSON lines is a string, refused.
    if (!csv) throw invalidArgument(`${where}: ${column} ${shown(value)} is a string, not a number`);
    const text = value.trim();
    if (!pattern.test(text)) throw invalidArgument(`${where}: ${column} ${shown(value)} is not a ${pattern === DIGITS ? 'decimal integer' : 'decimal number'}`);
    number = Number(text);
  }
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw invalidArgument(`${where}: ${column} ${shown(value)} is not a finite number`);
  }
  return number;
}

function integerAt(value, column, where, csv) {
  const number = numberAt(value, column, where, csv, DIGITS);
  if (!Number.isInteger(number) || number < 0 || number > 0xffffffff) throw invalidArgument(`${where}: ${column} ${shown(value)} is not an integer in [0, 2^32-1]`);
  return number;
}

// An `exclude` or `labels` entry: an array of integers (JSON lines) or integers separated by spaces (CSV).
function idsAt(value, column, where, csv) {
  if (value === undefined || value === null || (csv && value === '')) return new Uint32Array(0);
  if (typeof value === 'string' && !csv) throw invalidArgument(`${where}: ${column} is a string, not a list of integers`);
  const list = typeof value === 'string' ? value.trim().split(/\s+/) : value;
  if (!isArray(list, `${where}: ${column}`)) throw invalidArgument(`${where}: ${column} is not a list of integers`);
  return Uint32Array.from(list, (entry) => integerAt(entry, column, where, csv));
}

// A `where` entry of JSON lines: { name: [low, high] } with null for an open side; the ranges
// themselves are checked with the rest of the filter (attributes.js).
function whereAt(value, where) {
  if (typeof value !== 'object' || isArray(value, `${where}: where`)) throw invalidArgument(`${where}: where is not an object of ranges`);
  const ranges = {};
  for (const name of Object.keys(value)) {
    const range = value[name];
    if (!isArray(range, `${where}: where.${name}`) || range.length !== 2) throw invalidArgument(`${where}: where.${name} is not [low, high]`);
    ranges[name] = [range[0] === null ? -Infinity : range[0], range[1] === null ? Infinity : range[1]];
  }
  return ranges;
}

// records: [where, { arm, reward, propensity, position?, exclude?, labels?, ... }]; csv: the values are
// CSV cells (text), otherwise JSON values.
function fromRecords(records, csv) {
  if (records.length === 0) throw invalidArgument('the log holds no decision');
  const n = records.length;
  const log = { arms: new Uint32Array(n), rewards: new Float64Array(n), propensities: new Float64Array(n) };
  const positions = new Uint32Array(n);
  // In every record or in none, as the user and the page.
  const prefix = { values: new Float64Array(n), count: 0 };
  const filters = new Array(n).fill(null);
  let positioned = false;
  let filtered = false;
  // Columns given in every record or in none: the user of a population's log, the page of a slate log,
  // the logging policy's own arm.
  const named = {
    user: { values: new Uint32Array(n), count: 0 }, page: { values: new Uint32Array(n), count: 0 }, policyArm: { values: new Uint32Array(n), count: 0 },
  };
  records.forEach(([where, entry], i) => {
    // Own keys only: a key another script added to Object.prototype is not a column.
    const field = (key) => (Object.hasOwn(entry, key) ? entry[key] : undefined);
    for (const [column, seen] of Object.entries(named)) {
      const value = field(column);
      if (value !== undefined && !(csv && value === '')) {
        seen.values[i] = integerAt(value, column, where, csv);
        seen.count++;
      } else if (seen.count > 0) {
        throw invalidArgument(`${where}: no ${column}, where the records before name theirs`);
      }
    }
    log.arms[i] = integerAt(field('arm'), 'arm', where, csv);
    log.rewards[i] = numberAt(field('reward'), 'reward', where, csv);
    log.propensities[i] = numberAt(field('propensity'), 'propensity', where, csv);
    if (!(log.propensities[i] > 0 && log.propensities[i] <= 1)) throw invalidArgument(`${where}: propensity ${field('propensity')} is not in (0, 1]`);
    const prefixPropensity = field('prefixPropensity');
    if (prefixPropensity !== undefined && !(csv && prefixPropensity === '')) {
      if (prefix.count < i) throw invalidArgument(`${where}: prefixPropensity, where the records before have none`);
      prefix.values[i] = numberAt(prefixPropensity, 'prefixPropensity', where, csv);
      if (!(prefix.values[i] > 0 && prefix.values[i] <= 1)) throw invalidArgument(`${where}: prefixPropensity ${prefixPropensity} is not in (0, 1]`);
      prefix.count++;
    } else if (prefix.count > 0) {
      throw invalidArgument(`${where}: no prefixPropensity, where the records before name theirs`);
    }
    const position = field('position');
    // An empty CSV cell: no position (a JSON lines field of "" is a string, refused).
    if (position !== undefined && !(csv && position === '')) {
      positions[i] = integerAt(position, 'position', where, csv);
      positioned = true;
    }
    const filter = {};
    for (const column of LABEL_COLUMNS) {
      const ids = idsAt(field(column), column, where, csv);
      if (ids.length > 0 || column === 'exclude' || column === 'labels') filter[column] = ids;
    }
    const ranges = field('where');
    if (ranges !== undefined && ranges !== null && !(csv && ranges === '')) {
      if (csv) throw invalidArgument(`${where}: where is read from JSON lines only`);
      filter.where = whereAt(ranges, where);
    }
    if (Object.values(filter).some((value) => !ArrayBuffer.isView(value) || value.length > 0)) {
      filters[i] = filter;
      filtered = true;
    }
  });
  for (const [column, seen] of Object.entries(named)) {
    if (seen.count > 0 && seen.count < n) throw invalidArgument(`${records[0][0]}: no ${column}, where later records name theirs`);
  }
  if (named.user.count > 0) log.users = named.user.values;
  if (positioned) log.positions = positions;
  if (named.page.count > 0) log.pages = named.page.values;
  if (prefix.count > 0) log.prefixPropensities = prefix.values;
  if (named.policyArm.count > 0) log.policyArms = named.policyArm.values;
  if (filtered) log.filters = filters;
  return log;
}

function parseJsonLines(lines) {
  const records = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `line ${i + 1}`;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      throw invalidArgument(`${where}: not a JSON object`);
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw invalidArgument(`${where}: not a JSON object`);
    for (const column of COLUMNS) {
      if (!Object.hasOwn(entry, column)) throw invalidArgument(`${where}: no '${column}'`);
    }
    const fields = {};
    for (const column of [...COLUMNS, ...OPTIONAL_COLUMNS, USER_COLUMN]) fields[column] = Object.hasOwn(entry, column) ? entry[column] : undefined;
    records.push([where, fields]);
  });
  return records;
}

// lines[first] is the header.
function parseCsv(lines, first) {
  const header = lines[first].split(',').map((name) => name.trim());
  const missing = COLUMNS.filter((column) => !header.includes(column));
  if (missing.length > 0) throw invalidArgument(`line ${first + 1}: the CSV header has no column ${missing.map((c) => `'${c}'`).join(', ')}`);
  const columns = [...COLUMNS, ...OPTIONAL_COLUMNS, USER_COLUMN].filter((column) => header.includes(column));
  const records = [];
  lines.forEach((line, i) => {
    if (i <= first || line.trim() === '') return;
    const cells = line.split(',');
    records.push([`line ${i + 1}`, Object.fromEntries(columns.map((column) => [column, cells[header.indexOf(column)]]))]);
  });
  return records;
}

export function parseDecisionLog(text) {
  if (typeof text !== 'string') throw invalidArgument('a decision log is text (JSON lines or CSV)');
  const lines = text.split(/\r?\n/);
  const first = lines.find((line) => line.trim() !== '');
  if (first === undefined) throw invalidArgument('the log holds no decision');
  const jsonLines = first.trim().startsWith('{');
  return fromRecords(jsonLines ? parseJsonLines(lines) : parseCsv(lines, lines.indexOf(first)), !jsonLines);
}

// One decision as a line of JSON lines (what evaluate() reads back); typed arrays become arrays. Other
// keys are written as data (dataToJson): a circular value or a BigInt is refused, and no toJSON runs.
export function formatDecision(decision) {
  const { arm, reward, propensity, position, page, prefixPropensity, policyArm, exclude, labels, allLabels, noLabels, where, ...rest } = decision;
  const fields = { arm, reward, propensity };
  // Own keys only, as parseDecisionLog reads them.
  if (Object.hasOwn(decision, 'position')) fields.position = position;
  if (Object.hasOwn(decision, 'page')) fields.page = page;
  if (Object.hasOwn(decision, 'prefixPropensity')) fields.prefixPropensity = prefixPropensity;
  if (Object.hasOwn(decision, 'policyArm')) fields.policyArm = policyArm;
  if (Object.hasOwn(decision, 'exclude')) fields.exclude = ArrayBuffer.isView(exclude) ? Array.from(exclude) : exclude;
  if (Object.hasOwn(decision, 'labels')) fields.labels = ArrayBuffer.isView(labels) ? Array.from(labels) : labels;
  if (Object.hasOwn(decision, 'allLabels')) fields.allLabels = ArrayBuffer.isView(allLabels) ? Array.from(allLabels) : allLabels;
  if (Object.hasOwn(decision, 'noLabels')) fields.noLabels = ArrayBuffer.isView(noLabels) ? Array.from(noLabels) : noLabels;
  // JSON has no Infinity: an open side is null.
  const open = (bound) => (bound === Infinity || bound === -Infinity ? null : bound);
  if (Object.hasOwn(decision, 'where') && where !== null && typeof where === 'object') {
    fields.where = Object.fromEntries(Object.keys(where).map((name) => [name, isArray(where[name], 'where') ? where[name].map(open) : where[name]]));
  }
  // Checked as parseDecisionLog would read it back.
  fromRecords([['decision', fields]], false);
  return dataToJson({ ...rest, ...fields }, 'decision key');
}
