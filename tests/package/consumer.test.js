// The packed tarball as users get it, installed into fresh scratch projects, in every common host:
// Node (ES module and CommonJS projects), and pages in Chromium built or served by Vite (dev server,
// build + preview), webpack 5, esbuild, and a plain static folder with <script type="module">, each
// served cross-origin isolated (threads expected) and not (one thread expected). Every host gets
// the same app and no configuration of its own beyond the one step the "Hosts" section of docs/threads-and-hosts.md
// names (esbuild: copy the .wasm files). One pack, one install per project, one build per bundler.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, watchErrors } from '../e2e/chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sublinear-consumer-'));
const app = join(scratch, 'app');
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
// What each host measured, printed at the end (the README's and docs/threads-and-hosts.md's "Hosts" table).
const measured = [];
let tarball;
let browser;

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
}

function install(project) {
  run('npm', ['install', tarball, '--no-audit', '--no-fund', '--loglevel=error'], project);
}

// The app every page host runs: init() timed, an exact search, a graph whose insertions are
// costly enough (efConstruction x dim >= 3,200) to be built on every thread, and a catalogue round.
const mainJs = `
import init from 'sublinear-bandits';

async function main() {
  const started = performance.now();
  try {
    const sb = await init();
    const initMs = Math.round(performance.now() - started);
    const exact = new sb.ExactIndex({ dim: 2 });
    exact.add([5, 6, 7], [1, 0, 0, 1, 1, 1]);
    const ids = Array.from(exact.search([2, 1], 3).ids);
    exact.dispose();
    const dim = 16;
    const n = 400;
    const items = new Float32Array(n * dim).map((_, i) => Math.sin(i * 12.9898) * 0.5);
    const graph = new sb.HnswIndex({ dim, M: 8, efConstruction: 200, seed: 1 });
    graph.add(Uint32Array.from({ length: n }, (_, i) => i), items);
    graph.build();
    const found = graph.search(items.subarray(3 * dim, 4 * dim), 1).ids[0];
    graph.dispose();
    let code = null;
    try { new sb.ExactIndex({ dimm: 2 }); } catch (error) { code = error instanceof sb.BanditError ? error.code : String(error); }
    return { isolated: globalThis.crossOriginIsolated === true, threads: sb.threads, reason: sb.threadsReason, initMs, ids, found, code,
      catalogue: catalogueRound(sb) };
  } catch (error) {
    return { error: String(error?.stack ?? error), code: error?.code, initMs: Math.round(performance.now() - started) };
  }
}

// One catalogue shared by two users, as a shop runs it: decisions under a filter, their rewards by
// event id, and a user's bytes reloaded against the catalogue to continue exactly.
function catalogueRound(sb) {
  const dim = 4;
  const arms = 50;
  const catalogue = new sb.Catalogue({ dim, seed: 1 });
  catalogue.add(Uint32Array.from({ length: arms }, (_, i) => i), new Float64Array(arms * dim).map((_, i) => Math.cos(i * 0.7)),
    { labels: Uint32Array.from({ length: arms }, (_, i) => i % 5) });
  const user = new sb.SubTS({ catalogue, seed: 7 });
  const other = new sb.LinUCB({ catalogue });
  let filtered = true;
  let eventId = null;
  for (let t = 0; t < 20; t++) {
    const d = user.decide({ labels: [2], exclude: [2] });
    filtered &&= d.arm % 5 === 2 && d.arm !== 2 && d.propensity > 0 && d.propensity <= 1;
    const s = other.decideSlate(3, { exclude: [0] });
    filtered &&= s.arms.length === 3 && !s.arms.includes(0) && s.propensities.length === 3;
    user.reward(d.eventId, d.arm / arms);
    other.reward(s.eventId, Float64Array.from(s.arms, (arm) => arm / arms));
    eventId = d.eventId;
  }
  let twice = null;
  try { user.reward(eventId, 1); } catch (error) { twice = error.code; }
  const restored = sb.SubTS.fromBytes(user.toBytes(), { catalogue });
  const same = restored.select() === user.select();
  for (const object of [restored, user, other, catalogue]) object.dispose();
  return { filtered, twice, same };
}

main().then((result) => {
  globalThis.__result = result;
  if (typeof document === 'object') document.querySelector('#out').textContent = JSON.stringify(result);
});
`;

const page = (script) => `<!doctype html><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"><pre id="out">loading</pre>${script}`;

