import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { presets } from '../../web/demo/presets.js';
import { startDemo, watchErrors } from './chromium.js';

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

async function openPage(hash) {
  const page = await browser.newPage({ acceptDownloads: true });
  const errors = watchErrors(page);
  await page.goto(`${baseUrl}#${hash}`);
  await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
  return { page, errors };
}

async function runAndWait(page) {
  await page.getByRole('button', { name: 'Run experiment' }).click();
  await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 120_000 }).toMatch(/^(Done|Failed|Cancelled)/);
  return page.locator('#progress-text').textContent();
}

// Pixels of a chart's canvas that are neither transparent nor near-white: what Chart.js drew.
function colouredPixels(page, selector) {
  return page.evaluate((canvasSelector) => {
    const canvas = document.querySelector(canvasSelector);
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let coloured = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && !(pixels[i] > 240 && pixels[i + 1] > 240 && pixels[i + 2] > 240)) coloured++;
    return coloured;
  }, selector);
}

describe('experiments in the demo (Chromium, Web Workers)', () => {
  // Every preset at its small scale with a short horizon (its own T is for people, not for CI).
  test.each(presets.map((preset) => [preset.id]))('preset %s runs and draws its chart and tables', async (id) => {
    const { page, errors } = await openPage(`preset=${id}&seeds=1&horizon=60`);
    expect(await runAndWait(page)).toMatch(/^Done/);
    const preset = presets.find((entry) => entry.id === id);
    const runCount = preset.runs({ full: false }).length;
    await expect.poll(() => page.locator('#results-table tbody tr').count()).toBe(runCount);
    expect(await page.locator('#paper-table tbody tr').count()).toBeGreaterThan(0);
    if (preset.summary) {
      // The preset's own column (Liu et al. (arXiv:1812.06360) Figure 1: the percentile
      // suboptimality, within [0, 1]).
      expect(await page.locator('#results-table thead').textContent()).toContain(preset.summary.column);
      const cells = await page.locator('#results-table tbody tr td:last-child').allTextContents();
      // Many users: the median user's final regret, its quartiles and a user's bytes.
      if (preset.perUser) for (const cell of cells) expect(cell).toMatch(/^\d+\.\d \(\d+\.\d–\d+\.\d\); [\d,]+ B$/);
      else for (const cell of cells) expect(Number(cell)).toBeGreaterThanOrEqual(0);
    }
    if (preset.tradeoff) {
      // Liu et al.'s precision-against-speedup chart is shown and drawn.
      expect(await page.locator('#tradeoff-box').isVisible()).toBe(true);
      expect(await colouredPixels(page, '#tradeoff-chart')).toBeGreaterThan(500);
    } else {
      expect(await page.locator('#tradeoff-box').isVisible()).toBe(false);
    }
    expect(await colouredPixels(page, '#curve-chart')).toBeGreaterThan(500);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  // 100 users over one catalogue: each curve is the median user's regret and its band the users'
  // quartiles, drawn from the runs' per-user results (20 steps per user here).
  test('the catalogue preset draws per-user regret bands', async () => {
    const { page, errors } = await openPage('preset=catalogue-users&seeds=1&horizon=2000');
    expect(await runAndWait(page)).toMatch(/^Done/);
    const preset = presets.find((entry) => entry.id === 'catalogue-users');
    const runs = preset.runs({ full: false });
    expect(runs.every((run) => run.environment.users === 100)).toBe(true);
    await expect.poll(() => page.locator('#results-table tbody tr').count()).toBe(runs.length);
    // The chart's datasets, from the page's own Chart.js module (a string, so that Vitest's
    // transform leaves the page's dynamic import alone): per series a lower band, an upper band
    // filled down to it, and the median line.
    const drawn = await page.evaluate(`import('/charts.js').then(({ Chart }) => {
      const chart = Chart.getChart('curve-chart');
      return { title: chart.options.scales.y.title.text,
        datasets: chart.data.datasets.map((set) => ({ label: set.label, band: Boolean(set.band), fill: set.fill ?? null, y: set.data.map((point) => point.y) })) };
    })`);
    expect(drawn.title).toMatch(/median over users/);
    const lines = drawn.datasets.filter((set) => !set.band);
    expect(lines.map((set) => set.label)).toEqual(runs.map((run) => run.label));
    let widened = 0;
    for (const line of lines) {
      const [lower, upper] = drawn.datasets.filter((set) => set.band && set.label.startsWith(`${line.label} (`));
      expect(upper.fill).toBe('-1');
      // A band identical to one drawn already is left empty (stacked translucent bands would darken).
      if (lower.y.length === 0) {
        expect(lines.some((other) => other !== line && other.y.join() === line.y.join())).toBe(true);
        widened++;
        continue;
      }
      expect(lower.y.length).toBe(line.y.length);
      for (let i = 0; i < line.y.length; i++) {
        expect(lower.y[i]).toBeLessThanOrEqual(line.y[i] + 1e-9);
        expect(line.y[i]).toBeLessThanOrEqual(upper.y[i] + 1e-9);
      }
      // Users differ: at the end the band has a width (one shared taste and seed would not).
      if (upper.y.at(-1) > lower.y.at(-1)) widened++;
    }
    expect(widened).toBe(lines.length);
    expect(await colouredPixels(page, '#curve-chart')).toBeGreaterThan(500);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  test('Cancel stops a long run', async () => {
    const { page, errors } = await openPage('preset=paper000-table1&full=1&seeds=4&horizon=20000');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await expect.poll(() => page.locator('#cancel').isEnabled()).toBe(true);
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 10_000 }).toMatch(/^Cancelled/);
    expect(await page.locator('#run-experiment').isEnabled()).toBe(true);
    const after = await page.locator('#progress').evaluate((element) => element.value);
    await page.waitForTimeout(1500);
    expect(await page.locator('#progress').evaluate((element) => element.value)).toBe(after);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('export produces CSV and JSON files whose content matches the run', async () => {
    const { page, errors } = await openPage('preset=paper000-table4&seeds=2&horizon=100');
    expect(await runAndWait(page)).toMatch(/^Done/);
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
    const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    const json = JSON.parse(readFileSync(await jsonDownload.path(), 'utf8'));
    const runs = presets.find((preset) => preset.id === 'paper000-table4').runs({ full: false });
    expect(json.runs.length).toBe(runs.length * 2);
    expect(csv[0]).toBe('run,seed,t,cumulativeRegret,cumulativeReward');
    expect(csv.length - 1).toBe(json.runs.reduce((sum, run) => sum + run.t.length, 0));
    // The table's final regret is the mean over seeds of the exported runs' final values.
    const first = runs[0].label;
    const finals = json.runs.filter((run) => run.label === first).map((run) => run.cumulativeRegret.at(-1));
    const mean = finals.reduce((a, b) => a + b, 0) / finals.length;
    const cell = await page.locator('#results-table tbody tr').first().locator('td').nth(2).textContent();
    expect(Number.parseFloat(cell)).toBeCloseTo(mean, 1);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('usable on a narrow screen and from the keyboard: labelled controls, titled axes, no sideways scroll', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const errors = watchErrors(page);
    await page.goto(`${baseUrl}#preset=paper000-table4&seeds=1&horizon=60`);
    await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
    // Every visible control has an accessible name (a label or an aria-label; a button its text).
    const unnamed = await page.evaluate(() => [...document.querySelectorAll('input, select, button, progress')]
      .filter((control) => control.offsetParent !== null)
      .filter((control) => !(control.labels?.length || control.getAttribute('aria-label') || control.textContent.trim()))
      .map((control) => control.id || control.outerHTML));
    expect(unnamed).toEqual([]);
    // Reach the Run experiment button with Tab alone and start the run with Enter.
    let tabs = 0;
    while (tabs < 30 && (await page.evaluate(() => document.activeElement?.id)) !== 'run-experiment') {
      await page.keyboard.press('Tab');
      tabs++;
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('run-experiment');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 120_000 }).toMatch(/^Done/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // The charts the run drew name both axes (the page's own Chart.js module, served by Vite).
    // (A string, so that Vitest's transform leaves the page's dynamic import alone.)
    const axisTitles = await page.evaluate(`import('/charts.js').then(({ Chart }) =>
      ['curve-chart', 'time-chart'].map((id) => {
        const { scales } = Chart.getChart(id).options;
        return [scales.x.title.text, scales.y.title.text];
      }))`);
    for (const [x, y] of axisTitles) {
      expect(x).toBeTruthy();
      expect(y).toBeTruthy();
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('a URL with a configuration restores it', async () => {
    const { page, errors } = await openPage('preset=paper000-table5&full=1&seeds=3&horizon=123');
    expect(await page.locator('#preset').inputValue()).toBe('paper000-table5');
    expect(await page.locator('#full').isChecked()).toBe(true);
    expect(await page.locator('#seeds').inputValue()).toBe('3');
    expect(await page.locator('#horizon').inputValue()).toBe('123');
    await page.selectOption('#preset', 'paper000-table2');
    expect(page.url()).toContain('preset=paper000-table2');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  test('the custom mode generates every option as a control, runs, and restores from its URL', async () => {
    const { page, errors } = await openPage('preset=custom&seeds=1&horizon=60');
    expect(await page.locator('#custom-fieldset').isVisible()).toBe(true);
    // Switching the environment regenerates its options and the policies of its family.
    await page.selectOption('#custom-environment', 'matroid');
    await expect.poll(() => page.locator('[data-key="matroid.kind"]').count()).toBe(1);
    await page.getByLabel('arms K').fill('200');
    await page.getByLabel('arms K').dispatchEvent('change');
    await page.locator('#custom-policy-cts').check();
    await page.getByLabel('accuracy ε').fill('0.2');
    await page.getByLabel('accuracy ε').dispatchEvent('change');
    expect(await runAndWait(page)).toMatch(/^Done/);
    // CUCB and FasterCUCB are checked by default, CTS by hand: three rows.
    await expect.poll(() => page.locator('#results-table tbody tr').count()).toBe(3);
    const url = page.url();
    expect(decodeURIComponent(url)).toContain('"K":200');
    expect(decodeURIComponent(url)).toContain('"epsilon":0.2');

    const restored = await openPage(url.split('#')[1]);
    expect(await restored.page.locator('#custom-environment').inputValue()).toBe('matroid');
    expect(await restored.page.getByLabel('arms K').inputValue()).toBe('200');
    expect(await restored.page.locator('#custom-policy-cts').isChecked()).toBe(true);
    expect(await restored.page.getByLabel('accuracy ε').inputValue()).toBe('0.2');
    // A linear policy with its index type and the index's own options.
    await restored.page.selectOption('#custom-environment', 'linear');
    await restored.page.locator('#custom-policy-lin-ucb').uncheck();
    await restored.page.locator('#custom-policy-lin-ts').uncheck();
    await restored.page.locator('#custom-policy-sub-ts').check();
    await expect.poll(() => restored.page.getByLabel('links per node M').count()).toBe(2);
    expect(await runAndWait(restored.page)).toMatch(/^Done/);
    await expect.poll(() => restored.page.locator('#results-table tbody tr').count()).toBe(1);
    // Many users over one catalogue from the custom form: the chart draws the median user and the band.
    await restored.page.getByLabel('users sharing the arms').fill('10');
    await restored.page.getByLabel('users sharing the arms').dispatchEvent('change');
    expect(await runAndWait(restored.page)).toMatch(/^Done/);
    const title = await restored.page.evaluate(`import('/charts.js').then(({ Chart }) => Chart.getChart('curve-chart').options.scales.y.title.text)`);
    expect(title).toMatch(/median over users/);
    expect(errors).toEqual([]);
    expect(restored.errors).toEqual([]);
    await page.close();
    await restored.page.close();
  }, 180_000);
});
