// Defaults, ranges and choices written outside the C++ option tables (sb.optionTable) must agree
// with them: the .d.ts JSDoc ("Default 16", "(>= 2, default 16)", "in (0, 1)", "1..64"; a computed
// or object default in words, "Default { type: 'hnsw', ... }", must be the table's words), the option
// lists of the C++ headers ("//   shortlist  (30)  ...", "//   lambda   1   ..."), and the demo's
// custom form (web/demo/custom-options.js, which takes its values from the tables once the module
// is loaded: applyOptionTables). A comment that does not repeat a default cites the table instead
// (cpp/src/<layer>/<layer>_option_tables.cpp). tests/js/option-tables.test.js checks the option names.
import { readdirSync, readFileSync } from 'node:fs';
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

  // A default stated in words for an option whose table default is words too (a computed default,
  // an object's): "Default <words>." must give the table's words, quotes and spacing aside.
  const normalised = (text) => text.replaceAll('"', "'").replaceAll('`', '').replace(/\s+/g, '');
  // Whether one text starts with the other, up to a word's end: "min(d,32)(auser's...)" starts with
  // "min(d,32)", "1/horizon" does not start with "1/(horizon+1)" nor "0.65" with "0.6".
  function samePrefix(a, b) {
    const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
    return longer.startsWith(shorter) && !/[\w.]/.test(longer.charAt(shorter.length) || ' ');
  }

  // "Default: the option table's, ..." cites the table: nothing is stated.
  function statedWords(doc) {
    const match = doc.match(/\b[Dd]efault:? (\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|[^.;]+?(?=\.(?:\s|$)|;|$))/);
    if (!match || match[1].startsWith("the option table's")) return undefined;
    // "(default min(d, 256))": the parenthesis that closes the statement is not the default's.
    let words = match[1];
    const depth = (text) => [...text].reduce((open, c) => open + (c === '(' ? 1 : c === ')' ? -1 : 0), 0);
    while (words.endsWith(')') && depth(words) < 0) words = words.slice(0, -1);
    return words;
  }

  test('the words reader reads the forms the .d.ts files use', () => {
    expect(statedWords("Default { type: 'hnsw', M: 8 (16 above 32 dimensions), efConstruction: 16 }: Sub-TS's")).toBe("{ type: 'hnsw', M: 8 (16 above 32 dimensions), efConstruction: 16 }");
    expect(statedWords('MIPS accuracy. Default 1/horizon (practical radius), 1/sqrt(horizon) (theoretical).')).toBe('1/horizon (practical radius), 1/sqrt(horizon) (theoretical)');
    expect(statedWords('The subspace model\'s dimension.')).toBeUndefined();
    expect(statedWords('the model\'s dimension, in [1, 4096] (default min(d, 256)). Over a catalogue: its')).toBe('min(d, 256)');
    expect(statedWords("MIPS accuracy. Default: the option table's, from the horizon (`sb.optionTable('linear-policy', 'sub-elim')`).")).toBeUndefined();
  });

  test.each(families)('$file: every computed or object default its JSDoc states in words is the table\'s', ({ file, kind }) => {
    const text = read(file);
    const interfaces = interfacesOf(text);
    const mismatches = [];
    for (const [name, optionsInterface] of constructorOptionsOf(text)) {
      const table = sb.optionTable(kind, sb[name].type);
      for (const [key, doc] of docsOf(interfaces, optionsInterface)) {
        const option = table.find((entry) => entry.name === key);
        if (!option || typeof option.default !== 'string' || option.type === 'string' || option.default === 'required') continue;
        const words = statedWords(doc);
        if (words === undefined) continue;
        // The doc gives the table's words, and may go on to say why ("'auto': a change detector
        // ..."), or only their start ("none" for "none: theta^ starts at 0"); worded otherwise it
        // repeats the default in its own words, which drift: it must cite the table instead.
        if (samePrefix(normalised(words), normalised(option.default))) continue;
        mismatches.push({ class: name, key, stated: words, table: option.default });
      }
    }
    expect(mismatches).toEqual([]);
  });

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

