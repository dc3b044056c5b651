// tsc --noEmit on a consumer written against the examples of the README and docs/, under every setting a consumer
// commonly compiles with: --strict, targets es2020, es2022 and esnext (only esnext's default lib
// declares Symbol.dispose), module resolution nodenext and bundler; plus the repository's own
// tsconfig (es2022 with lib esnext.disposable). disposable.ts (`using` on every class) is checked
// wherever the lib declares Symbol.dispose. The types need no DOM: lib ES2022 alone, and with Node's
// types (@types/node) instead of the DOM, check too; and a CommonJS consumer (commonjs.cts) gets the
// require entry's types.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { loadModule, registeredClasses, toyBuild } from './helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const scratch = mkdtempSync(join(tmpdir(), 'sublinear-types-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function typeCheck(project) {
  try {
    return execFileSync('node', [tsc, '-p', project], { cwd: root, encoding: 'utf8' });
  } catch (error) {
    return `${error.stdout}${error.stderr}`;
  }
}

test('the repository tsconfig (es2022, lib esnext.disposable and dom) type-checks the consumers, ESM and CommonJS', () => {
  expect(typeCheck('tests/types/tsconfig.json')).toBe('');
}, 60_000);

const targets = ['es2020', 'es2022', 'esnext'];
const resolutions = { nodenext: 'nodenext', bundler: 'esnext' };  // moduleResolution -> module
const matrix = targets.flatMap((target) => Object.entries(resolutions).map(([resolution, module]) => [target, resolution, module]));

test.each(matrix)('--strict --target %s --moduleResolution %s (default lib)', (target, resolution, module) => {
  const files = ['consumer.ts', ...(target === 'esnext' ? ['disposable.ts'] : [])].map((file) => join(root, 'tests/types', file));
  const project = join(scratch, `tsconfig.${target}.${resolution}.json`);
  writeFileSync(project, JSON.stringify({
    compilerOptions: { target, module, moduleResolution: resolution, strict: true, noEmit: true, types: [] },
    files,
  }));
  expect(typeCheck(project)).toBe('');
}, 60_000);

test('without Symbol.dispose in the lib, `using` on an object of the package is a type error (the check above is not vacuous)', () => {
  const project = join(scratch, 'tsconfig.es2022.using.json');
  writeFileSync(project, JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: [] },
    files: [join(root, 'tests/types/disposable.ts')],
  }));
  expect(typeCheck(project)).toMatch(/error TS2550: Property 'dispose' does not exist on type 'SymbolConstructor'/);
}, 60_000);

function writeProject(name, compilerOptions, files) {
  const project = join(scratch, `tsconfig.${name}.json`);
  writeFileSync(project, JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, ...compilerOptions },
    files: files.map((file) => join(root, 'tests/types', file)),
  }));
  return project;
}

test.each(Object.entries(resolutions))('lib ES2022 alone (no DOM, no Node types; a console declared), --moduleResolution %s: the ESM and CommonJS consumers check', (resolution, module) => {
  const files = ['console.d.ts', 'consumer.ts', ...(resolution === 'nodenext' ? ['commonjs.cts'] : [])];
  expect(typeCheck(writeProject(`es2022-only.${resolution}`, { lib: ['es2022'], types: [], module, moduleResolution: resolution }, files))).toBe('');
}, 60_000);

test('lib ES2022 alone really has no DOM (the check above is not vacuous)', () => {
  expect(typeCheck(writeProject('es2022-only.no-dom', { lib: ['es2022'], types: [] }, ['no-dom.ts']))).toMatch(/error TS2304: Cannot find name 'URL'/);
}, 60_000);

test('lib ES2022 with Node\'s types (@types/node) and no DOM: every consumer checks, `using` included', () => {
  const files = ['consumer.ts', 'worker-consumer.ts', 'commonjs.cts', 'disposable.ts'];
  expect(typeCheck(writeProject('es2022-node', { lib: ['es2022', 'esnext.disposable'], types: ['node'], typeRoots: [join(root, 'node_modules/@types')] }, files))).toBe('');
}, 60_000);

// The toys' declarations (tests/toys/toys.d.ts, file 4 of each recipe in docs/architecture.md, as
// a module that registers its own types would write them): a consumer of the toys' classes checks
// against them and the package's types, and an option of the wrong type is an error.
test('the toys\' declarations type-check a consumer of their classes, and type their options', () => {
  const toys = (file) => join(root, 'tests/toys', file);
  const project = (name, file) => {
    const path = join(scratch, `tsconfig.toys.${name}.json`);
    writeFileSync(path, JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, lib: ['es2022', 'esnext.disposable'], types: [] },
      files: [join(root, 'tests/types/console.d.ts'), toys('toys.d.ts'), toys(file)],
    }));
    return path;
  };
  expect(typeCheck(project('consumer', 'consumer.ts'))).toBe('');
  expect(typeCheck(project('wrong', 'wrong-options.ts'))).toMatch(/wrong-options\.ts\(6,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
}, 60_000);

// The consumers are only compiled, so they cannot loop over the registry: this holds them to the
// registry instead. A type added to a family fails here until a consumer uses it (a class constructed
// with its options, an environment given to simulate()), so that its declarations get type-checked:
// the package's in tests/types/consumer.ts, the toys' (the toy run) in tests/toys/consumer.ts.
test('the consumers use every registered class and environment type', async () => {
  const sb = await loadModule();
  const consumer = ['tests/types/consumer.ts', ...(toyBuild ? ['tests/toys/consumer.ts'] : [])].map((file) => readFileSync(join(root, file), 'utf8')).join('\n');
  const classes = ['index', 'linear-policy', 'semi-bandit-policy', 'cls-policy'].flatMap((kind) => registeredClasses(sb, kind).map(([name]) => name));
  expect(classes.filter((name) => !consumer.includes(`new sb.${name}(`)), 'classes never constructed').toEqual([]);
  const environments = sb.optionTable().filter((entry) => entry.kind === 'environment').map((entry) => entry.type);
  expect(environments.length).toBeGreaterThan(0);
  expect(environments.filter((type) => !consumer.includes(`environment: { type: '${type}'`)), 'environments never simulated').toEqual([]);
});
