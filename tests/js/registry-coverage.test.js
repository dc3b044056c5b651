// Issue 52, point 2: a new index type or linear policy is picked up by every generic suite from the
// registry, with no list to extend by hand. Here: the suites that can be asked (the probe table, the
// golden cases) cover every registered type of each family; the others take each family they cover
// from the registry (registeredClasses, registeredTypes or a `kind:` row) and write no list of its
// types by hand; and registeredClasses itself fails on a type without a class or a row.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { goldenCases } from '../golden/cases.js';
import { expectBanditError, loadModule, registeredClasses, registeredTypes } from './helpers.js';
import { probedClasses } from './probe-suite.js';
import { families as probeFamilies } from './probe-table.js';

const sb = await loadModule();
const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

const kinds = ['index', 'linear-policy', 'semi-bandit-policy', 'cls-policy'];
const classesOf = (kind) => registeredClasses(sb, kind).map(([name]) => name);

// The generic suites and the families each covers type by type. The probe table and the golden
// cases are asked for their classes (below); the others are read.
const askedSuites = { 'tests/js/probe-table.js': kinds, 'tests/golden/cases.js': kinds };
const genericSuites = {
  'tests/js/filters.test.js': ['index'],
  'tests/js/persistence.test.js': kinds,
  'tests/js/hostile-states.test.js': kinds,
  'tests/js/decisions.test.js': ['linear-policy'],
  'tests/js/linear.test.js': ['linear-policy'],
  'tests/js/catalogue.test.js': ['linear-policy'],
  'tests/js/option-tables.test.js': ['index', 'linear-policy'],
  'tests/js/slates.test.js': ['linear-policy'],
  'tests/js/forgetting.test.js': ['linear-policy'],
  'tests/js/call-sequences.test.js': kinds,
  'tests/js/reliability.test.js': kinds,
  'tests/js/bounded-memory.test.js': kinds,
  'tests/js/attributes.test.js': ['index', 'linear-policy'],
  'tests/js/set-features.test.js': ['index', 'linear-policy'],
  'tests/js/search-batch.test.js': ['index'],
  'tests/js/inspect-state.test.js': ['linear-policy'],
  'tests/js/types.test.js': kinds,
};

