// The demo's results always belong to the run that made them: the form is locked while it runs, a
// link opened meanwhile waits for the end, exports are named after and hold the run's preset, and
// settings that cannot run are refused with an error of their own.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findPreset } from '../../web/demo/presets.js';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

async function openPage(hash, viewport) {
  const page = await demo.browser.newPage({ acceptDownloads: true, ...(viewport ? { viewport } : {}) });
  const errors = watchErrors(page);
  await page.goto(`${demo.baseUrl}#${hash}`);
  await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
  return { page, errors };
}

const firstColumn = (page, table) => page.locator(`${table} tbody tr td:first-child`).allTextContents();

describe('results belong to their run', () => {
  test('switching presets mid-run: the form is locked, a link waits for the end, results and exports keep the run\'s preset', async () => {
    const matroid = findPreset('matroid-scaling');
    const labels = matroid.runs({ full: false }).map((run) => run.label);
    // The exports also hold the runs of the time-against-K chart, which the table leaves out.
    const exported = [...labels, ...matroid.scaling({ full: false }).map((run) => run.label)];
    const { page, errors } = await openPage('preset=matroid-scaling&seeds=2&horizon=1500');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await expect.poll(() => page.locator('#cancel').isEnabled()).toBe(true);
    for (const control of ['#preset', '#full', '#seeds', '#horizon', '#ratings-file']) {
      expect(await page.locator(control).isDisabled(), control).toBe(true);
    }
    // A link to another preset opened during the run (hashchange) is applied only when it ends.
    await page.evaluate(() => { location.hash = 'preset=paper000-table2&seeds=1&horizon=60'; });
    await expect.poll(() => page.locator('#experiment-notice').textContent()).toContain('when this run ends');
    expect(await page.locator('#preset').inputValue()).toBe('matroid-scaling');
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 150_000 }).toMatch(/^Done/);
    await expect.poll(() => page.locator('#preset').inputValue()).toBe('paper000-table2');
    expect(await page.locator('#horizon').inputValue()).toBe('60');

    // The form now says Table 2, the results still say (and are) the matroid run's.
    await page.selectOption('#preset', 'paper000-table4');
    expect(await firstColumn(page, '#results-table')).toEqual(labels);
    expect(await page.locator('#results-title').textContent()).toContain(matroid.title);
    expect(await firstColumn(page, '#paper-table')).toEqual(matroid.paper.rows.map((row) => String(row[0])));

    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(csvDownload.suggestedFilename()).toBe('matroid-scaling.csv');
    const csvLabels = new Set(readFileSync(await csvDownload.path(), 'utf8').trim().split('\n').slice(1).map((line) => line.split('",')[0].slice(1)));
    expect([...csvLabels].sort()).toEqual([...exported].sort());
    const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    expect(jsonDownload.suggestedFilename()).toBe('matroid-scaling.json');
    const json = JSON.parse(readFileSync(await jsonDownload.path(), 'utf8'));
    expect(json.configuration.preset).toBe('matroid-scaling');
    expect(json.configuration.horizon).toBe(1500);
    expect(new Set(json.runs.map((run) => run.label))).toEqual(new Set(exported));
    expect(errors).toEqual([]);
    await page.close();
  }, 200_000);

  test('a long full-scale run gives an estimate of the time left within seconds', async () => {
    // Table 1 at full scale with 50 seeds: 200 runs of 20,000 steps over 100,000 arms, so 2% of it
    // (where an estimate used to appear) takes well over 10 seconds.
    const { page, errors } = await openPage('preset=paper000-table1&full=1&seeds=50');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 10_000 }).toMatch(/\d+(\.\d)? (s|min \d+ s) left/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('#progress-text').textContent()).toMatch(/^Cancelled/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  test('a link opened between runs applies at once (hashchange)', async () => {
    const { page, errors } = await openPage('preset=paper000-table4&seeds=1&horizon=60');
    await page.evaluate(() => { location.hash = 'preset=paper000-table5&full=1&seeds=3&horizon=77'; });
    await expect.poll(() => page.locator('#preset').inputValue()).toBe('paper000-table5');
    expect(await page.locator('#full').isChecked()).toBe(true);
    expect(await page.locator('#seeds').inputValue()).toBe('3');
    expect(await page.locator('#horizon').inputValue()).toBe('77');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('settings out of range are refused with an error on its own line; a long error leaves the progress bar whole', async () => {
    const { page, errors } = await openPage('preset=paper000-table4&seeds=51&horizon=60', { width: 360, height: 740 });
    const error = page.locator('#experiment-error');
    expect(await error.isVisible()).toBe(true);
    expect(await error.textContent()).toContain('Seeds must be a whole number from 1 to 50 (got 51)');
    expect(await page.locator('#seeds').getAttribute('aria-invalid')).toBe('true');
    // Styled as an error: a coloured text and border, below the buttons, not beside them.
    const style = await error.evaluate((element) => getComputedStyle(element).borderLeftStyle);
    expect(style).toBe('solid');
    const buttons = await page.locator('.buttons').boundingBox();
    expect((await error.boundingBox()).y).toBeGreaterThanOrEqual(buttons.y + buttons.height);
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await page.waitForTimeout(500);
    expect(await page.locator('#progress-text').textContent()).toBe('');
    expect(await page.locator('#results-title').isVisible()).toBe(false);

    // Fixing the value clears the message.
    await page.fill('#seeds', '1');
    await expect.poll(() => error.isVisible()).toBe(false);
    expect(await page.locator('#seeds').getAttribute('aria-invalid')).toBe('false');

    // A run that fails (a custom matroid whose rank exceeds its arms) says why, on its own line, and
    // the progress bar keeps most of the width.
    await page.selectOption('#preset', 'custom');
    await page.selectOption('#custom-environment', 'matroid');
    await page.getByLabel('arms K').fill('10');
    await page.getByLabel('arms K').dispatchEvent('change');
    await page.getByLabel('rank D (uniform)').fill('20');
    await page.getByLabel('rank D (uniform)').dispatchEvent('change');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 60_000 }).toMatch(/^Failed/);
    expect(await error.isVisible()).toBe(true);
    expect(await error.textContent()).toContain("INVALID_ARGUMENT: option 'rank' must be an integer in [1, 10]");
    const bar = await page.locator('#progress').boundingBox();
    expect(bar.width).toBeGreaterThan(180);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
