// The documentation site (issue 55): `npm run build:docs` renders every guide of docs/ and the README
// and builds the API reference from dist/*.d.ts with TypeDoc. Built here into a scratch folder: every
// guide has its page, every relative link and #fragment between the pages resolves, every public
// export of dist/index.d.ts (and of the worker entry) has its place in the reference, the
// README's quick starts run as written against the built package, and every code block of the
// guides type-checks against the package's declarations and runs against the built package (but
// four that need a browser or write files, listed with their reasons).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadModule, registeredClasses, seededRandom } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let site;

// import ... from '...' as the AsyncFunction's awaited imports: the package by its name (its own
// exports, as a user's project resolves them) and Node's modules.
const asAwaitedImports = (code) => code.replace(/^import (.+) from '([^']+)';/gm, (_, what, specifier) => {
  const named = what.trim().startsWith('{') ? what : `{ default: ${what} }`;
  return `const ${named} = await importModule('${specifier}');`;
});
const importModule = (specifier) => import(specifier.startsWith('sublinear-bandits')
  ? pathToFileURL(createRequire(join(root, 'package.json')).resolve(specifier)).href : specifier);
const htmlFiles = (folder) => readdirSync(folder, { recursive: true }).filter((file) => file.endsWith('.html')).map((file) => join(folder, file));

beforeAll(() => {
  site = mkdtempSync(join(tmpdir(), 'docs-site-'));
  execFileSync(process.execPath, [join(root, 'scripts/build-docs.mjs'), '--out', site], { cwd: root, stdio: 'pipe' });
}, 120_000);
afterAll(() => { if (site) rmSync(site, { recursive: true, force: true }); });

