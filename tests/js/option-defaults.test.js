// Defaults, ranges and choices written outside the C++ option tables (sb.optionTable) must agree
// with them: the .d.ts JSDoc ("Default 16", "(>= 2, default 16)", "in (0, 1)", "1..64") and the demo's
// custom form (web/demo/custom-options.js, which takes its values from the tables once the module
// is loaded: applyOptionTables). tests/js/option-tables.test.js checks the option names.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { constructorOptionsOf, docsOf, families, interfacesOf } from './declarations.js';
import { loadModule } from './helpers.js';
import { applyOptionTables, environmentTypes, indexTypes, policyTypes, tableOf } from '../../web/demo/custom-options.js';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');
const sb = await loadModule();

const numberPattern = String.raw`-?(?:\d[\d,]*(?:\.\d+)?(?:e-?\d+)?|10\^\d+)`;
const toNumber = (text) => (text.startsWith('10^') ? 10 ** Number(text.slice(3)) : Number(text.replaceAll(',', '')));

// What a JSDoc states: { default, low, high, lowOpen, highOpen } (only the parts it states). A
// default followed by more words ("64 x shortlist", "1 / log T") is a formula, not a value.
function statedInDoc(doc) {
  const stated = {};
  const value = doc.match(new RegExp(String.raw`\b[Dd]efault:? (${numberPattern}|true|false|'[\w-]+')(?=[).,;:]|$| \()`));
  if (value) {
    const [, text] = value;
    stated.default = text === 'true' ? true : text === 'false' ? false : text.startsWith("'") ? text.slice(1, -1) : toNumber(text);
  }
  const chosen = doc.match(/'([\w-]+)' \(default\)/) ?? doc.match(/^'([\w-]+)' \(default\)/);
  if (chosen && stated.default === undefined) stated.default = chosen[1];
  const interval = doc.match(new RegExp(String.raw`(?:\bin |^|\()([[(])(${numberPattern}), (${numberPattern}|∞)([\])])`));
  if (interval) {
    const [, open, low, high, close] = interval;
    Object.assign(stated, { low: toNumber(low), lowOpen: open === '(' });
    if (high !== '∞') Object.assign(stated, { high: toNumber(high), highOpen: close === ')' });
  }
  const dots = doc.match(new RegExp(String.raw`(?:^|[ (,])(${numberPattern})\.\.(${numberPattern})\b`));
  if (dots && !interval) Object.assign(stated, { low: toNumber(dots[1]), high: toNumber(dots[2]), lowOpen: false, highOpen: false });
  const bound = doc.match(new RegExp(String.raw`\((>=?) (${numberPattern})[,)]`));
  if (bound && !interval && !dots) Object.assign(stated, { low: toNumber(bound[2]), lowOpen: bound[1] === '>' });
  return stated;
}

// The part of a table entry a statement can be compared with.
function fromTable(option, stated) {
  const actual = {};
  for (const key of Object.keys(stated)) actual[key] = option[key];
  return actual;
}

