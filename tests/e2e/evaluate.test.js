// The demo's "Evaluate offline" section in Chromium: a uniformly random log, three policies'
// estimates with their intervals beside the true values, drawn and tabulated; most intervals hold
// the truth, and no page error occurs.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

describe('the demo evaluates policies offline', () => {
  test('every estimator of three policies is shown with its interval and true value; most intervals cover it', async () => {
    const page = await demo.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(demo.baseUrl);
    await expect.poll(() => page.locator('#evaluate-run').isEnabled(), { timeout: 30_000 }).toBe(true);
    await page.fill('#evaluate-records', '4000');
    await page.getByRole('button', { name: 'Log and evaluate' }).click();
    await expect.poll(() => page.locator('#evaluate-table tbody tr').count(), { timeout: 60_000 }).toBe(15);
    const rows = await page.locator('#evaluate-table tbody tr').evaluateAll((nodes) => nodes.map((node) => ({ ...node.dataset })));
    expect(new Set(rows.map((row) => row.policy))).toEqual(new Set(['LinUCB', 'LinTS', 'SubTS']));
    expect(new Set(rows.map((row) => row.estimator))).toEqual(new Set(['replay', 'ips', 'snips', 'dm', 'dr']));
    const covered = Number(await page.locator('#evaluate-summary').getAttribute('data-covered'));
    // About 95% expected; 12 of 15 leaves room for chance while a broken estimator would miss.
    expect(covered).toBeGreaterThanOrEqual(12);
    expect(await page.locator('#evaluate-summary').textContent()).toContain('intervals hold the true value');
    const drawn = await page.locator('#evaluate-chart').evaluate((canvas) => canvas.width > 0 && canvas.height > 0);
    expect(drawn).toBe(true);
    expect(await page.locator('#evaluate-error').isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
