// The static build (what `npm run build:demo` writes) served from a subfolder of a plain static
// server, as a host would: it must load, run a preset to the end in workers, and say so when a file
// is missing instead of waiting forever. The same site from a host that adds COOP and COEP gets the
// threaded build.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchChromium, watchErrors } from './chromium.js';

const prefix = '/some/sub/dir/';
// The same site from a host that sends the two headers of cross-origin isolation.
const isolatedPrefix = '/isolated/dir/';
const isolation = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml' };
let site;
let server;
let baseUrl;
let isolatedUrl;
let browser;
// Paths the server pretends not to have (a partly uploaded site).
const missing = new Set();

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'demo-site-'));
  const { build } = await import('vite');
  // The same configuration as `npm run build:demo`, into a scratch folder.
  await build({ configFile: fileURLToPath(new URL('../../web/demo/vite.config.js', import.meta.url)), logLevel: 'error', build: { outDir: site, emptyOutDir: true } });
  server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    const folder = [prefix, isolatedPrefix].find((start) => path.startsWith(start));
    if (!folder) return response.writeHead(404).end();
    const headers = folder === isolatedPrefix ? isolation : {};
    const relative = normalize(path.slice(folder.length) || 'index.html');
    const file = join(site, relative.endsWith('/') ? `${relative}index.html` : relative);
    if (relative.startsWith('..') || [...missing].some((ending) => file.endsWith(ending))) return response.writeHead(404, headers).end();
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      response.writeHead(200, { ...headers, 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    } catch {
      response.writeHead(404, headers).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}${prefix}`;
  isolatedUrl = `http://127.0.0.1:${server.address().port}${isolatedPrefix}`;
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  if (site) rmSync(site, { recursive: true, force: true });
});

// Runs the loaded preset (Yang et al.'s Table 4, arXiv:2103.02729: four policies) and checks it
// ends with its four rows and no console error.
async function runPresetToTheEnd(page, errors) {
  await page.getByRole('button', { name: 'Run experiment' }).click();
  await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 120_000 }).toMatch(/^(Done|Failed|Cancelled)/);
  expect(await page.locator('#progress-text').textContent()).toMatch(/^Done/);
  expect(await page.locator('#results-table tbody tr').count()).toBe(4);
  expect(errors).toEqual([]);
  await page.close();
}

