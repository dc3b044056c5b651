// examples/evaluate-log (issue 55): a log written with the package (an exploring LinUCB's decide() and
// sb.formatDecision), evaluated by the package's command line (the bin of package.json) against a
// baseline; the report has its shape, and on this simple case (both populations frozen and
// deterministic, so their online truth is exact) the intervals cover the truth and tell the two apart.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cli, evaluateArgs, writeShop } from '../../examples/evaluate-log/main.mjs';

let folder, truth;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'evaluate-log-test-'));
  truth = await writeShop(folder, { users: 40, records: 100, seed: 1 });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('examples/evaluate-log', () => {
  test('the log is JSON lines of decisions with their users and propensities', () => {
    const lines = readFileSync(join(folder, 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(40 * 100);
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(expect.arrayContaining(['user', 'arm', 'reward', 'propensity', 'eventId']));
      expect(line.propensity).toBeGreaterThan(0);
      expect(line.propensity).toBeLessThanOrEqual(1);
    }
    // The logger explores: some decisions had a small propensity.
    expect(Math.min(...lines.map((line) => line.propensity))).toBeLessThan(0.1);
  });

  test('the command line\'s report covers the online truth and tells candidate from baseline', () => {
    const report = JSON.parse(cli([...evaluateArgs(folder), '--json']));
    expect(report.users).toBe(40);
    for (const estimator of ['ips', 'snips', 'dm', 'dr']) {
      for (const estimate of [report[estimator], report.baseline[estimator]]) {
        expect(Object.keys(estimate)).toEqual(expect.arrayContaining(['value', 'low', 'high', 'n', 'effectiveSampleSize']));
        expect(estimate.n).toBe(40 * 100);
        expect(estimate.low).toBeLessThanOrEqual(estimate.value);
        expect(estimate.high).toBeGreaterThanOrEqual(estimate.value);
      }
      expect(Object.keys(report.difference[estimator])).toEqual(expect.arrayContaining(['value', 'low', 'high']));
    }
    expect(truth.difference).toBeGreaterThan(0.2);
    for (const estimator of ['ips', 'dr']) {
      expect(report[estimator].low, `${estimator} candidate`).toBeLessThanOrEqual(truth.candidate);
      expect(report[estimator].high, `${estimator} candidate`).toBeGreaterThanOrEqual(truth.candidate);
      expect(report.baseline[estimator].low, `${estimator} baseline`).toBeLessThanOrEqual(truth.baseline);
      expect(report.baseline[estimator].high, `${estimator} baseline`).toBeGreaterThanOrEqual(truth.baseline);
      expect(report.difference[estimator].low, `${estimator} difference`).toBeLessThanOrEqual(truth.difference);
      expect(report.difference[estimator].high, `${estimator} difference`).toBeGreaterThanOrEqual(truth.difference);
      // Not so wide as to say nothing: the candidate's interval leaves out the baseline's truth.
      expect(report[estimator].low, `${estimator} candidate`).toBeGreaterThan(truth.baseline);
    }
    // The paired difference tells them apart: dr's interval leaves out 0.
    expect(report.difference.dr.low).toBeGreaterThan(0);
  });

  test('the printed report names candidate, baseline and difference', () => {
    const text = cli(evaluateArgs(folder));
    expect(text).toMatch(/^4000 logged decisions of 40 users/);
    for (const title of ['candidate', 'baseline', 'difference']) expect(text).toMatch(new RegExp(`^${title}$`, 'm'));
    expect(text).toMatch(/^ {2}dr +[-\d.]+ +\[[-\d.]+, [-\d.]+\]$/m);
  });
});