// A static file server of one folder on 127.0.0.1, with or without the isolation headers.
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css' };
async function serveFolder(folder, headers) {
  const server = createHttpServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://localhost').pathname));
    let file = join(folder, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = readFileSync(file);
      response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream', ...headers });
      response.end(body);
    } catch {
      response.writeHead(404, headers);
      response.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

// Opens the page, waits for the app's result, and checks it: threads exactly where isolated, init()
// settled within seconds, the search and the error code right, no console errors.
async function checkPage(host, url, isolated) {
  const tab = await browser.newPage();
  const errors = watchErrors(tab);
  try {
    await tab.goto(url);
    const result = await tab.waitForFunction(() => globalThis.__result, null, { timeout: 45_000 }).then((handle) => handle.jsonValue());
    measured.push({ host, isolated, threads: result.threads, initMs: result.initMs, reason: result.reason ?? result.error });
    expect(result.error).toBeUndefined();
    expect(result.isolated).toBe(isolated);
    if (isolated) expect(result.threads).toBeGreaterThan(1);
    else expect(result.threads).toBe(1);
    expect(result.initMs).toBeLessThan(15_000);
    expect(result.ids).toEqual([7, 5, 6]);
    expect(result.found).toBe(3);
    expect(result.code).toBe('INVALID_ARGUMENT');
    expect(result.catalogue).toEqual({ filtered: true, twice: 'INVALID_ARGUMENT', same: true });
    expect(errors).toEqual([]);
  } finally {
    await tab.close();
  }
}

beforeAll(async () => {
  run('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], root);
  tarball = join(scratch, readdirSync(scratch).find((name) => name.endsWith('.tgz')));
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }));
  install(app);
  writeFileSync(join(app, 'src/main.js'), mainJs);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  console.log(`hosts (host, isolated, threads, init ms):\n${measured.map((m) => `  ${m.host}\t${m.isolated}\t${m.threads}\t${m.initMs}\t${m.reason}`).join('\n')}`);
  rmSync(scratch, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  test('holds what users need and nothing else', () => {
    const listing = run('tar', ['-tzf', tarball], scratch).split('\n').filter(Boolean);
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts', 'sublinear_bandits_wasm.wasm', 'sublinear_bandits_wasm_threads.wasm',
      'sublinear_bandits_wasm_threads.js', 'sublinear_bandits_wasm_threads.worker.js', 'sublinear_bandits_wasm_threads.sources.js']) {
      expect(listing).toContain(`package/dist/${file}`);
    }
    expect(listing.some((name) => name.includes('/cpp/') || name.includes('/tests/'))).toBe(false);
  });
});

describe('Node', () => {
  test('an ES module project imports it with no flags, gets threads, and its process exits', () => {
    writeFileSync(join(app, 'node.mjs'), `${mainJs.replace('main().then', 'await main().then')}\nconsole.log(JSON.stringify(globalThis.__result));`);
    const result = JSON.parse(run('node', ['node.mjs'], app));
    measured.push({ host: 'Node ESM', isolated: '-', threads: result.threads, initMs: result.initMs, reason: result.reason ?? result.error });
    expect(result.error).toBeUndefined();
    expect(result.threads).toBeGreaterThan(1);
    expect(result.ids).toEqual([7, 5, 6]);
    expect(result.found).toBe(3);
    expect(result.code).toBe('INVALID_ARGUMENT');
    expect(result.catalogue).toEqual({ filtered: true, twice: 'INVALID_ARGUMENT', same: true });
  }, 60_000);

  test('a CommonJS project (npm init -y) requires it and awaits init()', () => {
    const project = join(scratch, 'cjs');
    mkdirSync(project);
    run('npm', ['init', '-y'], project);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    install(project);
    writeFileSync(join(project, 'index.js'), `
      const { init } = require('sublinear-bandits');
      const direct = require('sublinear-bandits');
      (async () => {
        const started = Date.now();
        const sb = await init();
        const again = await direct.default({ threads: 1, warmUp: false });
        const index = new sb.ExactIndex({ dim: 2 });
        index.add([5, 6, 7], [1, 0, 0, 1, 1, 1]);
        let code = null;
        try { index.remove([42]); } catch (error) { code = error instanceof sb.BanditError && error.code; }
        console.log(JSON.stringify({ ms: Date.now() - started, threads: sb.threads, version: sb.version, same: direct === init,
          again: again.threads, ids: Array.from(index.search([2, 1], 3).ids), code }));
        index.dispose();
      })();
    `);
    const result = JSON.parse(run('node', ['index.js'], project));
    measured.push({ host: 'Node CommonJS', isolated: '-', threads: result.threads, initMs: result.ms, reason: '' });
    expect(result).toMatchObject({ same: true, again: 1, ids: [7, 5, 6], code: 'UNKNOWN_ID' });
    expect(result.threads).toBeGreaterThan(1);
    expect(result.version).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  }, 120_000);
});