describe('the static demo site from a subfolder', () => {
  test('every URL in the build is relative', () => {
    const html = readFileSync(join(site, 'index.html'), 'utf8');
    expect(html).not.toMatch(/(src|href)="\/(?!\/)/);
    expect(html).toMatch(/src="\.\/assets\//);
  });

  test(`loads from ${prefix} and runs a preset to the end in workers`, async () => {
    missing.clear();
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${baseUrl}#preset=paper000-table4&seeds=1&horizon=60`);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('WebAssembly module loaded');
    // No headers: one thread, and the page says why.
    expect(await page.locator('#status').textContent()).toContain('Threads: 1 (the page is not cross-origin isolated');
    await runPresetToTheEnd(page, errors);
  }, 180_000);

  // The pthread worker script must stay a file of the site: inlined as a data: URL (Vite inlines
  // small assets), its Worker would not be isolated and the page would wait for it forever.
  test(`from a host that adds COOP and COEP (${isolatedPrefix}), it gets the threaded build and runs a preset to the end`, async () => {
    missing.clear();
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${isolatedUrl}#preset=paper000-table4&seeds=1&horizon=60`);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('WebAssembly module loaded');
    const found = await page.evaluate(() => ({ isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency, threads: window.sb.threads }));
    expect(found.isolated).toBe(true);
    if (found.cores > 1) expect(found.threads, JSON.stringify(found)).toBeGreaterThan(1);
    await runPresetToTheEnd(page, errors);
  }, 180_000);

  test(`the page's own timing worker (the total-time chart) loads from ${prefix} too`, async () => {
    missing.clear();
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`${baseUrl}#preset=paper000-crossover&seeds=1&horizon=50`);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('WebAssembly module loaded');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 55_000 }).toMatch(/^(Done|Failed|Cancelled)/);
    expect(await page.locator('#progress-text').textContent()).toMatch(/^Done/);
    expect(await page.locator('#horizon-verdict').textContent()).toContain('T = 50');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  // The shop's model runs in a Worker: the single-thread build without isolation, the threaded one
  // (whose pthreads the Worker starts) with it. Either way a slate after the first is a graph search.
  test.each([['', prefix], [' with COOP and COEP', isolatedPrefix]])(`the shop's catalogue loads from a subfolder%s and the shop shows its slate, then a graph search's`, async (_, folder) => {
    missing.clear();
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const warnings = [];
    page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
    await page.goto(folder === prefix ? baseUrl : isolatedUrl);
    await page.locator('#shop > summary').click();
    await expect.poll(() => page.locator('#shop').getAttribute('data-ready'), { timeout: 60_000 }).toBe('true');
    expect(await page.locator('#shop-slate .shop-item').count()).toBe(10);
    expect(await page.locator('#shop-status').textContent()).toMatch(folder === prefix ? /in a Worker with 1 thread\)/ : /in a Worker with \d threads?\)/);
    await page.getByRole('button', { name: 'None of these' }).click();
    await expect.poll(() => page.locator('#shop').getAttribute('data-busy')).toBeNull();
    expect(await page.locator('#shop').getAttribute('data-graph')).toBe('true');
    // The slate's thumbnails arrived (a canvas not yet drawn is transparent; a drawn one opaque, not blank).
    await expect.poll(() => page.locator('#shop-slate canvas').first().evaluate((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      return data[3] === 255 && data.some((v, i) => i % 4 !== 3 && v < 255);
    })).toBe(true);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  });

  // docs/demo.md's table of what a visitor transfers, held to the built site: each part's raw and
  // gzipped (level 9) bytes within 3% of the KB stated.
  test('the sizes docs/demo.md states are the built site\'s', () => {
    const parts = [
      ['the page:', /^(index\.html|assets\/index-[^/]*\.(js|css)|assets\/sublinear_bandits_wasm-[^/]*\.(js|wasm))$/],
      ['the threaded module', /^assets\/sublinear_bandits_wasm_threads/],
      ['the three workers', /^assets\/(simulation|timing|shop)-worker-/],
      ["the shop's catalogue", /^shop\/fashion-shop\.(bin|sbst)$/],
      ["the shop's thumbnails", /^shop\/thumbnails-\d{3}\.bin$/],
    ];
    const files = [];
    const walk = (folder) => {
      for (const name of readdirSync(join(site, folder))) {
        const relative = folder ? `${folder}/${name}` : name;
        if (statSync(join(site, relative)).isDirectory()) walk(relative);
        else files.push(relative);
      }
    };
    walk('');
    const table = readFileSync(fileURLToPath(new URL('../../docs/demo.md', import.meta.url)), 'utf8');
    const kb = (text) => Number(text.replace(/[, KB]/g, ''));
    for (const [label, pattern] of parts) {
      const chosen = files.filter((file) => pattern.test(file));
      expect(chosen.length, label).toBeGreaterThan(0);
      const raw = chosen.reduce((sum, file) => sum + statSync(join(site, file)).size, 0) / 1024;
      const gzipped = chosen.reduce((sum, file) => sum + gzipSync(readFileSync(join(site, file)), { level: 9 }).length, 0) / 1024;
      const row = table.split('\n').find((line) => line.startsWith(`| ${label}`));
      expect(row, label).toBeDefined();
      const [, statedRaw, statedGzipped] = row.split('|').slice(1, -1).map((cell) => cell.trim());
      expect(Math.abs(kb(statedRaw) / raw - 1), `${label}: ${raw.toFixed(0)} KB raw against ${statedRaw}`).toBeLessThan(0.03);
      expect(Math.abs(kb(statedGzipped) / gzipped - 1), `${label}: ${gzipped.toFixed(0)} KB gzipped against ${statedGzipped}`).toBeLessThan(0.03);
    }
    // Gzipping the 600 thumbnail files at level 9 takes about 40 s on a 2-core machine.
  }, 300_000);

  // On Chromium's Fast 3G profile the page loads, and the shop shows its first slate from the main
  // asset while its catalogue's snapshot still arrives, the status line counting both; a click on that
  // slate is kept and answered by a graph search once the snapshot is in. (The times are printed for
  // the closing notes, not tested: the first slate in the page, its thumbnails drawn, the graph ready.)
  test('on a Fast 3G connection the shop shows its first slate while the catalogue arrives, and keeps a click made then', async () => {
    missing.clear();
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const warnings = [];
    page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
    const session = await page.context().newCDPSession(page);
    await session.send('Network.enable');
    // DevTools' "Fast 3G": 1.44 Mbit/s down, 675 kbit/s up, 562.5 ms of latency.
    await session.send('Network.emulateNetworkConditions', { offline: false, latency: 562.5, downloadThroughput: (1.44 * 1024 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 });
    const started = Date.now();
    const seconds = (at) => ((at - started) / 1000).toFixed(1);
    await page.goto(baseUrl, { timeout: 120_000 });
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 120_000 }).toContain('WebAssembly module loaded');
    const loaded = Date.now();
    await page.locator('#shop > summary').click();
    const progress = { items: new Set(), graph: new Set() };
    const times = {};
    const drawn = async () => (await page.locator('#shop-slate canvas[data-drawn]').count()) === 10;
    while ((await page.locator('#shop').getAttribute('data-ready')) !== 'true' && Date.now() - loaded < 180_000) {
      const text = await page.locator('#shop-status').textContent();
      const share = String.raw`(\d+ of \d+ KB \(\d+%\)|\d+ KB received)`;
      if (new RegExp(`^Loading the shop's items… ${share}$`).test(text)) progress.items.add(text);
      if (new RegExp(`^Loading the catalogue's HNSW graph… ${share}; `).test(text)) progress.graph.add(text);
      if (!times.slate && (await page.locator('#shop-slate .shop-item').count()) === 10) {
        times.slate = Date.now();
        // A click before the graph has arrived: "None of these", kept until it has.
        await page.getByRole('button', { name: 'None of these' }).click();
        expect(await page.locator('#shop-ack').textContent()).toContain('when the catalogue has arrived');
      }
      if (times.slate && !times.drawn && (await drawn())) times.drawn = Date.now();
      await page.waitForTimeout(100);
    }
    expect(await page.locator('#shop').getAttribute('data-ready')).toBe('true');
    times.ready = Date.now();
    // The first slate came before the graph, and what had arrived moved in both phases.
    expect(times.slate).toBeDefined();
    expect(progress.items.size).toBeGreaterThan(3);
    expect(progress.graph.size).toBeGreaterThan(3);
    // The click made before is learned (the ten items passed over) and answered by the graph.
    await expect.poll(() => page.locator('#shop').getAttribute('data-busy'), { timeout: 30_000 }).toBeNull();
    expect(await page.locator('#shop-state').textContent()).toContain('learned from 10 items seen');
    expect(await page.locator('#shop').getAttribute('data-graph')).toBe('true');
    console.log(`Fast 3G, uncompressed: module loaded ${seconds(loaded)} s; the shop opened then showed its first slate ${seconds(times.slate)} s ` +
      `after the page was asked for, its thumbnails drawn ${times.drawn ? seconds(times.drawn) : 'later than'} s, the graph ready ${seconds(times.ready)} s`);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    await page.close();
  }, 300_000);

  test('a missing .wasm shows an error on the page instead of "Loading…"', async () => {
    missing.clear();
    missing.add('.wasm');
    const page = await browser.newPage();
    await page.goto(baseUrl);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/failed to load/i);
    expect(await page.locator('#status').getAttribute('class')).toContain('error');
    await page.close();
    missing.clear();
  }, 60_000);

  test('a missing script shows an error on the page instead of "Loading…"', async () => {
    missing.clear();
    missing.add('.js');
    const page = await browser.newPage();
    await page.goto(baseUrl);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/could not load/);
    expect(await page.locator('#status').getAttribute('class')).toContain('error');
    await page.close();
    missing.clear();
  }, 60_000);
});
