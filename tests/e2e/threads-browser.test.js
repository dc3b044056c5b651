// The threaded build in a real browser: init() picks it in a cross-origin isolated page (COOP and
// COEP headers), in a module Web Worker and on the page's main thread; a graph built there on the
// threads is as good as ExactIndex says and differs from the one-thread graph (the build ran
// concurrently); errors from the C++ core stay catchable BanditErrors; and the same page served
// without the headers gets the single-thread build.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, watchErrors } from './chromium.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

// The checks, one module for the Worker and for the page. `heavy`: the 3,000-item graph and the
// comparison with one thread; otherwise only init() and the errors.
const checksJs = String.raw`
function gaussian(seed, count) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return out;
}

function caught(sb, thunk) {
  try {
    thunk();
    return { threw: false };
  } catch (error) {
    return { threw: true, name: error?.name, code: error?.code, message: String(error?.message ?? error), isBanditError: error instanceof sb.BanditError };
  }
}

export async function run(init, { heavy }) {
  const out = {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    cores: navigator.hardwareConcurrency,
  };
  const sb = await init();
  out.threads = sb.threads;
  out.threadsReason = sb.threadsReason;
  const dim = 32;
  const n = heavy ? 3000 : 300;
  const queries = 50;
  const K = 10;
  const items = gaussian(1, n * dim);
  const query = gaussian(2, queries * dim);
  const ids = Uint32Array.from({ length: n }, (_, i) => i);
  const exact = new sb.ExactIndex({ dim });
  exact.add(ids, items);
  const build = (lib) => {
    const index = new lib.HnswIndex({ dim, M: 16, efConstruction: 200, seed: 1 });
    index.add(ids, items);
    const start = performance.now();
    const left = index.build();
    return { index, left, ms: Math.round(performance.now() - start) };
  };
  const recall = (index) => {
    let hits = 0;
    for (let q = 0; q < queries; q++) {
      const v = query.subarray(q * dim, (q + 1) * dim);
      const truth = new Set(exact.search(v, K).ids);
      for (const id of index.search(v, K).ids) hits += truth.has(id) ? 1 : 0;
    }
    return hits / (queries * K);
  };
  const { index, left, ms } = build(sb);
  out.left = left;
  out.buildMs = ms;
  out.recall = recall(index);
  out.stats = index.stats();
  const before = index.search(query.subarray(0, dim), K);
  // Errors raised inside the C++ core (a query of the wrong length, a duplicate id, a bad option).
  out.errors = {
    wrongLength: caught(sb, () => index.search(new Float32Array(dim - 1), K)),
    duplicateId: caught(sb, () => exact.add([0], items.subarray(0, dim))),
    badOption: caught(sb, () => new sb.HnswIndex({ dim: 4, M: 0 })),
  };
  // The module is still usable after them.
  const after = index.search(query.subarray(0, dim), K);
  out.sameAfterErrors = JSON.stringify([...after.ids]) === JSON.stringify([...before.ids]) && exact.size === n;
  if (heavy && sb.threads > 1) {
    // The same graph on one thread: another graph (nodes numbered as the threads took them) means
    // the build ran concurrently.
    const one = await init({ threads: 1 });
    out.oneThreads = one.threads;
    const single = build(one);
    out.oneBuildMs = single.ms;
    out.oneRecall = recall(single.index);
    const a = index.toBytes();
    const b = single.index.toBytes();
    out.sameBytesAsOneThread = a.length === b.length && a.every((x, i) => x === b[i]);
    single.index.dispose();
  }
  index.dispose();
  exact.dispose();
  return out;
}
`;

const workerJs = `
import init from '/dist/index.js';
import { run } from '/checks.js';
self.onmessage = async (event) => {
  try {
    postMessage({ result: await run(init, event.data) });
  } catch (error) {
    postMessage({ error: String(error?.stack ?? error) });
  }
};
`;

// The Worker first (its result is posted while the page's thread is free), then the main thread.
const pageJs = `
import init from '/dist/index.js';
import { run } from '/checks.js';
const heavy = new URL(location.href).searchParams.get('heavy') === '1';
const results = {};
const worker = new Worker('/worker.js', { type: 'module' });
results.worker = await new Promise((resolve) => {
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => resolve({ error: 'Worker error: ' + (event.message ?? 'no message') });
  worker.postMessage({ heavy });
});
worker.terminate();
try {
  results.main = { result: await run(init, { heavy }) };
} catch (error) {
  results.main = { error: String(error?.stack ?? error) };
}
window.__results = results;
`;

const pages = {
  '/page.html': '<!doctype html><meta charset="utf-8"><title>threads</title><script type="module" src="/page.js"></script>',
  '/page.js': pageJs,
  '/worker.js': workerJs,
  '/checks.js': checksJs,
};