describe('pages in Chromium', () => {
  test.each([true, false])('Vite dev server, cross-origin isolated: %s (no Vite configuration)', async (isolated) => {
    const { createServer } = await import('vite');
    writeFileSync(join(app, 'index.html'), page('<script type="module" src="/src/main.js"></script>'));
    const server = await createServer({
      root: app, configFile: false, logLevel: 'error', clearScreen: false,
      server: { host: '127.0.0.1', port: 0, headers: isolated ? isolation : {} },
    });
    await server.listen();
    try {
      await checkPage('Vite dev', server.resolvedUrls.local[0], isolated);
    } finally {
      await server.close();
    }
  }, 120_000);

  let viteOut;
  test.each([true, false])('vite build + vite preview, cross-origin isolated: %s (no Vite configuration)', async (isolated) => {
    const { build, preview } = await import('vite');
    writeFileSync(join(app, 'index.html'), page('<script type="module" src="/src/main.js"></script>'));
    if (!viteOut) {
      viteOut = join(scratch, 'vite-out');
      await build({ root: app, configFile: false, logLevel: 'error', build: { outDir: viteOut } });
    }
    const server = await preview({ root: app, configFile: false, logLevel: 'error', build: { outDir: viteOut }, preview: { port: 0, host: '127.0.0.1', headers: isolated ? isolation : {} } });
    try {
      await checkPage('Vite build + preview', server.resolvedUrls.local[0], isolated);
    } finally {
      await new Promise((resolve) => server.httpServer.close(resolve));
    }
  }, 120_000);

  // runInWorker ('sublinear-bandits/worker') starts a module Worker the bundler must build: with
  // Vite it takes the two settings docs/threads-and-hosts.md names (not needed by init()).
  test('runInWorker with Vite: dev with optimizeDeps.exclude, build with worker.format es (docs/threads-and-hosts.md, Hosts)', async () => {
    const { build, createServer, preview } = await import('vite');
    writeFileSync(join(app, 'src/simulate.js'), `
      import { runInWorker } from 'sublinear-bandits/worker';
      runInWorker({ environment: { type: 'linear', dim: 4, arms: 50 }, policy: { type: 'lin-ts' }, horizon: 100, seed: 1 })
        .then((result) => { globalThis.__result = { steps: result.cumulativeRegret.length }; }, (error) => { globalThis.__result = { error: String(error) }; });
    `);
    writeFileSync(join(app, 'simulate.html'), page('<script type="module" src="/src/simulate.js"></script>'));
    const settings = { optimizeDeps: { exclude: ['sublinear-bandits'] }, worker: { format: 'es' } };
    const open = async (url) => {
      const tab = await browser.newPage();
      const errors = watchErrors(tab);
      try {
        await tab.goto(url);
        const result = await tab.waitForFunction(() => globalThis.__result, null, { timeout: 30_000 }).then((handle) => handle.jsonValue());
        expect(result).toEqual({ steps: 100 });
        expect(errors).toEqual([]);
      } finally {
        await tab.close();
      }
    };
    const dev = await createServer({ root: app, configFile: false, logLevel: 'error', clearScreen: false, ...settings, server: { host: '127.0.0.1', port: 0 } });
    await dev.listen();
    try {
      await open(`${dev.resolvedUrls.local[0]}simulate.html`);
    } finally {
      await dev.close();
    }
    const outDir = join(scratch, 'vite-worker-out');
    await build({ root: app, configFile: false, logLevel: 'error', ...settings, build: { outDir, rollupOptions: { input: join(app, 'simulate.html') } } });
    const server = await preview({ root: app, configFile: false, logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    try {
      await open(`${server.resolvedUrls.local[0]}simulate.html`);
    } finally {
      await new Promise((resolve) => server.httpServer.close(resolve));
    }
  }, 120_000);

  let webpackOut;
  test.each([true, false])('webpack 5 (production, no loaders or plugins), cross-origin isolated: %s', async (isolated) => {
    if (!webpackOut) {
      webpackOut = join(scratch, 'webpack-out');
      const { default: webpack } = await import('webpack');
      const stats = await new Promise((resolve, reject) => webpack({
        mode: 'production', context: app, entry: './src/main.js', output: { path: webpackOut, clean: true }, performance: { hints: false },
      }, (error, result) => (error ? reject(error) : resolve(result))));
      expect(stats.hasErrors() ? stats.toString('errors-only') : '').toBe('');
      writeFileSync(join(webpackOut, 'index.html'), page('<script src="./main.js"></script>'));
    }
    const server = await serveFolder(webpackOut, isolated ? isolation : {});
    try {
      await checkPage('webpack 5', server.url, isolated);
    } finally {
      await server.close();
    }
  }, 180_000);

  let esbuildOut;
  test.each([true, false])('esbuild (bundle, format esm; the .wasm files copied beside the bundle), cross-origin isolated: %s', async (isolated) => {
    if (!esbuildOut) {
      esbuildOut = join(scratch, 'esbuild-out');
      const esbuild = await import('esbuild');
      await esbuild.build({ absWorkingDir: app, entryPoints: ['src/main.js'], bundle: true, format: 'esm', outdir: esbuildOut, logLevel: 'error' });
      // esbuild emits no file named by new URL(..., import.meta.url): the one step docs/threads-and-hosts.md names.
      const dist = join(app, 'node_modules/sublinear-bandits/dist');
      for (const file of readdirSync(dist).filter((name) => name.endsWith('.wasm'))) copyFileSync(join(dist, file), join(esbuildOut, file));
      writeFileSync(join(esbuildOut, 'index.html'), page('<script type="module" src="./main.js"></script>'));
    }
    const server = await serveFolder(esbuildOut, isolated ? isolation : {});
    try {
      await checkPage('esbuild', server.url, isolated);
    } finally {
      await server.close();
    }
  }, 120_000);

  test('esbuild without the .wasm files beside the bundle: init() rejects at once with a BanditError saying what to copy', async () => {
    const bare = join(scratch, 'esbuild-bare');
    const esbuild = await import('esbuild');
    await esbuild.build({ absWorkingDir: app, entryPoints: ['src/main.js'], bundle: true, format: 'esm', outdir: bare, logLevel: 'error' });
    writeFileSync(join(bare, 'index.html'), page('<script type="module" src="./main.js"></script>'));
    const server = await serveFolder(bare, {});
    const tab = await browser.newPage();
    try {
      await tab.goto(server.url);
      const result = await tab.waitForFunction(() => globalThis.__result, null, { timeout: 20_000 }).then((handle) => handle.jsonValue());
      expect(result.code).toBe('INVALID_ARGUMENT');
      expect(result.error).toMatch(/sublinear_bandits_wasm\.wasm could not be loaded: .*HTTP 404.*esbuild, need them copied/s);
      expect(result.initMs).toBeLessThan(5_000);
    } finally {
      await tab.close();
      await server.close();
    }
  }, 60_000);

  // A host with a Content-Security-Policy, cross-origin isolated: where the policy allows blob:
  // scripts and workers (docs/threads-and-hosts.md's line) the threads start; where not, init() says why and runs on
  // one thread at once.
  const policies = {
    'allows blob:': "script-src 'self' blob: 'wasm-unsafe-eval'; worker-src 'self' blob:",
    'blocks blob:': "script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'",
  };
  test.each(Object.keys(policies))('a cross-origin isolated page whose CSP %s', async (which) => {
    writeFileSync(join(app, 'src/csp-main.js'), mainJs.replace("from 'sublinear-bandits'", "from '../node_modules/sublinear-bandits/dist/index.js'"));
    writeFileSync(join(app, 'csp.html'), page('<script type="module" src="./src/csp-main.js"></script>'));
    const server = await serveFolder(app, { ...isolation, 'Content-Security-Policy': policies[which] });
    const tab = await browser.newPage();
    try {
      await tab.goto(`${server.url}csp.html`);
      const result = await tab.waitForFunction(() => globalThis.__result, null, { timeout: 30_000 }).then((handle) => handle.jsonValue());
      measured.push({ host: `static folder, CSP ${which}`, isolated: true, threads: result.threads, initMs: result.initMs, reason: result.reason ?? result.error });
      expect(result.error).toBeUndefined();
      expect(result).toMatchObject({ isolated: true, ids: [7, 5, 6], found: 3 });
      if (which === 'allows blob:') {
        expect(result.threads).toBeGreaterThan(1);
      } else {
        expect(result.threads).toBe(1);
        expect(result.reason).toMatch(/the threaded build did not start here .*single-thread build/);
      }
      expect(result.initMs).toBeLessThan(5_000);
    } finally {
      await tab.close();
      await server.close();
    }
  }, 60_000);

  test.each([true, false])('a static folder, <script type="module"> and an import map, cross-origin isolated: %s', async (isolated) => {
    const map = { imports: { 'sublinear-bandits': './node_modules/sublinear-bandits/dist/index.js' } };
    writeFileSync(join(app, 'static.html'), page(`<script type="importmap">${JSON.stringify(map)}</script><script type="module" src="./src/main.js"></script>`));
    const server = await serveFolder(app, isolated ? isolation : {});
    try {
      await checkPage('static folder', `${server.url}static.html`, isolated);
    } finally {
      await server.close();
    }
  }, 60_000);
});
