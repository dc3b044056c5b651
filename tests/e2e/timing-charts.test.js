// The timing charts in Chromium: time per step against K (the matroid and the linear presets) and
// total time against the horizon (Linear TS against Sub-TS, Linear Elim against Sub-Elim), each with its series, finite positive
// values and a verdict computed from them. Short horizons: the charts' shape is what is checked.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { presets } from '../../web/demo/presets.js';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

async function runPreset(hash) {
  const page = await demo.browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${demo.baseUrl}#${hash}`);
  await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
  await page.getByRole('button', { name: 'Run experiment' }).click();
  await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 150_000 }).toMatch(/^(Done|Failed|Cancelled)/);
  expect(await page.locator('#progress-text').textContent()).toMatch(/^Done/);
  return { page, errors };
}

// The series Chart.js drew (label, colour, points), from the page's own Chart.js module. A string,
// so that Vitest's transform leaves the page's dynamic import alone.
const seriesOf = (page, id) => page.evaluate(`import('/charts.js').then(({ Chart }) => {
  const chart = Chart.getChart('${id}');
  return { scales: [chart.options.scales.x.type, chart.options.scales.y.type],
    series: chart.data.datasets.map((d) => ({ label: d.label, colour: d.borderColor, points: d.data.map(({ x, y }) => [x, y]) })) };
})`);

function expectFinitePositive(series) {
  for (const { label, points } of series) {
    for (const [x, y] of points) {
      expect(Number.isFinite(x) && x > 0, label).toBe(true);
      expect(Number.isFinite(y) && y > 0, label).toBe(true);
    }
  }
}

describe('timing charts', () => {
  test('matroids: time per step against K for CUCB, FasterCUCB and CTS on every matroid, one colour per method', async () => {
    const { page, errors } = await runPreset('preset=matroid-scaling&seeds=1&horizon=20');
    expect(await page.locator('#arms-box').isVisible()).toBe(true);
    expect(await page.locator('#horizon-box').isVisible()).toBe(false);
    const { scales, series } = await seriesOf(page, 'arms-chart');
    expect(scales).toEqual(['logarithmic', 'logarithmic']);
    const sizes = [...new Set(presets.find((preset) => preset.id === 'matroid-scaling').scaling({ full: false }).map((run) => run.arms))];
    const labels = ['uniform', 'partition', 'graphic', 'transversal'].flatMap((kind) => ['CUCB', 'FasterCUCB', 'CTS'].map((method) => `${method}, ${kind}`));
    expect(series.map((entry) => entry.label).sort()).toEqual(labels.sort());
    for (const entry of series) expect(entry.points.map(([x]) => x), entry.label).toEqual(sizes);
    expectFinitePositive(series);
    const colours = new Map(series.map((entry) => [entry.label.split(',')[0], entry.colour]));
    expect(new Set(colours.values()).size).toBe(3);
    for (const entry of series) expect(entry.colour).toBe(colours.get(entry.label.split(',')[0]));
    // The legend lists them, and the verdict gives each method's measured growth.
    expect(await page.locator('#arms-legend li').count()).toBe(12);
    expect(await page.locator('#arms-verdict').textContent()).toMatch(/^Measured in this run, growth of the time per step from K = 10\^3 to 10\^5 \(K ×100\): CUCB ×[\d.]+ uniform.*FasterCUCB.*CTS/);
    // The chart-only runs stay out of the regret curves and the table.
    expect(await page.locator('#results-table tbody tr').count()).toBe(presets.find((preset) => preset.id === 'matroid-scaling').runs({ full: false }).length);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  test('linear: time per step against K for Linear TS, Sub-TS, Linear Elim and Sub-Elim', async () => {
    const { page, errors } = await runPreset('preset=paper000-time-vs-k&seeds=1&horizon=30');
    expect(await page.locator('#arms-box').isVisible()).toBe(true);
    const { scales, series } = await seriesOf(page, 'arms-chart');
    expect(scales).toEqual(['logarithmic', 'logarithmic']);
    const runs = presets.find((preset) => preset.id === 'paper000-time-vs-k').runs({ full: false });
    expect(series.map((entry) => entry.label)).toEqual(['Linear TS', 'Sub-TS', 'Linear Elim', 'Sub-Elim']);
    for (const entry of series) {
      expect(entry.points.map(([x]) => x), entry.label).toEqual(runs.filter((run) => run.method === entry.label).map((run) => run.arms));
    }
    expect(series[0].points.length).toBeGreaterThanOrEqual(3);
    expectFinitePositive(series);
    expect(new Set(series.map((entry) => entry.colour)).size).toBe(4);
    expect(await page.locator('#arms-verdict').textContent()).toMatch(/Linear TS ×[\d.]+; Sub-TS ×[\d.]+/);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  test('Linear TS against Sub-TS and Linear Elim against Sub-Elim: total time against the horizon, setup included, and a verdict per pair from the measured totals', async () => {
    const horizon = 500;
    const { page, errors } = await runPreset(`preset=paper000-crossover&seeds=1&horizon=${horizon}`);
    expect(await page.locator('#horizon-box').isVisible()).toBe(true);
    expect(await page.locator('#arms-box').isVisible()).toBe(false);
    const { scales, series } = await seriesOf(page, 'horizon-chart');
    expect(scales).toEqual(['logarithmic', 'logarithmic']);
    expect(series.map((entry) => entry.label)).toEqual(['Linear TS, K = 50,000', 'Sub-TS, K = 50,000', 'Linear Elim, K = 50,000', 'Sub-Elim, K = 50,000']);
    const checkpoints = [1, 2, 5, 10, 20, 50, 100, 200, horizon];
    for (const entry of series) {
      expect(entry.points.map(([x]) => x), entry.label).toEqual(checkpoints);
      // A total never decreases as the horizon grows, and starts with the setup.
      const totals = entry.points.map(([, y]) => y);
      expect(totals, entry.label).toEqual([...totals].sort((a, b) => a - b));
    }
    expectFinitePositive(series);
    expect(new Set(series.map((entry) => entry.colour)).size).toBe(4);
    const verdict = await page.locator('#horizon-verdict').textContent();
    expect(verdict).toMatch(/^(Sub-TS paid back its setup|Sub-TS's total time was below|Not within this horizon[^.]* Sub-TS)/);
    expect(verdict).toMatch(/(Sub-Elim paid back its setup|Sub-Elim's total time was below|Not within this horizon[^.]* Sub-Elim)/);
    expect(verdict).toContain(`T = ${horizon}`);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
