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
});