describe('defaults and ranges outside the option tables', () => {
  test('the JSDoc reader reads the forms the .d.ts files use', () => {
    expect(statedInDoc('Links per node (>= 2, default 16).')).toEqual({ default: 16, low: 2, lowOpen: false });
    expect(statedInDoc('Failure probability of the confidence radius, in (0, 1). Default 0.05.')).toEqual({ default: 0.05, low: 0, high: 1, lowOpen: true, highOpen: true });
    expect(statedInDoc('a: sign bits ANDed into one key, 1..64 (default 8).')).toEqual({ default: 8, low: 1, high: 64, lowOpen: false, highOpen: false });
    expect(statedInDoc("How the radius is set. Default 'practical': c * sigma")).toEqual({ default: 'practical' });
    expect(statedInDoc("'auto' (default): once 1,000 items are in")).toEqual({ default: 'auto' });
    expect(statedInDoc('The largest shortlist. Default 64 x shortlist (at most 100,000).')).toEqual({});
    expect(statedInDoc('T, the horizon. Default 10000.')).toEqual({ default: 10000 });
  });

  // Every default and range the JSDoc of `entries` ([label, table, interface name]) states, against
  // the table: [compared, mismatches].
  function compareDocs(interfaces, entries) {
    let compared = 0;
    const mismatches = [];
    for (const [label, table, interfaceName] of entries) {
      for (const [key, doc] of docsOf(interfaces, interfaceName)) {
        const option = table.find((entry) => entry.name === key);
        if (!option) continue;  // js-only keys (a Matroid object): option-tables.test.js
        const stated = statedInDoc(doc);
        // A computed default is described in words in both places.
        if (typeof option.default === 'string' && option.type !== 'string') delete stated.default;
        if (Object.keys(stated).length === 0) continue;
        compared += 1;
        const actual = fromTable(option, stated);
        if (JSON.stringify(actual) !== JSON.stringify(stated)) mismatches.push({ label, key, stated, table: actual, doc });
      }
    }
    return [compared, mismatches];
  }

  test.each(families)('$file: every default and range its JSDoc states is the table\'s', ({ file, kind }) => {
    const text = read(file);
    const entries = [...constructorOptionsOf(text)].map(([name, optionsInterface]) => [name, sb.optionTable(kind, sb[name].type), optionsInterface]);
    const [compared, mismatches] = compareDocs(interfacesOf(text), entries);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(0);
  });

  test('simulate.d.ts: every default and range its JSDoc states for an environment is the table\'s', () => {
    const declared = { linear: 'LinearEnvironmentConfig', ratings: 'RatingsEnvironmentConfig', 'mab-bp': 'MabBpEnvironmentConfig', mips: 'MipsEnvironmentConfig' };
    const entries = Object.entries(declared).map(([type, name]) => [type, sb.optionTable('environment', type), name]);
    const [compared, mismatches] = compareDocs(interfacesOf(read('web/src/simulate.d.ts')), entries);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(0);
  });

  test('the demo\'s custom form reads every option it has a table for from that table', () => {
    const every = [
      ...Object.entries(environmentTypes).flatMap(([type, { options }]) => options.map((option) => ({ where: ['environment', type], option }))),
      ...Object.entries(indexTypes).flatMap(([type, { options }]) => options.map((option) => ({ where: ['index', type], option }))),
      ...Object.entries(policyTypes).flatMap(([family, types]) => Object.entries(types).flatMap(([type, { options }]) => options.map((option) => ({ where: [family, type], option })))),
    ].filter(({ option }) => option.type !== 'index');
    // Options the core reads without a table (simulate()'s mab-bp policy and a mips run's k) keep
    // the demo's own values.
    const untabled = every.filter(({ where, option }) => tableOf(where[0], where[1], option.key) === null)
      .map(({ where, option }) => `${where.join(' ')} ${option.key}`);
    expect(untabled.sort()).toEqual(['mab-bp bounded-me delta', 'mab-bp bounded-me epsilon', ...Object.keys(indexTypes).map((type) => `mips ${type} k`)].sort());

    applyOptionTables((kind, type) => sb.optionTable(kind, type));
    const mismatches = [];
    for (const { where, option } of every) {
      const table = tableOf(where[0], where[1], option.key);
      if (table === null) continue;
      const spec = sb.optionTable(table.kind, table.type).find((entry) => entry.name === table.name);
      if (!spec) {
        mismatches.push({ where, key: option.key, problem: 'not in the table' });
        continue;
      }
      const expected = {};
      if (spec.choices) expected.choices = spec.choices;
      // Computed by the library, or absent means other than the default: the form leaves it empty.
      expected.default = (typeof spec.default === 'string' && spec.type !== 'string') || spec.defaultNote !== undefined ? '' : spec.default;
      // Where the form starts elsewhere, it starts inside the table's range.
      if (option.start !== undefined) {
        expect(spec.lowOpen ? option.start > spec.low : option.start >= spec.low, `${where} ${option.key} start`).toBe(true);
        expect(spec.highOpen ? option.start < spec.high : option.start <= spec.high, `${where} ${option.key} start`).toBe(true);
      }
      if (spec.type === 'integer' || spec.type === 'number') {
        // An open end cannot be an <input>'s min or max: the form keeps a bound just inside it.
        if (spec.low > -1e300) expect(spec.lowOpen ? option.min > spec.low : option.min === spec.low, `${where} ${option.key} min ${option.min}`).toBe(true);
        if (spec.high < 1e300) expect(spec.highOpen ? option.max < spec.high : option.max === spec.high, `${where} ${option.key} max ${option.max}`).toBe(true);
        if (spec.high >= 1e300) expect(option.max, `${where} ${option.key}`).toBeUndefined();
      }
      const actual = {};
      for (const key of Object.keys(expected)) actual[key] = option[key];
      if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ where, key: option.key, form: actual, table: expected });
    }
    expect(mismatches).toEqual([]);
    // The example the issue found: HNSW's M is 2..1000 in the table, not 2..256.
    const hnswM = indexTypes.hnsw.options.find((option) => option.key === 'M');
    expect([hnswM.min, hnswM.max, hnswM.default]).toEqual([2, 1000, 16]);
  });
});
