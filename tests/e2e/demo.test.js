import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bruteForceTopK, gaussianVectors } from '../../web/demo/data.js';
import { startDemo, watchErrors } from './chromium.js';

const screenshots = fileURLToPath(new URL('../../test-results/', import.meta.url));
let demo;
let browser;
let baseUrl;

beforeAll(async () => {
  demo = await startDemo();
  ({ browser, baseUrl } = demo);
});

afterAll(async () => {
  await demo?.close();
});

describe('demo page in Chromium', () => {
  test('loads the module, runs a search from the Run button and shows the exact top-k', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(baseUrl);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('WebAssembly module loaded');

    await page.fill('#count', '5000');
    await page.fill('#dim', '24');
    await page.fill('#k', '7');
    await page.fill('#seed', '11');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => page.locator('#result').getAttribute('data-ids')).toMatch(/\d/);

    const shown = (await page.locator('#result').getAttribute('data-ids')).split(',').map(Number);
    const expected = bruteForceTopK(gaussianVectors(5000, 24, 11), 24, gaussianVectors(1, 24, 12), 7);
    expect(shown).toEqual(expected);
    expect(await page.locator('#result').textContent()).toContain('Top 7 of 5000 items');
    expect(await page.locator('#chart').boundingBox()).not.toBeNull();

    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: `${screenshots}demo.png`, fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a bad input shows the BanditError code instead of failing silently', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(baseUrl);
    await expect.poll(() => page.locator('#run').isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.fill('#k', '0');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => page.locator('#result').textContent()).toContain('INVALID_ARGUMENT');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('the browser draws the same random numbers as Node (same seed, same run everywhere)', async () => {
    const page = await browser.newPage();
    await page.goto(baseUrl);
    await expect.poll(() => page.locator('#run').isEnabled(), { timeout: 30_000 }).toBe(true);
    const inBrowser = await page.evaluate(() => window.sb.randomChecksum(42, 100000));
    const { default: init } = await import('../../dist/index.js');
    expect(inBrowser).toBe((await init()).randomChecksum(42, 100000));
    await page.close();
  });

  // `npm start` serves the page with COOP and COEP (web/demo/vite.config.js): without them the page
  // has no SharedArrayBuffer and gets one thread. The experiments' Workers load the threaded build
  // too: each starts pthread Workers of its own beside the page's.
  test('is cross-origin isolated: the threaded build on the page and in the workers, and a preset runs to the end', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    const pthreadWorkers = [];
    // Pthread Workers run from Blob URLs (the package makes them from the worker script's text).
    page.on('worker', (worker) => { if (worker.url().startsWith('blob:')) pthreadWorkers.push(worker.url()); });
    await page.goto(`${baseUrl}#preset=paper000-table4&seeds=1&horizon=60`);
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('WebAssembly module loaded');
    const found = await page.evaluate(() => ({
      isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency, threads: window.sb.threads, reason: window.sb.threadsReason,
    }));
    expect(found.isolated, JSON.stringify(found)).toBe(true);
    if (found.cores > 1) {
      expect(found.threads, JSON.stringify(found)).toBeGreaterThan(1);
      expect(found.reason).toMatch(/^cross-origin isolated page/);
    }
    expect(await page.locator('#status').textContent()).toContain(`Threads: ${found.threads} (${found.reason})`);

    await page.getByRole('button', { name: 'Run experiment' }).click();
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 120_000 }).toMatch(/^(Done|Failed|Cancelled)/);
    expect(await page.locator('#progress-text').textContent()).toMatch(/^Done/);
    expect(await page.locator('#results-table tbody tr').count()).toBe(4);
    if (found.cores > 1) expect(pthreadWorkers.length, JSON.stringify(pthreadWorkers)).toBeGreaterThan(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
