import { expect, test } from 'vitest';
import { loadModule } from './helpers.js';
import { findPreset } from '../../web/demo/presets.js';

const sb = await loadModule();

// The demo's headline preset, at laptop scale, with the policies' default options: every policy
// must learn (issue 13: Linear Elim's regret used to grow linearly, 26,937 after 2,000 steps).
test('Yang et al. (arXiv:2103.02729) Table 1 at laptop scale: every policy learns with its default options', () => {
  const preset = findPreset('paper000-table1');
  const horizon = preset.horizon.small;
  for (const run of preset.runs({ full: false })) {
    expect(run.policy.beta).toBeUndefined();
    expect(run.policy.radius).toBeUndefined();
    const result = sb.simulate({ environment: run.environment, policy: run.policy, horizon, seed: 1, recordEvery: horizon / 4 });
    const regret = result.cumulativeRegret;
    const at = (t) => regret[result.t.indexOf(t)];
    // Uniform play costs about 13 per step on these unnormalised Gaussian arms (26,000 over the
    // run); a learning policy's last quarter costs a small fraction of its first.
    expect(result.t.at(-1)).toBe(horizon);
    expect(at(horizon), run.label).toBeLessThan(3000);
    expect(at(horizon) - at(0.75 * horizon), run.label).toBeLessThan(0.25 * at(0.25 * horizon));
  }
}, 120_000);

// The changing-tastes preset at laptop scale: with tastes that switch, the default forgetting ends
// with less regret than 'none'; its environments say they drift.
test('changing tastes at laptop scale: the default forgetting beats none when tastes switch', () => {
  const preset = findPreset('changing-tastes');
  const horizon = preset.horizon.small;
  const regret = {};
  for (const run of preset.runs({ full: false })) {
    const result = sb.simulate({ environment: run.environment, policy: run.policy, horizon, seed: 1, recordEvery: horizon });
    regret[run.label] = result.cumulativeRegret.at(-1);
  }
  expect(regret['Linear TS, auto (default), switching']).toBeLessThan(0.8 * regret['Linear TS, none, switching']);
  expect(regret['LinUCB, auto (default), rotating']).toBeLessThan(0.8 * regret['LinUCB, none, rotating']);
}, 120_000);