describe('the documentation site', () => {
  test('every guide of docs/, the README, the changelog, the examples and the API reference have a page', () => {
    const guides = readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md'));
    expect(guides.length).toBeGreaterThanOrEqual(13);
    for (const guide of guides) {
      const page = guide === 'README.md' ? 'index.html' : guide.replace(/\.md$/, '.html');
      expect(existsSync(join(site, page)), page).toBe(true);
    }
    for (const page of ['readme.html', 'changelog.html', 'examples/redis-users.html', 'examples/catalogue-workers.html', 'examples/http-service.html', 'examples/evaluate-log.html', 'examples/browser-shop.html', 'api/index.html', 'api/hierarchy.html']) {
      expect(existsSync(join(site, page)), page).toBe(true);
    }
  });

  test('every relative link and #fragment between the pages resolves', () => {
    const ids = new Map();
    const idsOf = (file) => {
      if (!ids.has(file)) ids.set(file, new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((match) => match[1])));
      return ids.get(file);
    };
    const broken = [];
    let checked = 0;
    // The guides' pages (TypeDoc's own pages link within the reference; their links are checked too).
    for (const file of htmlFiles(site)) {
      const html = readFileSync(file, 'utf8');
      for (const [, link] of html.matchAll(/\s(?:href|src)="([^"]+)"/g)) {
        if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(link)) continue;
        const [path, fragment] = link.split('#');
        let target = path ? resolve(dirname(file), decodeURI(path)) : file;
        // The nav's link up to the demo page, which the demo's build writes beside the docs.
        if (relative(site, target).startsWith('..')) {
          expect(relative(site, target)).toBe(join('..', 'index.html'));
          continue;
        }
        checked += 1;
        if (!existsSync(target)) { broken.push(`${relative(site, file)}: ${link}`); continue; }
        if (target.endsWith('.html') && fragment && file.startsWith(join(site, 'api')) === false && !idsOf(target).has(fragment)) {
          broken.push(`${relative(site, file)}: ${link} (no such id)`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });

  test('every public export of dist/index.d.ts and dist/worker.d.ts is in the API reference', () => {
    const entries = ['dist/index.d.ts', 'dist/worker.d.ts'].map((file) => join(root, file));
    const program = ts.createProgram(entries, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, types: [], skipLibCheck: true });
    const checker = program.getTypeChecker();
    const reference = join(site, 'api');
    const pages = new Set(htmlFiles(reference).map((file) => relative(reference, file)));
    const text = htmlFiles(reference).map((file) => readFileSync(file, 'utf8')).join('\n');
    const missing = [];
    let count = 0;
    for (const entry of entries) {
      const module = entry.endsWith('worker.d.ts') ? 'worker' : 'index';
      const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)));
      for (const symbol of exports) {
        const name = symbol.getName();
        count += 1;
        if (name === 'default') {
          // `export default init`: TypeDoc documents the function it names.
          if (!pages.has(`functions/${module}.init.html`)) missing.push(`${module}: default`);
          continue;
        }
        const page = ['classes', 'interfaces', 'functions', 'types', 'variables', 'enums'].some((kind) => pages.has(`${kind}/${module}.${name}.html`));
        if (!page && !text.includes(`id="${name.toLowerCase()}"`) && !text.includes(`>${name}<`)) missing.push(`${module}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThan(100);
    // Every class the module object carries, by its page.
    for (const name of ['HnswIndex', 'ExactIndex', 'LinUCB', 'LinTS', 'LinearElim', 'SubElim', 'SubTS', 'Catalogue', 'CUCB', 'C2UCB', 'BanditError']) {
      expect(pages.has(`classes/index.${name}.html`), name).toBe(true);
    }
  });
});

describe('the API reference against the runtime', () => {
  // The module object init() resolves to, read at runtime, against its declared type (SublinearBandits in
  // dist/index.d.ts) and the reference TypeDoc made of it: every member is typed and every typed one
  // exists; for each class, every method and static on its prototype chain is typed, every typed method
  // exists, and each has its place on the class's page; every option of its constructor has its place on
  // the page of the interface that declares it (option-tables.test.js holds those interfaces to the
  // options the core accepts).
  test('every member of the module, every method and static of each class, and every constructor option is typed and in the reference', async () => {
    const sb = await loadModule();
    const entry = join(root, 'dist/index.d.ts');
    const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, types: [], skipLibCheck: true });
    const checker = program.getTypeChecker();
    const declared = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry))).find((symbol) => symbol.getName() === 'SublinearBandits');
    const members = (type) => checker.getPropertiesOfType(type).filter((symbol) => !symbol.getName().startsWith('__@'));  // not [Symbol.dispose]
    const moduleMembers = members(checker.getDeclaredTypeOfSymbol(declared));
    expect(moduleMembers.map((symbol) => symbol.getName()).sort()).toEqual(Object.keys(sb).sort());

    const reference = join(site, 'api');
    const ids = (page) => (existsSync(join(reference, page)) ? new Set([...readFileSync(join(reference, page), 'utf8').matchAll(/\sid="([^"]+)"/g)].map((match) => match[1])) : new Set());
    const modulePage = ids('interfaces/index.SublinearBandits.html');
    const builtins = [Object.prototype, Function.prototype, Error.prototype, Error];
    const chain = (start) => {
      const names = new Set();
      for (let object = start; object && !builtins.includes(object); object = Object.getPrototypeOf(object)) {
        for (const name of Object.getOwnPropertyNames(object)) names.add(name);
      }
      return names;
    };
    const problems = [];
    let classes = 0;
    let options = 0;
    for (const symbol of moduleMembers) {
      const name = symbol.getName();
      if (!modulePage.has(name.toLowerCase())) problems.push(`${name}: not on the module's page`);
      const type = checker.getTypeOfSymbol(symbol);
      const [constructor] = type.getConstructSignatures();
      if (!constructor) continue;
      classes += 1;
      const statics = members(type).map((member) => member.getName()).filter((member) => member !== 'prototype');
      const instance = members(constructor.getReturnType());
      const methods = instance.filter((member) => checker.getTypeOfSymbol(member).getCallSignatures().length).map((member) => member.getName());
      const runtime = [...chain(sb[name].prototype)].filter((member) => member !== 'constructor');
      const runtimeStatics = [...chain(sb[name])].filter((member) => !['length', 'name', 'prototype'].includes(member));
      for (const member of runtime) if (!instance.some((typed) => typed.getName() === member)) problems.push(`${name}.prototype.${member}: not typed`);
      for (const member of methods) if (!runtime.includes(member)) problems.push(`${name}.prototype.${member}: typed, not at runtime`);
      for (const member of runtimeStatics) if (!statics.includes(member)) problems.push(`${name}.${member}: not typed`);
      for (const member of statics) if (!runtimeStatics.includes(member)) problems.push(`${name}.${member}: typed, not at runtime`);
      const page = ids(`classes/index.${name}.html`);
      for (const member of [...instance.map((typed) => typed.getName()), ...statics]) {
        if (!page.has(member.toLowerCase())) problems.push(`${name}.${member}: not on classes/index.${name}.html`);
      }
      // The options object of the constructor (a union of forms: each form's options).
      const [parameter] = constructor.getParameters();
      const optionsType = parameter && checker.getTypeOfSymbol(parameter);
      if (!optionsType || !(optionsType.isUnion() ? optionsType.types : [optionsType]).every((form) => form.flags & ts.TypeFlags.Object)) continue;
      for (const form of optionsType.isUnion() ? optionsType.types : [optionsType]) {
        for (const option of members(form)) {
          options += 1;
          const owner = option.declarations?.[0]?.parent;
          const interfaceName = owner && ts.isInterfaceDeclaration(owner) ? owner.name.text : null;
          if (!interfaceName || !ids(`interfaces/index.${interfaceName}.html`).has(option.getName().toLowerCase())) {
            problems.push(`${name}'s option ${option.getName()}: not on an interface's page (${interfaceName ?? 'no interface'})`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(classes).toBeGreaterThanOrEqual(24);
    expect(options).toBeGreaterThan(200);
  });
});

describe('the README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  // Every ```js block, grouped by its ## section and run as one program a section (the quick starts
  // use the `sb` the Install section makes; Install's own block imports the package by its name).
  const sections = [...readme.matchAll(/^## (.+)\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)]
    .map(([, title, body]) => [title, [...body.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1])])
    .filter(([, blocks]) => blocks.length);

  test('stays a few screens long and links the guides', () => {
    expect(readme.split('\n').length).toBeLessThan(220);
    expect(sections.map(([title]) => title)).toEqual(['Install', 'Quick start: a recommender over a catalogue', 'Quick start: a MIPS index', 'Quick start: reproducing a paper']);
    // No block outside a section, so none is left unrun.
    expect(sections.flatMap(([, blocks]) => blocks)).toHaveLength([...readme.matchAll(/```js\n/g)].length);
    for (const guide of ['recommender', 'mips', 'threads-and-hosts', 'status', 'performance']) expect(readme).toContain(`(docs/${guide}.md)`);
    expect(readme).toContain('examples/redis-users/');
  });

  test.each(sections.map(([title, blocks]) => [title, blocks.join('\n')]))('%s runs as written', async (_title, code) => {
    const sb = await loadModule();
    const AsyncFunction = (async () => {}).constructor;
    const sbName = /\bconst sb\b/.test(code) ? 'givenModule' : 'sb';
    // What the comments say a block gets ("about 7 KB", "ids [2, 1]") is what it gets.
    const found = (name) => `typeof ${name} === 'undefined' ? undefined : ${name}`;
    const body = `${asAwaitedImports(code)}\nreturn { bytes: ${found('bytes')}, ids: ${found('ids')} };`;
    const { bytes, ids } = await new AsyncFunction(sbName, 'importModule', body)(sb, importModule);
    const size = code.match(/about (\d+) KB/);
    if (size) expect(Math.abs(bytes.length / 1000 - Number(size[1])), `${bytes.length} bytes`).toBeLessThan(0.5);
    const answer = code.match(/ids \[([\d, ]+)\]/);
    if (answer) expect(Array.from(ids)).toEqual(answer[1].split(',').map(Number));
  }, 60_000);
});

describe('the guides\' code', () => {
  // The README's quick starts run (above); the guides' blocks are excerpts that use names defined
  // elsewhere (ids, features, a catalogue), so each is type-checked instead against the package's
  // declarations (dist/*.d.ts, with the DOM's and Node's): a method, an option or a class that is not
  // the package's fails, and so does a block cut mid-statement. The names a block does not define are
  // declared `any` (the first pass's "Cannot find name" errors); `sb` is the package's module object.
  const blocks = readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')).flatMap((file) =>
    [...readFileSync(join(root, 'docs', file), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((match, i) => [`${file} #${i + 1}`, match[1]]));
  const options = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: ['node'], typeRoots: [join(root, 'node_modules/@types')],
    strict: false, noEmit: true, allowJs: true, checkJs: true, skipLibCheck: true,
    paths: { 'sublinear-bandits': [join(root, 'dist/index.d.ts')], 'sublinear-bandits/worker': [join(root, 'dist/worker.d.ts')] },
  };
  const file = join(root, 'docs/__block__.ts');
  function diagnosticsOf(code) {
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (name) => (name === file ? code : readFile(name));
    host.fileExists = ((exists) => (name) => name === file || exists(name))(host.fileExists.bind(host));
    host.getSourceFile = (name, version) => (name === file ? ts.createSourceFile(name, code, version) : getSourceFile(name, version));
    const program = ts.createProgram([file], options, host);
    return [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()].filter((d) => d.file?.fileName === file);
  }
  function check(code) {
    const defines = (name) => new RegExp(`\\b(const|let|var|function|import)\\b[^;=]*\\b${name}\\b`).test(code);
    const prelude = [
      "type SublinearBandits = Awaited<ReturnType<typeof import('sublinear-bandits').default>>;",
      defines('sb') ? '' : 'declare const sb: SublinearBandits;',
    ];
    const source = (free) => [...prelude, ...[...free].map((name) => `declare const ${name}: any;`), code, 'export {};'].join('\n');
    const free = new Set();
    for (const diagnostic of diagnosticsOf(source(free))) {
      if ([2304, 2552, 2580, 18004].includes(diagnostic.code)) {
        free.add(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').match(/'([^']+)'/)[1]);
      }
    }
    // A value of the block's own making that JavaScript leaves untyped (a `new Promise` resolved by
    // hand is Promise<unknown>) says nothing about the package.
    return diagnosticsOf(source(free)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).filter((text) => !/type 'unknown'/.test(text));
  }

  test('there are blocks to check', () => expect(blocks.length).toBeGreaterThanOrEqual(10));
  test.each(blocks)('%s is the package\'s API', (_name, code) => {
    expect(check(code)).toEqual([]);
  }, 120_000);

  // And each block runs against the built package, after a setup that makes the names it takes from
  // the guide's prose (the items, a catalogue, a log), keyed by the block's first line. A block that
  // needs a browser or writes files is listed in `notRun` with the reason, and only type-checked.
  const notRun = {
    "// build.mjs, in Node": 'writes public/model.sbst into the working folder',
    '// In the page': 'fetches model.sbst from the page\'s server',
    'const done = (request) => new Promise((resolve, reject) => {': 'IndexedDB: a browser\'s',
    "import { runInWorker } from 'sublinear-bandits/worker';": 'a Web Worker: a browser\'s',
  };
  const data = `
    const random = seededRandom(1);
    const rows = (n, dim) => Float64Array.from({ length: n * dim }, () => random() - 0.5);
    const idsOf = (n, from = 0) => Uint32Array.from({ length: n }, (_, i) => from + i);`;
  const setups = {
    "const policy = new sb.SubTS({ dim: 16, horizon: 20000, delta: 0.05, shortlist: 30,": `
      const ids = idsOf(2000), features = rows(2000, 16), moreIds = idsOf(100, 2000), moreFeatures = rows(100, 16);
      const labels = idsOf(100).map((i) => i % 10), shown = [1, 2], reward = 1;`,
    "const user = new sb.LinTS({ catalogue });          // forgetting: 'auto' (the default)": `
      const catalogue = new sb.Catalogue({ dim: 8 });
      catalogue.add(idsOf(200), rows(200, 8));`,
    'const m = sb.Matroid.uniform(10000, 50);  // or .partition(groupOfArm), .graphic(numVertices, edges), .transversal(K, numRight, edges)': `
      const weights = rows(10000, 1), rewards = new Float64Array(50).fill(0.5);`,
    'const p = new sb.PC2UCB({ dim: 11, k: 100, lambda: 1, alpha: 1, c: 1, seed: 1 });': `
      const features = rows(1000, 11), rewards = new Float64Array(100).fill(1), groups = idsOf(1000).map((i) => i % 10);`,
    'const bytes = policy.toBytes();             // Uint8Array: versioned, checksummed, little-endian': `
      const policy = new sb.SubTS({ dim: 16, seed: 1 });
      policy.addArms(idsOf(5000), rows(5000, 16));`,
    "const index = new sb.HnswIndex({ dim: 32, M: 16, efConstruction: 200, efSearch: 64, seed: 1 });": `
      const ids = idsOf(2000), vectors = rows(2000, 32), query = rows(1, 32), shownIds = [1, 2];
      const moreIds = idsOf(100, 2000), moreVectors = rows(100, 32), labels = idsOf(100).map((i) => i % 10);
      const values = { price: Float64Array.from(rows(100, 1), (v) => 50 + 100 * v) };
      const K = 20, N = 50, rewards = Float64Array.from({ length: K * N }, () => (random() < 0.5 ? 1 : 0));`,
    'const batch = index.searchBatch(queries, 10);     // queries: n*dim floats in one array, or an array of n vectors': `
      const index = new sb.HnswIndex({ dim: 8, build: 'immediate', seed: 1 });
      index.add(idsOf(2000), rows(2000, 8), { labels: idsOf(2000).map((i) => i % 10) });
      const queries = rows(50, 8);`,
    "const catalogue = new sb.Catalogue({ dim: 32, seed: 1 });   // index: { type: 'hnsw', ... } by default": `
      const ids = idsOf(2000), features = rows(2000, 32), labels = idsOf(2000).map((i) => i % 10);
      const values = { price: Float64Array.from(rows(2000, 1), (v) => 50 + 100 * v), stock: Float64Array.from(ids, (id) => id % 4) };`,
    '// Morning: the catalogue, each item in several categories, with its price and stock.': `
      const catalogue = new sb.Catalogue({ dim: 8, seed: 1 });
      const user = new sb.SubTS({ catalogue, seed: 7 });
      const ids = [77, 900, 1042], features = rows(3, 8), shown = [];
      const PROMO = 99, promoted = [77, 900];
      const categoriesOf = (id) => ({ 77: [3, 17], 900: [3], 1042: [8, 17, 40] })[id];
      const newIds = [5000, 5001], newFeatures = rows(2, 8), newLabels = [[3], [8]], newPrices = [10, 20], newStock = [1, 2];
      const newEmbeddingOf900 = rows(1, 8);`,
    "const user = new sb.SubTS({ catalogue, seed: 7, explore: 0.05 });   // explore: optional, default 0": `
      const catalogue = new sb.Catalogue({ dim: 8, seed: 1 });
      catalogue.add(idsOf(500), rows(500, 8), { labels: idsOf(500).map((i) => i % 10) });
      const shown = [1, 2];
      const log = { lines: [], write(line) { this.lines.push(line); } };   // the application's own log`,
    // Both of evaluation.md's blocks: a logged catalogue user and a log of uniform choices.
    'const report = sb.evaluate({': `
      const catalogue = new sb.Catalogue({ dim: 4, index: { type: 'exact' } });
      catalogue.add(idsOf(30), rows(30, 4));
      const policy = new sb.LinUCB({ catalogue, seed: 1 });
      const arms = Uint32Array.from({ length: 300 }, () => Math.floor(random() * 30));
      const rewards = Float64Array.from(arms, () => (random() < 0.3 ? 1 : 0));
      const propensities = new Float64Array(300).fill(1 / 30);
      const userId = 7, bytes = policy.toBytes(), users = new Uint32Array(300).fill(userId);`,
    // evaluation.md's whole pages: 60 pages of 5 of a uniform logger over 30 items.
    'const pageReport = sb.evaluate({': `
      const catalogue = new sb.Catalogue({ dim: 4, index: { type: 'exact' } });
      catalogue.add(idsOf(30), rows(30, 4));
      const policy = new sb.LinUCB({ catalogue, seed: 1 });
      const positions = Uint32Array.from({ length: 300 }, (_, i) => i % 5), pages = Uint32Array.from(positions, (_, i) => Math.floor(i / 5));
      const arms = Uint32Array.from(positions, (j, i) => (pages[i] * 7 + j) % 30);
      const rewards = Float64Array.from(arms, () => (random() < 0.3 ? 1 : 0));
      const propensities = new Float64Array(300).fill(1 / 30);`,
    // evaluation.md's pages of a population: the same pages, each of one of three users, every user's
    // LinUCB saved (the candidate) and one trained on a few clicks (the population in place).
    'const populationPages = sb.evaluate({': `
      const catalogue = new sb.Catalogue({ dim: 4, index: { type: 'exact' } });
      catalogue.add(idsOf(30), rows(30, 4));
      const positions = Uint32Array.from({ length: 300 }, (_, i) => i % 5), pages = Uint32Array.from(positions, (_, i) => Math.floor(i / 5));
      const arms = Uint32Array.from(positions, (j, i) => (pages[i] * 7 + j) % 30), users = Uint32Array.from(pages, (page) => page % 3);
      const rewards = Float64Array.from(arms, () => (random() < 0.3 ? 1 : 0));
      const propensities = new Float64Array(300).fill(1 / 30);
      const saved = (clicks) => new Map([0, 1, 2].map((u) => {
        const user = new sb.LinUCB({ catalogue });
        for (let t = 0; t < clicks; t++) user.update(t % 30, random() < 0.3 ? 1 : 0);
        return [u, user.toBytes()];
      }));
      const states = saved(30), inPlace = saved(3);`,
    "const { init } = require('sublinear-bandits');   // also: require('sublinear-bandits')(options)": `
      const require = createRequire(join(root, 'package.json'));`,
  };
  const runnable = blocks.filter(([, code]) => !Object.hasOwn(notRun, code.split('\n')[0]));

  test.each(runnable)('%s runs', async (name, code) => {
    const sb = await loadModule();
    const first = code.split('\n')[0];
    const AsyncFunction = (async () => {}).constructor;
    const body = `${data}\n${setups[first] ?? ''}\n${asAwaitedImports(code)}`;
    // A block that makes its own `sb` (import init ...; const sb = await init()) is not given one.
    const sbName = /\bconst sb\b/.test(code) ? 'givenModule' : 'sb';
    await new AsyncFunction(sbName, 'seededRandom', 'importModule', 'createRequire', 'join', 'root', body)(sb, seededRandom, importModule, createRequire, join, root);
  }, 60_000);
  test('every block is run but those listed, each for a reason', () => {
    const firstLines = blocks.map(([, code]) => code.split('\n')[0]);
    for (const first of Object.keys(notRun)) expect(firstLines, first).toContain(first);
    for (const first of Object.keys(setups)) expect(firstLines, first).toContain(first);
  });
  test('the check fails a block that uses what the package does not have', () => {
    expect(check('const index = new sb.HnswIndex({ dim: 4 });\nindex.searchEverything(query);').join()).toMatch(/searchEverything/);
    expect(check('sb.NoSuchPolicy;').join()).toMatch(/NoSuchPolicy/);
  });
});

describe('the architecture\'s recipe for a new linear policy', () => {
  // The C++ test build compiles and runs the recipe (tests/toys/toy_policy.cpp, between
  // its "recipe" markers): the guide must show that code, not a version of it that no longer compiles.
  test('is the code the toy policy test compiles', () => {
    const source = readFileSync(join(root, 'tests/toys/toy_policy.cpp'), 'utf8');
    const compiled = source.slice(source.indexOf('// recipe: begin\n') + '// recipe: begin\n'.length, source.indexOf('// recipe: end\n'));
    const shown = [...readFileSync(join(root, 'docs/architecture.md'), 'utf8').matchAll(/```cpp\n([\s\S]*?)```/g)].map((match) => match[1]);
    expect(compiled.length).toBeGreaterThan(500);
    expect(shown).toContain(compiled);
  });
});

describe('the guides say what the library does', () => {
  // Findings of issue 55, each read back from the library.
  test('the refusal of an older state is quoted as the library words it (saving-state.md, state-format.md)', async () => {
    const sb = await loadModule();
    const bytes = new Uint8Array(readFileSync(join(root, 'tests/golden/format-4/ExactIndex.sbst')));
    let message;
    try { sb.ExactIndex.fromBytes(bytes); } catch (error) { message = error.message; }
    const words = (text) => text.replace(/\s+/g, ' ').replace(/\s*>\s*/g, ' ');
    for (const guide of ['docs/saving-state.md', 'docs/state-format.md']) {
      const text = words(readFileSync(join(root, guide), 'utf8'));
      const quoted = message.slice(message.indexOf('saved state has format version'));
      expect(text, guide).toContain(quoted.replace(/\s+/g, ' '));
    }
    const current = new sb.ExactIndex({ dim: 1 }).toBytes();
    expect(readFileSync(join(root, 'docs/saving-state.md'), 'utf8')).toContain(`its format version (${current[4] | (current[5] << 8)})`);
  });

  test('the elimination policies run a many-user simulation over a catalogue (docs/papers.md, "Many users")', async () => {
    const sb = await loadModule();
    for (const type of ['linear-elim', 'sub-elim']) {
      const result = sb.simulate({ environment: { type: 'linear', dim: 4, arms: 50, noise: 1, seed: 3, users: 5 }, policy: { type }, horizon: 50, seed: 1 });
      expect(result.users.count, type).toBe(5);
    }
    expect(readFileSync(join(root, 'docs/papers.md'), 'utf8')).toContain('(every linear policy, with its\noptions');
  });

  // The README, the guides and the types as one text each, JSDoc's leading stars and line breaks gone.
  const prose = () => ['README.md', ...readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`),
    ...readdirSync(join(root, 'web/src')).filter((file) => file.endsWith('.d.ts')).map((file) => `web/src/${file}`)]
    .map((file) => [file, readFileSync(join(root, file), 'utf8').replace(/\s+/g, ' ').replace(/ \* /g, ' ')]);

  test('no text says the elimination policies are refused over a catalogue; catalogue.d.ts names every linear policy as its user', async () => {
    const sb = await loadModule();
    for (const [file, text] of prose()) {
      expect(text, file).not.toMatch(/not yet over a catalogue/);
      expect(text, file).not.toMatch(/(?:linear-elim|sub-elim)(?: and (?:linear-elim|sub-elim))? (?:are|is) `?INVALID_ARGUMENT/);
    }
    const users = readFileSync(join(root, 'web/src/catalogue.d.ts'), 'utf8').match(/`\{ catalogue \}` \(([^)]*)\)/)[1];
    for (const [name] of registeredClasses(sb, 'linear-policy')) expect(users, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  test('removing the arm that sets an elimination threshold is documented as it works (linear.test.js runs it)', () => {
    for (const [file, text] of prose()) expect(text, file).not.toMatch(/threshold[^.]*(?:throws|is) `?INVALID_ARGUMENT/);
    expect(readFileSync(join(root, 'web/src/linear.d.ts'), 'utf8')).toContain('Removing the arm that sets the threshold brings the eliminated arms back.');
  });

  test('the README\'s Status names what is unfinished without the benchmarks\' ratios (those are docs/performance.md\'s generated tables)', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const status = readme.slice(readme.indexOf('## Status'), readme.indexOf('\n## ', readme.indexOf('## Status') + 1));
    expect(status.length).toBeGreaterThan(500);
    expect(status.match(/\d(?:\.\d+)?[x×](?![\w.])|\d(?:\.\d+)? ×/g)).toBeNull();
    expect(status).toContain('docs/status.md');
  });

  test('a pending decision costs what the guide says (268 B for one arm at d = 32)', async () => {
    const sb = await loadModule();
    const dim = 32;
    const policy = new sb.LinTS({ dim, seed: 1 });
    policy.addArms([1, 2, 3], Float32Array.from({ length: 3 * dim }, (_, i) => (i % 7) / 7));
    policy.decide();
    expect(policy.stats().decisions.pendingBytes).toBe(268);
    expect(readFileSync(join(root, 'docs/recommender.md'), 'utf8')).toContain('268 B for one arm at d = 32');
    policy.dispose();
  });
});