// A static server of dist/ and the pages above; `isolated`: COOP and COEP on every response;
// `withoutWorker`: the threaded build's worker script is missing (404).
const workerScript = '/dist/sublinear_bandits_wasm_threads.worker.js';
function serve(isolated, { withoutWorker = false } = {}) {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    const headers = { 'cache-control': 'no-store' };
    if (isolated) {
      headers['cross-origin-opener-policy'] = 'same-origin';
      headers['cross-origin-embedder-policy'] = 'require-corp';
    }
    if (path === '/favicon.ico') return response.writeHead(204, headers).end();
    if (withoutWorker && path === workerScript) return response.writeHead(404, headers).end();
    if (pages[path] !== undefined) {
      return response.writeHead(200, { ...headers, 'content-type': types[extname(path)] }).end(pages[path]);
    }
    const relative = normalize(path).replace(/^\/dist\//, '');
    if (!path.startsWith('/dist/') || relative.startsWith('..')) {
      notFound.push(path);
      return response.writeHead(404, headers).end();
    }
    const file = join(dist, relative);
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      response.writeHead(200, { ...headers, 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    } catch {
      notFound.push(path);
      response.writeHead(404, headers).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

let isolated;
let plain;
let isolatedWithoutWorker;
// Paths a page asked for that the servers do not have (a 404 is a console error of the page).
const notFound = [];
let browser;

beforeAll(async () => {
  [isolated, plain, isolatedWithoutWorker, browser] = await Promise.all([serve(true), serve(false), serve(true, { withoutWorker: true }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  for (const site of [isolated, plain, isolatedWithoutWorker]) if (site) await new Promise((resolve) => site.server.close(resolve));
});

// Loads the page and returns { worker, main } results, failing with the page's console errors.
async function runPage(baseUrl, heavy) {
  const page = await browser.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${baseUrl}/page.html?heavy=${heavy ? 1 : 0}`);
    try {
      await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 45_000, polling: 100 });
    } catch (error) {
      throw new Error(`the page gave no results (${error.message.split('\n')[0]}); console errors: ${JSON.stringify(errors)}`);
    }
    const results = await page.evaluate(() => window.__results);
    for (const where of ['worker', 'main']) {
      if (results[where].error) throw new Error(`${where}: ${results[where].error}; console errors: ${JSON.stringify(errors)}`);
    }
    expect(errors, `console errors (not found: ${JSON.stringify(notFound)})`).toEqual([]);
    return { worker: results.worker.result, main: results.main.result };
  } finally {
    await page.close();
  }
}

function expectCoreErrors(result) {
  expect(result.errors.wrongLength).toMatchObject({ threw: true, name: 'BanditError', code: 'DIMENSION_MISMATCH', isBanditError: true });
  expect(result.errors.duplicateId).toMatchObject({ threw: true, name: 'BanditError', code: 'DUPLICATE_ID', isBanditError: true });
  expect(result.errors.badOption).toMatchObject({ threw: true, name: 'BanditError', code: 'INVALID_ARGUMENT', isBanditError: true });
  expect(result.sameAfterErrors).toBe(true);
}

describe('the threaded build in Chromium', () => {
  test('a cross-origin isolated page gets it, in a Worker and on the main thread', async () => {
    const { worker, main } = await runPage(isolated.url, true);
    for (const [where, result] of [['worker', worker], ['main', main]]) {
      const context = `${where}: ${JSON.stringify(result)}`;
      expect(result.crossOriginIsolated, context).toBe(true);
      expect(result.sharedArrayBuffer, context).toBe(true);
      expect(result.cores, context).toBeGreaterThanOrEqual(2);
      expect(result.threads, context).toBe(result.cores);
      expect(result.threadsReason, context).toMatch(/cross-origin isolated page, Web Workers: \d+ threads/);
      expect(result.left, context).toBe(0);
      expect(result.stats.built, context).toBe(3000);
      expect(result.recall, context).toBeGreaterThanOrEqual(0.9);
      expectCoreErrors(result);
      // The single-thread build beside it builds another graph of the same quality.
      expect(result.oneThreads, context).toBe(1);
      expect(result.sameBytesAsOneThread, context).toBe(false);
      expect(result.oneRecall, context).toBeGreaterThanOrEqual(0.9);
    }
  }, 60_000);

  // Browsers run the pthread worker script from a Blob URL of its text (index.js): a host that does
  // not serve the file, or serves something else in its place, still gets the threads.
  test('an isolated page whose host does not serve the worker script file still gets the threads', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(`${isolatedWithoutWorker.url}/page.html?heavy=0`);
      await page.waitForFunction(() => window.__results !== undefined, null, { timeout: 45_000, polling: 100 });
      const results = await page.evaluate(() => window.__results);
      for (const where of ['worker', 'main']) {
        const context = `${where}: ${JSON.stringify(results[where])}`;
        expect(results[where].error, context).toBeUndefined();
        const result = results[where].result;
        expect(result.crossOriginIsolated, context).toBe(true);
        expect(result.threads, context).toBeGreaterThan(1);
        expectCoreErrors(result);
      }
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  test('the same page without COOP and COEP gets the single-thread build', async () => {
    const { worker, main } = await runPage(plain.url, false);
    for (const [where, result] of [['worker', worker], ['main', main]]) {
      const context = `${where}: ${JSON.stringify(result)}`;
      expect(result.crossOriginIsolated, context).toBe(false);
      expect(result.threads, context).toBe(1);
      expect(result.threadsReason, context).toMatch(/not cross-origin isolated/);
      expectCoreErrors(result);
    }
  }, 60_000);
});
