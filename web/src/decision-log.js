// The decision log's file formats (README, "Logs in and out"): JSON lines, one object per decision
// with `arm`, `reward` and `propensity` (other keys, such as an event id or a time, are ignored), or
// CSV with a header naming at least the columns arm, reward and propensity (in any order).
// parseDecisionLog(text) -> { arms, rewards, propensities }, for evaluate().
import { invalidArgument } from './errors.js';

const COLUMNS = ['arm', 'reward', 'propensity'];

function numberAt(value, column, where) {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) {
    throw invalidArgument(`${where}: ${column} ${JSON.stringify(value)} is not a finite number`);
  }
  return number;
}

function fromRecords(records) {
  if (records.length === 0) throw invalidArgument('the log holds no decision');
  const log = { arms: new Uint32Array(records.length), rewards: new Float64Array(records.length), propensities: new Float64Array(records.length) };
  records.forEach(([where, arm, reward, propensity], i) => {
    const id = numberAt(arm, 'arm', where);
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw invalidArgument(`${where}: arm ${arm} is not an integer in [0, 2^32-1]`);
    log.arms[i] = id;
    log.rewards[i] = numberAt(reward, 'reward', where);
    log.propensities[i] = numberAt(propensity, 'propensity', where);
    if (!(log.propensities[i] > 0 && log.propensities[i] <= 1)) throw invalidArgument(`${where}: propensity ${propensity} is not in (0, 1]`);
  });
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
    records.push([where, entry.arm, entry.reward, entry.propensity]);
  });
  return records;
}

// lines[first] is the header.
function parseCsv(lines, first) {
  const header = lines[first].split(',').map((name) => name.trim());
  const at = COLUMNS.map((column) => header.indexOf(column));
  const missing = COLUMNS.filter((_, i) => at[i] < 0);
  if (missing.length > 0) throw invalidArgument(`line ${first + 1}: the CSV header has no column ${missing.map((c) => `'${c}'`).join(', ')}`);
  const records = [];
  lines.forEach((line, i) => {
    if (i <= first || line.trim() === '') return;
    const cells = line.split(',');
    records.push([`line ${i + 1}`, ...at.map((column) => cells[column])]);
  });
  return records;
}

export function parseDecisionLog(text) {
  if (typeof text !== 'string') throw invalidArgument('a decision log is text (JSON lines or CSV)');
  const lines = text.split(/\r?\n/);
  const first = lines.find((line) => line.trim() !== '');
  if (first === undefined) throw invalidArgument('the log holds no decision');
  return fromRecords(first.trim().startsWith('{') ? parseJsonLines(lines) : parseCsv(lines, lines.indexOf(first)));
}

// One decision as a line of JSON lines (what evaluate() reads back).
export function formatDecision({ arm, reward, propensity, ...rest }) {
  // Checked as parseDecisionLog would read it back.
  fromRecords([['decision', arm, reward, propensity]]);
  return JSON.stringify({ ...rest, arm, reward, propensity });
}
