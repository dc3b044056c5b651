// Charts a visitor can read with many series (Liu et al.'s 32, arXiv:1812.06360), identical curves
// told apart, axes that do not cut points or overlap labels, tables that scroll on a phone with a
// cue, dark mode.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

async function runPreset(hash, options = {}) {
  const page = await demo.browser.newPage(options);
  const errors = watchErrors(page);
  await page.goto(`${demo.baseUrl}#${hash}`);
  await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
  await page.getByRole('button', { name: 'Run experiment' }).click();
  await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 150_000 }).toMatch(/^(Done|Failed|Cancelled)/);
  expect(await page.locator('#progress-text').textContent()).toMatch(/^Done/);
  return { page, errors };
}

// What Chart.js drew, read from the page's own Chart.js module (served by Vite). A string, so that
// Vitest's transform leaves the page's dynamic import alone.
const inCharts = (page, body) => page.evaluate(`import('/charts.js').then(({ Chart }) => { ${body} })`);

describe('charts and tables a visitor can read', () => {
  test('Liu et al. Figures 2–3: a colour per method, a dash per parameter, a marker per data set, a scrolling legend beside a wide plot; every bar labelled', async () => {
    const { page, errors } = await runPreset('preset=paper001-figures2-3&seeds=1&horizon=3');
    const series = await inCharts(page, `return Chart.getChart('curve-chart').data.datasets.filter((d) => !d.band)
      .map((d) => ({ label: d.label, colour: d.borderColor, dash: String(d.borderDash), marker: d.style.marker }));`);
    expect(series.length).toBe(32);
    // One colour per method (5 methods), and no two series drawn alike.
    const methodOf = (label) => label.split(/ [εa(BPd]/)[0].replace(/ tree$/, '');
    const colourOfMethod = new Map();
    for (const entry of series) {
      const method = methodOf(entry.label);
      if (!colourOfMethod.has(method)) colourOfMethod.set(method, entry.colour);
      expect(entry.colour, entry.label).toBe(colourOfMethod.get(method));
    }
    expect(new Set(series.map((entry) => entry.colour)).size).toBe(5);
    expect(new Set(series.map((entry) => `${entry.colour}|${entry.dash}|${entry.marker}`)).size).toBe(32);
    // The legend lists every series, scrolls, and leaves the plot most of the width.
    const legend = page.locator('#curve-legend');
    expect(await legend.locator('li').count()).toBe(32);
    expect(await legend.evaluate((element) => element.scrollHeight > element.clientHeight && getComputedStyle(element).overflowY === 'auto')).toBe(true);
    const plot = await page.locator('#curve-chart').boundingBox();
    const section = await page.locator('.charts').boundingBox();
    expect(plot.width).toBeGreaterThan(0.6 * section.width);
    // A legend button hides its series (mean and band) and shows it again.
    await legend.locator('button').first().click();
    expect(await inCharts(page, `const chart = Chart.getChart('curve-chart'); return [0, 1, 2].map((i) => chart.isDatasetVisible(i));`)).toEqual([false, false, false]);
    expect(await legend.locator('button').first().getAttribute('aria-pressed')).toBe('false');
    await legend.locator('button').first().click();
    // The time chart keeps a label on every one of its 32 bars.
    expect(await inCharts(page, `return Chart.getChart('time-chart').scales.y.ticks.length;`)).toBe(32);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  test('the trade-off chart: points at precision 1 are not cut, the log axis spans every point and its labels do not overlap', async () => {
    const { page, errors } = await runPreset('preset=paper001-figures2-3&seeds=1&horizon=3');
    const check = await inCharts(page, `
      const chart = Chart.getChart('tradeoff-chart');
      const x = chart.scales.x;
      const points = chart.data.datasets.flatMap((d, i) => chart.getDatasetMeta(i).data.map((element, j) => ({
        value: d.data[j], top: element.y - d.pointRadius, clip: d.clip, radius: d.pointRadius })));
      const ctx = chart.ctx;
      const labelled = x.getLabelItems().filter((item) => item.label !== null && item.label !== undefined && item.label !== '');
      const boxes = labelled.map((item) => {
        ctx.font = item.font.string;
        const half = ctx.measureText(String(item.label)).width / 2;
        return [item.options.translation[0] - half, item.options.translation[0] + half];
      }).sort((a, b) => a[0] - b[0]);
      return {
        points: points.length,
        atOne: points.filter((p) => p.value.y === 1).map((p) => ({ top: p.top, clip: p.clip, radius: p.radius })),
        inRange: points.every((p) => p.value.x > x.min && p.value.x < x.max),
        overlaps: boxes.slice(1).filter((box, i) => box[0] < boxes[i][1] + 2).length,
        labels: labelled.length,
      };`);
    expect(check.points).toBeGreaterThan(20);
    expect(check.inRange).toBe(true);
    expect(check.labels).toBeGreaterThan(1);
    expect(check.overlaps).toBe(0);
    for (const point of check.atOne) {
      expect(point.clip).toBeGreaterThanOrEqual(point.radius);
      expect(point.top).toBeGreaterThanOrEqual(0);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  test('identical curves are drawn with different dashes and named under the chart (Yang et al., arXiv:2103.02729, Table 2)', async () => {
    const { page, errors } = await runPreset('preset=paper000-table2&seeds=1&horizon=200');
    const note = page.locator('#curve-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/Identical results.*Linear TS = Sub-TS, shortlist/);
    const styles = await inCharts(page, `return Chart.getChart('curve-chart').data.datasets.filter((d) => !d.band).map((d) => d.borderColor + '|' + String(d.borderDash));`);
    expect(new Set(styles).size).toBe(styles.length);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('on a phone the results table scrolls sideways inside its box, with a visible cue, and the page does not', async () => {
    const { page, errors } = await runPreset('preset=paper000-table4&seeds=1&horizon=60', { viewport: { width: 360, height: 740 } });
    const box = page.locator('.table-scroll').first();
    expect(await box.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    expect(await box.evaluate((element) => element.previousElementSibling.checkVisibility())).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const plot = await page.locator('#curve-chart').boundingBox();
    expect(plot.width).toBeGreaterThan(280);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('dark mode follows prefers-color-scheme, charts included', async () => {
    const { page, errors } = await runPreset('preset=paper000-table4&seeds=1&horizon=60', { colorScheme: 'dark' });
    const brightness = (colour) => colour.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).reduce((sum, value) => sum + value, 0) / 3;
    const read = () => page.evaluate(`import('/charts.js').then(({ Chart }) => ({
      background: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.body).color,
      chartText: Chart.getChart('curve-chart').scales.x.options.ticks.color,
    }))`);
    const dark = await read();
    expect(brightness(dark.background)).toBeLessThan(60);
    expect(brightness(dark.text)).toBeGreaterThan(180);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(async () => brightness((await read()).background)).toBeGreaterThan(200);
    // The page's styles follow at once; the media query's change event, which recolours the
    // charts, fires at the page's next rendering step.
    await expect.poll(async () => (await read()).chartText).not.toBe(dark.chartText);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