// The option lists of the C++ headers: a line "//   name  (value)  ..." or "//   name  value  ...",
// or in running text "name (value)" and "name (..., default value)", in a header of
// cpp/include/sublinear/<layer>/ states the default of an option of that layer's tables;
// it must be the table's default for that name in at least one of them (a name several classes share
// may default differently, e.g. subspaceEnergy). Values in words ("(none)", "min(d, 256)") are not
// read; a header that does not state a value cites the table.
describe('defaults the C++ headers state', () => {
  const layerTables = {
    core: [['nested', 'policy.forgetting']],
    mips: [['index']],
    linear: [['linear-policy'], ['catalogue'], ['nested', 'policy.prior']],
    matroid: [['semi-bandit-policy'], ['environment', 'matroid'], ['nested', 'matroid.matroid']],
    cls: [['cls-policy'], ['environment', 'clustered'], ['environment', 'promotion']],
    env: [['environment', 'linear'], ['environment', 'ratings'], ['nested', 'linear.change'], ['nested', 'linear.drift'], ['nested', 'ratings.change']],
    sim: [['simulation'], ['environment', 'mab-bp'], ['environment', 'mips']],
    eval: [['evaluation']],
  };
  const value = String.raw`"[\w-]+"|'[\w-]+'|-?\d+(?:\.\d+)?(?:e-?\d+)?|true|false`;
  const statement = new RegExp(String.raw`^//\s+(\w+)\s+(?:\((${value})\)(?=\s|$)|(${value})(?=\s{2,}|$))`);
  // Not across a ';' ("a, b (bounded only; default 0, 1)") nor into a number's thousands ("1,400").
  const inline = new RegExp(String.raw`\b(\w+) \((?:[^();]*\bdefault (${value})(?=[,):](?!\d))|(${value})\))`, 'g');

  // [{ file, line, name, stated }] for every header line of that form.
  function headerStatements(layer) {
    const folder = new URL(`cpp/include/sublinear/${layer}/`, root);
    const statements = [];
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.hpp'))) {
      read(`cpp/include/sublinear/${layer}/${file}`).split('\n').forEach((text, index) => {
        if (!text.trimStart().startsWith('//')) return;
        const listed = text.match(statement);
        for (const match of listed ? [listed] : text.matchAll(inline)) {
          const raw = match[2] ?? match[3];
          const stated = /^["']/.test(raw) ? raw.slice(1, -1) : raw === 'true' ? true : raw === 'false' ? false : Number(raw);
          statements.push({ file: `${layer}/${file}`, line: index + 1, name: match[1], stated });
        }
      });
    }
    return statements;
  }

  const tablesOf = (layer) => sb.optionTable()
    .filter(({ kind, type }) => layerTables[layer].some(([k, t]) => k === kind && (t === undefined || t === type)))
    .map(({ kind, type }) => sb.optionTable(kind, type));

  test('the reader reads the forms the headers use', () => {
    expect('//   shortlist (30)   p, the candidates'.match(statement).slice(1, 4)).toEqual(['shortlist', '30', undefined]);
    expect('//   radius   "practical"  how the confidence radius is set'.match(statement).slice(1, 4)).toEqual(['radius', undefined, '"practical"']);
    expect('//   delta    0.05    failure probability'.match(statement)[3]).toBe('0.05');
    expect('//   noise   (none)  R, sub-Gaussian scale'.match(statement)).toBeNull();
    expect('//   modelDim (min(d, 32)), subspaceEnergy (0.6)  the arms'.match(statement)).toBeNull();
    expect('// The paper uses 2 copies'.match(statement)).toBeNull();
    const inlined = (text) => [...text.matchAll(inline)].map((match) => [match[1], match[2] ?? match[3]]);
    expect(inlined('// Options: lambda (> 0, default 1), alpha (>= 0, default 1).')).toEqual([['lambda', '1'], ['alpha', '1']]);
    expect(inlined('// Options: dim (16), iterations (10), lambda (0.1, ALS-WR), testUsers (300)')).toEqual([['dim', '16'], ['iterations', '10'], ['testUsers', '300']]);
    expect(inlined('// a, b (bounded only; default 0, 1); users (default 1,400..2,800)')).toEqual([]);
  });

  test.each(Object.keys(layerTables))('cpp/include/sublinear/%s: every default a header states is the table\'s', (layer) => {
    const tables = tablesOf(layer);
    expect(tables.length, layer).toBeGreaterThan(0);
    const mismatches = [];
    for (const { file, line, name, stated } of headerStatements(layer)) {
      const options = tables.flatMap((table) => table.filter((option) => option.name === name));
      if (options.length === 0) continue;  // not an option of this layer (a parameter, a field)
      // An object's default in words is quoted in the table ("'auto'"), unquoted in a header.
      if (!options.some((option) => option.default === stated || option.default === `'${stated}'`)) {
        mismatches.push({ where: `${file}:${line}`, name, stated, table: [...new Set(options.map((option) => option.default))] });
      }
    }
    expect(mismatches).toEqual([]);
  });

  test('a drifted statement fails: the reader finds what the headers said before they cited the tables', () => {
    // policy_factory.hpp said subspaceEnergy 0.7 (the tables: 0.6 for Thompson sampling, 0.8 for the
    // optimistic policies); thompson_sampling.hpp gave Sub-TS's graph without "16 above 32 dimensions".
    const tables = tablesOf('linear');
    const options = tables.flatMap((table) => table.filter((option) => option.name === 'subspaceEnergy'));
    const match = '//   subspaceEnergy           0.7     the fewest principal directions'.match(statement);
    expect(options.some((option) => option.default === Number(match[3]))).toBe(false);
    expect(new Set(options.map((option) => option.default))).toEqual(new Set([0.6, 0.8]));
  });
});
