// Issue 52, point 2: a new index type or linear policy is picked up by every generic suite from the
// registry, with no list to extend by hand. The generic suites (generic-suites.js) run twice in
// `npm test`: against the package, and against the test build with the toys (SB_TOYS=1,
// vitest.toys.config.js), where the toy index and the toy policy are registered types like the
// others, this file included. Here: the suites that can be asked (the probe table, the golden
// cases) cover every registered type of each family; the others take each family they cover
// from the registry (registeredClasses, registeredTypes or a `kind:` row) and write no list of its
// types by hand; and registeredClasses itself fails on a type without a class or a row.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { goldenCases } from '../golden/cases.js';
import { expectBanditError, goldenFolder, loadModule, registeredClasses, registeredTypes, toyBuild, toyClasses } from './helpers.js';
import { askedSuites, genericSuites, kinds } from './generic-suites.js';
import { probedClasses } from './probe-suite.js';
import { families as probeFamilies } from './probe-table.js';

const sb = await loadModule();
const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

const classesOf = (kind) => registeredClasses(sb, kind).map(([name]) => name);

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

// The class of every registered type, family by family, as users' code names them. The names come from the C++ registry entries (className), and web/src makes the classes from
// them: a class or a type renamed there fails here. The toy build adds the toys (helpers.js).
const builtInClasses = {
  index: { ExactIndex: 'exact', HnswIndex: 'hnsw', LshIndex: 'lsh', AdaptiveIndex: 'adaptive', BoundedMEIndex: 'bounded-me', GreedyMipsIndex: 'greedy', PcaTreeIndex: 'pca-tree' },
  'linear-policy': { LinUCB: 'lin-ucb', LinTS: 'lin-ts', LinearElim: 'linear-elim', SubElim: 'sub-elim', SubTS: 'sub-ts' },
  'semi-bandit-policy': { CUCB: 'cucb', FasterCUCB: 'faster-cucb', CTS: 'cts' },
  'cls-policy': { C2UCB: 'c2ucb', PC2UCB: 'pc2ucb', CombTS: 'comb-ts', CombLinUCB: 'comb-lin-ucb', CombLinTS: 'comb-lin-ts', GreedyCLS: 'greedy-cls' },
};

test.each(kinds)('the %s classes are the registry\'s, named as written here', (kind) => {
  const toys = toyBuild ? Object.entries(toyClasses).filter(([, toy]) => toy.kind === kind).map(([name, toy]) => [name, toy.type]) : [];
  const expected = Object.fromEntries([...Object.entries(builtInClasses[kind]), ...toys]);
  expect(Object.fromEntries(registeredClasses(sb, kind).map(([name]) => [name, sb[name].type]))).toEqual(expected);
  for (const name of Object.keys(expected)) expect(sb[name].name).toBe(name);
});

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
    // The package's golden states, and in the toy run the toys' (their own folder).
    const transcriptsOf = (toys) => {
      const file = new URL('transcripts.json', goldenFolder(format, { toys }));
      return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).transcripts : {};
    };
    for (const name of classesOf(kind)) {
      const toy = Object.hasOwn(toyClasses, name);
      const where = `tests/golden/${toy ? 'toys/' : ''}format-${format}/${name}.sbst: ${toy ? 'SB_TOYS=1 ' : ''}node tests/golden/write.mjs --missing`;
      expect(Object.keys(cases), name).toContain(name);
      expect(Object.keys(transcriptsOf(toy)), where).toContain(name);
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
