import { expect, test } from 'vitest';

// timing-results.js imports the page's chart module, which reads the colour scheme at load: Node
// has no matchMedia, and the verdicts do not depend on it.
globalThis.matchMedia ??= () => ({ matches: false, addEventListener() {} });
const { crossoverVerdict } = await import('../../web/demo/timing-results.js');

// The total-time chart's verdict under the demo's crossover preset, on made-up totals: what it says
// must follow from the numbers, for each pair of policies on the chart.
const t = [1, 10, 100, 1000, 10000];
const series = (method, totals) => ({ method, label: method, points: t.map((x, i) => ({ x, y: totals[i] })) });
const pair = { baseline: 'Linear TS', sublinear: 'Sub-TS' };

test('ahead at every checkpoint', () => {
  const verdict = crossoverVerdict([series('Linear TS', [2, 3, 4, 5, 6]), series('Sub-TS', [1, 2, 3, 4, 5])], pair);
  expect(verdict).toBe("Sub-TS's total time was below Linear TS's at every checkpoint, setup included; at T = 10,000 it was ×0.83 Linear TS's.");
});

test('a crossing between two checkpoints, found by interpolation', () => {
  const verdict = crossoverVerdict([series('Linear TS', [1, 2, 3, 4, 8]), series('Sub-TS', [3, 4, 5, 6, 6])], pair);
  // The gap goes from +2 at T = 1,000 to -2 at 10,000: zero half-way, at 5,500.
  expect(verdict).toMatch(/^Sub-TS paid back its setup: its total time fell below Linear TS's at about T = 5,500 \(between the checkpoints 1,000 and 10,000\)/);
});

test('behind with faster steps: the crossing the last rates would give', () => {
  const verdict = crossoverVerdict([series('Linear TS', [1, 2, 3, 4, 10]), series('Sub-TS', [5, 6, 7, 8, 11.5])], pair);
  // 0.39 against 0.67 ms per step: a gap of 1.5 s closes after 1.5 / 0.000278 = 5,400 more steps
  // (×1.1: 11.5 / 10 rounds down in binary).
  expect(verdict).toMatch(/^Not within this horizon: at T = 10,000 Sub-TS's total time was ×1\.1 Linear TS's\. Its steps were faster \(0\.39 against 0\.67 ms per step between T = 1,000 and 10,000\); at those rates it would pay back its setup at about T = 15,000\.$/);
});

test('behind with steps not faster yet: no claim that it never crosses', () => {
  const verdict = crossoverVerdict([series('Linear TS', [1, 2, 3, 4, 5]), series('Sub-TS', [5, 6, 7, 8, 10])], pair);
  expect(verdict).toMatch(/^Not within this horizon: at T = 10,000 Sub-TS's total time was ×2 Linear TS's, and its steps were not faster yet/);
  expect(verdict).toContain('a longer horizon may still cross');
  expect(verdict).not.toMatch(/not at this K/);
});

test('a pair missing from the chart gives no verdict', () => {
  expect(crossoverVerdict([series('Linear TS', [1, 2, 3, 4, 5])], pair)).toBe('');
});