// `source` without the places that may name types: comments, registeredClasses(...) calls and perType maps.
function withoutRegistryRows(source) {
  let out = source.replace(/(?<![:'"])\/\/.*$/gm, '');
  for (const opening of [/registeredClasses\(/g, /perType(?::| =) \{/g]) {
    let match;
    while ((match = opening.exec(out)) !== null) {
      let depth = 1;
      let end = match.index + match[0].length;
      for (; end < out.length && depth > 0; end++) {
        if ('({['.includes(out[end])) depth += 1;
        if (')}]'.includes(out[end])) depth -= 1;
      }
      out = out.slice(0, match.index) + out.slice(end);
      opening.lastIndex = match.index;
    }
  }
  return out;
}

// The array literals of `source` ([...], nested ones included) that name three or more types of
// `kind`, by class name or type string (not as a `type:` option): lists of the family written by hand.
function handLists(source, kind) {
  const names = registeredClasses(sb, kind).map(([name]) => [name, sb[name].type]);
  const text = withoutRegistryRows(source);
  const found = [];
  const open = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '[') open.push(i);
    if (text[i] !== ']' || open.length === 0) continue;
    const start = open.pop();
    const list = text.slice(start, i + 1);
    // A type string as an option's value (`type: 'lin-ucb'`) configures an object; it lists nothing.
    const named = names.filter(([name, type]) => new RegExp(`\\b${name}\\b|(?<!type: )'${type}'`).test(list));
    // Only the innermost list that names them counts (its enclosing lists name them too).
    if (named.length >= 3 && !found.some((inner) => inner.start > start)) found.push({ start, list: list.slice(0, 120) });
  }
  return found.map(({ list }) => list);
}

describe('registeredClasses', () => {
  test('gives every registered type with its row or {}, and refuses a row of no registered type', () => {
    const rows = registeredClasses(sb, 'index', { hnsw: { M: 4 } });
    expect(rows.map(([name]) => sb[name].type)).toEqual(registeredTypes(sb, 'index'));
    expect(rows.find(([name]) => name === 'HnswIndex')[1]).toEqual({ M: 4 });
    expect(rows.find(([name]) => name === 'ExactIndex')[1]).toEqual({});
    expect(() => registeredClasses(sb, 'index', { hnws: {} })).toThrow(/index: 'hnws' is not a registered type/);
    expect(() => registeredClasses(sb, 'linear-policy', { hnsw: {} })).toThrow(/not a registered type/);
    expect(() => registeredTypes(sb, 'no-such-kind')).toThrow(/no registered type of kind/);
  });

  test('with rowRequired, a registered type without a row fails naming it', () => {
    const all = Object.fromEntries(registeredTypes(sb, 'index').map((type) => [type, [type]]));
    expect(registeredClasses(sb, 'index', all, { rowRequired: true }).length).toBe(registeredTypes(sb, 'index').length);
    const { lsh, ...withoutLsh } = all;
    expect(lsh).toEqual(['lsh']);
    expect(() => registeredClasses(sb, 'index', withoutLsh, { rowRequired: true })).toThrow(/index type 'lsh' \(LshIndex\) has no row/);
    expect(registeredClasses(sb, 'index', withoutLsh, { missingRow: 'none' }).find(([name]) => name === 'LshIndex')[1]).toBe('none');
  });

  test('fails on a registered type that has no class in the package', () => {
    const withoutLinTS = Object.fromEntries(Object.entries(sb).filter(([name]) => name !== 'LinTS'));
    expect(() => registeredClasses(withoutLinTS, 'linear-policy')).toThrow(/linear-policy type 'lin-ts' has no class in the package/);
  });
});

describe.each(kinds)('every registered %s type', (kind) => {
  test('is probed (probe-table.js, a family of that kind)', () => {
    const probed = Object.values(probeFamilies).flatMap((family) => probedClasses(sb, family).map(([name]) => name));
    for (const name of classesOf(kind)) expect(probed, name).toContain(name);
  });

  test('has a golden case (tests/golden/cases.js) and its golden state of the current format', () => {
    const cases = goldenCases(sb);
    const probe = new sb.ExactIndex({ dim: 1 });
    const bytes = probe.toBytes();
    probe.dispose();
    const format = bytes[4] | (bytes[5] << 8);
    const transcripts = JSON.parse(read(`tests/golden/format-${format}/transcripts.json`)).transcripts;
    for (const name of classesOf(kind)) {
      expect(Object.keys(cases), name).toContain(name);
      expect(Object.keys(transcripts), `tests/golden/format-${format}/${name}.sbst: node tests/golden/write.mjs --missing`).toContain(name);
    }
  });
});

describe.each(Object.entries({ ...askedSuites, ...genericSuites }))('%s', (file, covered) => {
  const source = read(file);

  test.each(file in askedSuites ? [] : covered)('takes the %s types from the registry', (kind) => {
    // A call with the kind, or a loop over kinds (the kind named in the file and registeredClasses
    // called with a variable), or a probe family's `kind:`.
    const fromRegistry = new RegExp(`registered(Classes|Types)\\([^,]+, '${kind}'|kind: '${kind}'`).test(source)
      || (/registered(Classes|Types)\([^,()]+, [a-z]\w*[,)]/.test(source) && source.includes(`'${kind}'`));
    expect(fromRegistry, `${file} does not read the ${kind} family from the registry`).toBe(true);
  });

  test.each(covered)('names no list of %s types by hand', (kind) => {
    expect(handLists(source, kind), file).toEqual([]);
  });
});

test('the hand-list check finds a hand-written list', () => {
  expect(handLists("const types = [['ExactIndex', {}], ['HnswIndex', { M: 4 }], ['LshIndex', {}]];", 'index')).toHaveLength(1);
  expect(handLists("for (const type of ['lin-ucb', 'lin-ts', 'sub-ts']) {}", 'linear-policy')).toHaveLength(1);
  expect(handLists("const rows = registeredClasses(sb, 'index', { hnsw: { M: 4 }, lsh: [{}], 'pca-tree': [1] });", 'index')).toEqual([]);
  expectBanditError(sb, () => sb.optionTable('index', 'no-such-type'), 'INVALID_ARGUMENT');
});
