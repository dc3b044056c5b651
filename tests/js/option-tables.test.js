// The C++ option tables (sb.optionTable, cpp/src/<layer>/<layer>_option_tables.cpp) against what users read:
// the hand-written .d.ts files and docs/mips.md's option lists must name exactly the options each
// class's constructor accepts. The .d.ts files are parsed textually: `export interface X extends Y {`
// blocks, their two-space-indented `name?:` members, and `declare class C extends ...` with either
// `constructor(options: X)` or a generic base `Base<X>`.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { constructorOptionsOf, families, interfacesOf, keysOf, toyFamilies } from './declarations.js';
import { expectBanditError, loadModule, registeredClasses, registeredTypes, toyBuild } from './helpers.js';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

const sb = await loadModule();

const documented = (table) => table.filter((option) => !option.internal).map((option) => option.name).sort();

describe('option tables', () => {
  test('every table is reachable and describes its options', () => {
    const list = sb.optionTable();
    expect(list.length).toBeGreaterThanOrEqual(22);
    for (const { kind, type } of list) {
      const table = sb.optionTable(kind, type);
      expect(table.length, `${kind} ${type}`).toBeGreaterThan(0);
      for (const option of table) {
        expect(typeof option.name).toBe('string');
        expect(typeof option.doc).toBe('string');
        expect(option).toHaveProperty('default');
      }
    }
    const hnsw = Object.fromEntries(sb.optionTable('index', 'hnsw').map((option) => [option.name, option]));
    expect(hnsw.efSearch).toMatchObject({ type: 'integer', default: '64 below 256 dimensions, 144 from 256', low: 1 });
    expect(hnsw.space.choices).toEqual(['auto', 'inner-product', 'euclidean']);
    const subTs = sb.optionTable('linear-policy', 'sub-ts').map((option) => option.name);
    expect(subTs).toEqual(expect.arrayContaining(['radius', 'auditBudget', 'targetMissRate', 'maxShortlist']));
    const subElim = sb.optionTable('linear-policy', 'sub-elim').map((option) => option.name);
    expect(subElim).toEqual(expect.arrayContaining(['eta', 'shortlist', 'auditBudget', 'targetMissRate', 'maxShortlist']));
    expect(() => sb.optionTable('index', 'hnws')).toThrow(sb.BanditError);
    expect(() => sb.optionTable('index')).toThrow(sb.BanditError);
    expect(() => sb.optionTable(3, 'hnsw')).toThrow(sb.BanditError);
  });

  // The toy run holds the toys' declarations too (tests/toys/toys.d.ts).
  const declared = [...families, ...(toyBuild ? toyFamilies : [])];

  test.each(declared)('$file lists exactly the options of each class\'s table ($kind)', ({ file, kind, jsOnly = [], classes, imports = [] }) => {
    const text = read(file);
    const interfaces = interfacesOf([text, ...imports.map(read)].join('\n'));
    for (const [name, optionsInterface] of constructorOptionsOf(text)) {
      if (classes && !classes.includes(name)) continue;
      const declaredKeys = [...new Set(keysOf(interfaces, optionsInterface))].filter((key) => !jsOnly.includes(key)).sort();
      expect(declaredKeys, `${name} (${optionsInterface}) in ${file}`).toEqual(documented(sb.optionTable(kind, sb[name].type)));
    }
  });

  test.each([...new Set(declared.map(({ kind }) => kind))])('the declarations give every registered %s type a class', (kind) => {
    const covered = declared.filter((family) => family.kind === kind).flatMap(({ file, classes }) => [...constructorOptionsOf(read(file)).keys()]
      .filter((name) => !classes || classes.includes(name)).map((name) => sb[name].type));
    expect(covered.sort()).toEqual([...registeredTypes(sb, kind)].sort());
  });

  // The types a union of a .d.ts names, in order.
  const unionOf = (file, name) => [...read(file).match(new RegExp(`^export type ${name} = ([^;]*);`, 'm'))[1].matchAll(/'([^']+)'/g)].map((match) => match[1]);

  test('mips.d.ts\'s IndexType union (and in the toy run the toys\' ToyIndexType) names exactly the registered index types', () => {
    const types = [...unionOf('web/src/mips.d.ts', 'IndexType'), ...(toyBuild ? unionOf('tests/toys/toys.d.ts', 'ToyIndexType') : [])];
    expect(types).toEqual(registeredTypes(sb, 'index'));
    expect(read('web/src/linear.d.ts')).toContain('type: IndexType | (string & {});');
  });

  test('linear.d.ts\'s LinearPolicyType union (and the toys\' ToyLinearPolicyType) names exactly the registered linear policies, and simulate() takes it', () => {
    const types = [...unionOf('web/src/linear.d.ts', 'LinearPolicyType'), ...(toyBuild ? unionOf('tests/toys/toys.d.ts', 'ToyLinearPolicyType') : [])];
    expect(types).toEqual(registeredTypes(sb, 'linear-policy'));
    expect(read('web/src/simulate.d.ts')).toContain('type: LinearPolicyType | (string & {});');
  });

  test('simulate.d.ts lists exactly simulate()\'s own options', () => {
    const interfaces = interfacesOf(read('web/src/simulate.d.ts'));
    const declared = new Set([...keysOf(interfaces, 'SingleSeedConfig'), ...keysOf(interfaces, 'ManySeedsConfig')]);
    expect([...declared].sort()).toEqual(documented(sb.optionTable('simulation', 'simulate')));
  });

  test('evaluate.d.ts lists exactly evaluate()\'s options', () => {
    const declared = keysOf(interfacesOf(read('web/src/evaluate.d.ts')), 'EvaluateOptions');
    expect([...new Set(declared)].sort()).toEqual(documented(sb.optionTable('evaluation', 'evaluate')));
  });

  test('simulate.d.ts lists exactly the options of each environment it declares', () => {
    const interfaces = interfacesOf(read('web/src/simulate.d.ts'));
    const declared = { linear: 'LinearEnvironmentConfig', ratings: 'RatingsEnvironmentConfig', 'mab-bp': 'MabBpEnvironmentConfig', mips: 'MipsEnvironmentConfig' };
    for (const [type, name] of Object.entries(declared)) {
      const keys = [...new Set(keysOf(interfaces, name))].filter((key) => key !== 'type').sort();
      expect(keys, name).toEqual(documented(sb.optionTable('environment', type)));
    }
    expect(sb.optionTable().filter((entry) => entry.kind === 'environment').length).toBe(7);
  });

  test('simulate.d.ts lists exactly the keys of each environment\'s nested `change`', () => {
    const text = read('web/src/simulate.d.ts');
    for (const [type, name] of [['linear', 'LinearEnvironmentConfig'], ['ratings', 'RatingsEnvironmentConfig']]) {
      const body = text.match(new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm'))[1];
      const change = body.match(/^ {2}change\?: \{([^}]*)\}/m)[1];
      const keys = [...change.matchAll(/(\w+)\??:/g)].map((match) => match[1]).sort();
      expect(keys, `${name}.change`).toEqual(documented(sb.optionTable('nested', `${type}.change`)));
    }
  });

  // The guides' lists of index classes with their options: docs/mips.md's, and in the toy run the
  // toys' guide (tests/toys/README.md, file 5 of the recipe), in the same form.
  const guides = ['docs/mips.md', ...(toyBuild ? ['tests/toys/README.md'] : [])];

  test('the guides\' index option lists match the tables, and name every registered index type once', () => {
    const common = ['dim', 'seed'];
    const classes = [];
    for (const guide of guides) {
      const text = read(guide);
      // The paragraph that ends "... share the interface above."
      const end = text.indexOf('share the interface above');
      expect(end, guide).toBeGreaterThan(0);
      const paragraph = text.slice(text.lastIndexOf('\n\n', end) + 2, end);
      for (const [, name, list] of paragraph.matchAll(/`(\w+Index)`(?: \(((?:[^()`]|`[^`]*`)*)\))?/g)) {
        classes.push(name);
        const listed = [...(list ?? '').matchAll(/`([A-Za-z]\w*)/g)].map((match) => match[1]).sort();
        const table = documented(sb.optionTable('index', sb[name].type)).filter((option) => !common.includes(option));
        expect(listed, `${guide}, ${name}`).toEqual(table);
      }
    }
    expect(classes.sort()).toEqual(registeredClasses(sb, 'index').map(([name]) => name).sort());
  });

  test('the .d.ts files give the linear policies\' and the catalogue\'s dimension range of the tables (up to 4,096)', () => {
    const ranges = [['web/src/linear.d.ts', 'linear-policy', 'lin-ts'], ['web/src/catalogue.d.ts', 'catalogue', 'catalogue']];
    for (const [file, kind, type] of ranges) {
      const dim = sb.optionTable(kind, type).find((option) => option.name === 'dim');
      expect(dim.high, `${kind} ${type}`).toBe(4096);
      expect(read(file), file).toContain(`d${kind === 'catalogue' ? ' of the arms' : ''}, in [${dim.low}, ${dim.high}]`);
    }
    for (const type of registeredTypes(sb, 'linear-policy')) {
      expect(sb.optionTable('linear-policy', type).find((option) => option.name === 'dim').high, type).toBe(4096);
    }
  });

  test('a misspelt option names the nearest valid one, in every family', () => {
    const message = (action) => {
      try {
        action();
      } catch (error) {
        expect(error).toBeInstanceOf(sb.BanditError);
        expect(error.code).toBe('INVALID_ARGUMENT');
        return error.message;
      }
      return 'no error';
    };
    expect(message(() => new sb.HnswIndex({ dim: 3, efSerch: 10 }))).toBe("unknown option 'efSerch' for hnsw (did you mean 'efSearch'?)");
    expect(message(() => new sb.SubTS({ dim: 3, auditBudjet: 0.1 }))).toMatch(/did you mean 'auditBudget'/);
    const matroid = sb.Matroid.uniform(4, 2);
    expect(message(() => new sb.FasterCUCB({ matroid, epsilom: 0.1 }))).toMatch(/did you mean 'epsilon'/);
    matroid.dispose();
    expect(message(() => new sb.PC2UCB({ dim: 3, alhpa: 1 }))).toMatch(/did you mean 'alpha'/);
    expect(message(() => sb.simulate({ environment: { type: 'linear' }, policy: { type: 'lin-ucb' }, horizon: 5, recordEvry: 1 })))
      .toMatch(/did you mean 'recordEvery'/);
    expect(message(() => sb.simulate({ environment: { type: 'linear', dim: 2, arms: 3 }, policy: { type: 'lin-ucb', lamda: 1 }, horizon: 5 })))
      .toMatch(/did you mean 'lambda'/);
    expect(message(() => sb.simulate({ environment: { type: 'linear', dim: 2, arm: 3 }, policy: { type: 'lin-ucb' }, horizon: 5 })))
      .toBe("unknown option 'arm' for linear (did you mean 'arms'?)");
    expect(message(() => sb.simulate({ environment: { type: 'matroid', arms: 20 }, policy: { type: 'cucb' }, horizon: 5 })))
      .toMatch(/unknown option 'arms' for matroid/);
    // ExactIndex accepts the seed every index accepts, and validates it.
    expect(message(() => new sb.ExactIndex({ dim: 3, seed: -1 }))).not.toBe('no error');
    new sb.ExactIndex({ dim: 3, seed: 4 }).dispose();
  });

  // 0.1's `journal` option went with the journals (0.2.0 saves snapshots): code written for 0.1 is
  // told the option is unknown instead of having it silently ignored.
  test('journal is an unknown option in every family', () => {
    const unknown = (action) => {
      const error = expectBanditError(sb, action, 'INVALID_ARGUMENT');
      expect(error.message).toMatch(/^unknown option '(?:\w+\.)*journal' for /);
    };
    unknown(() => new sb.HnswIndex({ dim: 3, journal: false }));
    unknown(() => new sb.ExactIndex({ dim: 3, journal: true }));
    unknown(() => new sb.SubTS({ dim: 3, journal: false }));
    unknown(() => new sb.SubTS({ dim: 3, index: { type: 'hnsw', journal: false } }));
    const matroid = sb.Matroid.uniform(4, 2);
    unknown(() => new sb.FasterCUCB({ matroid, journal: false }));
    matroid.dispose();
    unknown(() => new sb.C2UCB({ dim: 3, journal: false }));
  });
});

// Nested option objects are checked like the options around them: the key is named with its path,
// with the nearest valid one, and nothing is built or run.
describe('nested options', () => {
  const message = (action) => expectBanditError(sb, action, 'INVALID_ARGUMENT').message;
  const linear = (change) => ({ environment: { type: 'linear', dim: 2, arms: 5, change }, policy: { type: 'lin-ucb' }, horizon: 4, seed: 3 });
  const matroid = (spec) => ({ environment: { type: 'matroid', K: 12, matroid: spec }, policy: { type: 'cucb' }, horizon: 4, seed: 3 });

  test('an environment\'s change and matroid', () => {
    expect(message(() => sb.simulate(linear({ evrey: 2 })))).toBe("unknown option 'change.evrey' for linear (did you mean 'change.every'?)");
    expect(message(() => sb.simulate(matroid({ kind: 'uniform', rnak: 3 })))).toBe("unknown option 'matroid.rnak' for matroid (did you mean 'matroid.rank'?)");
    expect(message(() => sb.simulate(matroid({ kind: 'transversal', rigth: 3 })))).toMatch(/^unknown option 'matroid.rigth' for matroid \(did you mean 'matroid.right'\?\)/);
    // Refused before anything ran: the same configurations, corrected, give the runs of a fresh module.
    const first = sb.simulate(linear({ every: 2, add: 1 }));
    expect(Array.from(sb.simulate(linear({ every: 2, add: 1 })).cumulativeRegret)).toEqual(Array.from(first.cumulativeRegret));
    expect(sb.simulate(matroid({ kind: 'uniform', rank: 3 })).cumulativeRegret.length).toBeGreaterThan(0);
  });

  test('index specs of policies and indexes, at any depth', () => {
    expect(message(() => new sb.SubTS({ dim: 3, index: { efSerch: 4 } }))).toBe("unknown option 'index.efSerch' for sub-ts (did you mean 'index.efSearch'?)");
    expect(message(() => new sb.LinTS({ dim: 3, index: { M: 4 } }))).toMatch(/^unknown option 'index.M' for lin-ts/);
    expect(message(() => new sb.AdaptiveIndex({ dim: 3, base: { type: 'lsh', bitz: 4 } }))).toBe("unknown option 'base.bitz' for adaptive (did you mean 'base.bits'?)");
    expect(message(() => new sb.SubElim({ dim: 3, index: { type: 'adaptive', base: { efSerch: 4 } } })))
      .toBe("unknown option 'index.base.efSerch' for sub-elim (did you mean 'index.base.efSearch'?)");
    expect(message(() => new sb.C2UCB({ dim: 3, index: { type: 'exact', shortlsit: 8 } }))).toBe("unknown option 'index.shortlsit' for c2ucb (did you mean 'index.shortlist'?)");
    expect(message(() => sb.simulate({ environment: { type: 'clustered', dim: 3, arms: 20, k: 2 }, policy: { type: 'c2ucb', index: { certfy: true } }, horizon: 2 })))
      .toMatch(/^unknown option 'index.certfy' for c2ucb \(did you mean 'index.certify'\?\)/);
    const policy = new sb.C2UCB({ dim: 3, index: { type: 'exact', shortlist: 8, certify: false, delta: 0.01 } });
    policy.dispose();
  });
});

describe('bindings', () => {
  test('every embind registration goes through guard<> (no exception or abort reaches JavaScript)', () => {
    for (const file of readdirSync(new URL('cpp/bindings/', root)).filter((name) => name.endsWith('.cpp'))) {
      const text = read(`cpp/bindings/${file}`);
      for (const [registration] of text.matchAll(/(?:\.function|emscripten::function)\("\w+", [^\n]*/g)) {
        expect(registration, file).toMatch(/^(?:\.function|emscripten::function)\("\w+", guard</);
      }
    }
  });
});

