// Off-policy evaluation through the package (issue 33, docs/evaluation.md): the estimates
// against the policy's true value on a log of uniformly random decisions, the policy left unchanged,
// policies given as options, coded errors naming the record, the decision log's file formats and the
// `evaluate` command of the CLI.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();
const dim = 6;
const armCount = 25;

function makeProblem(seed) {
  const random = seededRandom(seed);
  const thetaStar = Float64Array.from(gaussian(random, dim));
  const ids = Uint32Array.from({ length: armCount }, (_, i) => 100 + i);
  const features = Float64Array.from(gaussian(random, armCount * dim), (v) => v / Math.sqrt(dim));
  const mean = (id) => {
    const row = (id - 100) * dim;
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += features[row + j] * thetaStar[j];
    return sum;
  };
  const reward = (id) => mean(id) + 0.5 * gaussian(random, 1)[0];
  // n decisions of a uniformly random logger.
  const uniformLog = (n) => {
    const arms = Uint32Array.from({ length: n }, () => ids[Math.floor(random() * armCount)]);
    return { arms, rewards: Float64Array.from(arms, reward), propensities: new Float64Array(n).fill(1 / armCount) };
  };
  return { ids, features, mean, reward, uniformLog, random };
}

function warmPolicy(Class, problem, pulls, seed = 1) {
  const policy = new Class({ dim, seed });
  policy.addArms(problem.ids, problem.features);
  for (let t = 0; t < pulls; t++) {
    const arm = problem.ids[Math.floor(problem.random() * armCount)];
    policy.update(arm, problem.reward(arm));
  }
  return policy;
}

// The frozen policy's value: its choices' mean rewards over many selections of a copy.
function frozenValue(policy, problem, draws = 5000) {
  const copy = policy.constructor.fromBytes(policy.toBytes());
  let total = 0;
  for (let i = 0; i < draws; i++) total += problem.mean(copy.select());
  copy.dispose();
  return total / draws;
}

describe('evaluate', () => {
  test('every estimator is near the truth (within 4 standard errors) and leaves the policy unchanged', () => {
    for (const Class of [sb.LinTS, sb.LinUCB, sb.SubTS]) {
      const problem = makeProblem(7);
      const policy = warmPolicy(Class, problem, 40);
      const before = policy.toBytes();
      const truth = frozenValue(policy, problem);
      const report = sb.evaluate({ policy, log: problem.uniformLog(4000) });
      expect(policy.toBytes()).toEqual(before);
      for (const name of ['ips', 'snips', 'dm', 'dr']) {
        const { value, low, high, n, effectiveSampleSize } = report[name];
        const standardError = (high - low) / (2 * 1.96);
        expect(Math.abs(value - truth), `${Class.name} ${name}`).toBeLessThan(4 * standardError);
        expect(n).toBe(4000);
        expect(effectiveSampleSize).toBeGreaterThan(0);
      }
      // Replay counts about n / K records, and estimates the learning policy's mean reward.
      expect(report.replay.n).toBeGreaterThan(4000 / armCount / 2);
      expect(report.replay.n).toBeLessThan(4000 / armCount * 2);
      expect(report.target.draws).toBe(1000);
      policy.dispose();
    }
  });

  test('on clicks the reward model is logistic by default: with one-hot arms it is each arm\'s click rate', () => {
    // One-hot features and a negligible penalty: a logistic model (or a linear one) can fit every
    // arm's logged click rate exactly, so DM of a deterministic policy is its arm's click rate in
    // the log, which SNIPS also is.
    const k = 8;
    const random = seededRandom(5);
    const ids = Uint32Array.from({ length: k }, (_, i) => i);
    const features = Float64Array.from({ length: k * k }, (_, i) => (i % (k + 1) === 0 ? 1 : 0));
    const rates = Array.from({ length: k }, () => 0.05 + 0.5 * random());
    const n = 4000;
    const arms = Uint32Array.from({ length: n }, () => Math.floor(random() * k));
    const log = { arms, rewards: Float64Array.from(arms, (a) => (random() < rates[a] ? 1 : 0)), propensities: new Float64Array(n).fill(1 / k) };
    const policy = new sb.LinUCB({ dim: k, seed: 1 });
    policy.addArms(ids, features);
    for (let t = 0; t < 20; t++) policy.update(ids[t % k], random() < rates[t % k] ? 1 : 0);
    const report = sb.evaluate({ policy, log, estimators: ['snips', 'dm', 'dr'], lambda: 1e-6 });
    expect(report.rewardModel).toBe('logistic');
    expect(report.dm.value).toBeCloseTo(report.snips.value, 4);
    // DR's cross-fitted halves each predict the other half's rate: near it, not equal.
    expect(report.dr.value).toBeCloseTo(report.snips.value, 2);
    expect(report.dm.high - report.dm.low).toBeGreaterThan(0);
    const linear = sb.evaluate({ policy, log, estimators: ['dm'], lambda: 1e-6, rewardModel: 'linear' });
    expect(linear.rewardModel).toBe('linear');
    expect(linear.dm.value).toBeCloseTo(report.snips.value, 4);
    // Rewards beyond [0, 1] are not clicks: 'auto' is linear for them, 'logistic' refuses them.
    const ratings = { ...log, rewards: Float64Array.from(log.rewards, (r) => 1 + 4 * r) };
    expect(sb.evaluate({ policy, log: ratings, estimators: ['dm'] }).rewardModel).toBe('linear');
    expect(expectBanditError(sb, () => sb.evaluate({ policy, log: ratings, rewardModel: 'logistic' }), 'INVALID_ARGUMENT').message).toContain('not in [0, 1]');
    expect(expectBanditError(sb, () => sb.evaluate({ policy, log, rewardModel: 'probit' }), 'INVALID_ARGUMENT').message).toContain('rewardModel');
    expect(sb.evaluate({ policy, log, estimators: ['ips'] }).rewardModel).toBeUndefined();
    policy.dispose();
  });

  test('a policy given as options, with its arms or over a catalogue, gives what the object gives', () => {
    const problem = makeProblem(3);
    const log = problem.uniformLog(500);
    const object = new sb.LinTS({ dim, seed: 4 });
    object.addArms(problem.ids, problem.features);
    const expected = sb.evaluate({ policy: object, log, estimators: ['ips', 'dr', 'replay'] });
    const asOptions = sb.evaluate({ policy: { type: 'lin-ts', dim, seed: 4 }, arms: { ids: problem.ids, features: problem.features }, log, estimators: ['ips', 'dr', 'replay'] });
    expect(asOptions).toEqual(expected);
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    catalogue.add(problem.ids, problem.features);
    const user = new sb.LinTS({ catalogue, seed: 4 });
    expect(sb.evaluate({ policy: user, log, estimators: ['ips', 'dr', 'replay'] })).toEqual(expected);
    expect(sb.evaluate({ policy: { type: 'lin-ts', catalogue, seed: 4 }, log, estimators: ['ips', 'dr', 'replay'] })).toEqual(expected);
    for (const owned of [user, catalogue, object]) owned.dispose();
  });

  test('clipping caps the weights: a clip below the weights lowers IPS and raises the effective sample size', () => {
    const problem = makeProblem(5);
    const policy = warmPolicy(sb.LinUCB, problem, 40);
    const log = problem.uniformLog(2000);
    const plain = sb.evaluate({ policy, log, estimators: ['ips'] });
    const clipped = sb.evaluate({ policy, log, estimators: ['ips'], clip: 5 });
    // LinUCB is deterministic: every weight is K = 25 or 0, and clipped to 5 it is 5 or 0.
    expect(clipped.ips.value).toBeCloseTo(plain.ips.value / 5, 10);
    expect(clipped.ips.effectiveSampleSize).toBeCloseTo(plain.ips.effectiveSampleSize, 10);
    policy.dispose();
  });

  test('bad logs and options are coded errors naming the record or the key; nothing leaks', () => {
    const problem = makeProblem(9);
    const policy = warmPolicy(sb.LinTS, problem, 5);
    const log = problem.uniformLog(20);
    const allocated = sb.memoryUsage().allocatedBytes;
    const bad = (changes, code, fragment) => {
      const error = expectBanditError(sb, () => sb.evaluate({ policy, log: { ...log, ...changes }, estimators: ['ips'] }), code);
      expect(error.message).toContain(fragment);
    };
    const propensities = log.propensities.slice();
    propensities[4] = 0;
    bad({ propensities }, 'INVALID_ARGUMENT', 'record 4');
    propensities[4] = 1.5;
    bad({ propensities }, 'INVALID_ARGUMENT', 'record 4');
    const arms = log.arms.slice();
    arms[7] = 5;
    bad({ arms }, 'UNKNOWN_ID', 'record 7');
    bad({ rewards: log.rewards.subarray(1) }, 'INVALID_ARGUMENT', 'lengths');
    bad({ rewards: [...log.rewards.subarray(1), NaN] }, 'NON_FINITE', 'log.rewards[19]');
    expect(expectBanditError(sb, () => sb.evaluate({ policy, log, clipp: 3 }), 'INVALID_ARGUMENT').message).toContain("did you mean 'clip'");
    expectBanditError(sb, () => sb.evaluate({ policy, log: { ...log, eventIds: [] } }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.evaluate({ policy, log, estimators: ['ipw'] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.evaluate({ policy, log }, {}), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.evaluate({ policy: { type: 'lin-ts', dim }, log }), 'INVALID_ARGUMENT');
    expect(sb.memoryUsage().allocatedBytes).toBe(allocated);
    policy.dispose();
    expectBanditError(sb, () => sb.evaluate({ policy, log }), 'DISPOSED');
  });

  // Issue 54, point 5: one record's position had cost 1.9 s and 490 MB at 5,000,000 and
  // OUT_OF_MEMORY at 2^32-1. A slate shows distinct arms, so a position at or beyond the policy's arm
  // count is refused before anything is sized by it; the wasm memory does not grow.
  test('a position beyond the largest slate the policy can show is refused and costs nothing', () => {
    const problem = makeProblem(13);
    const policy = warmPolicy(sb.LinTS, problem, 5);
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    catalogue.add(problem.ids, problem.features);
    const user = new sb.LinUCB({ catalogue, seed: 3 });
    const log = { ...problem.uniformLog(4), positions: [0, 1, 0, armCount - 1] };
    for (const target of [policy, user]) {
      // The last position the policy can fill is evaluated (a warm-up: the heap may grow once here).
      expect(sb.evaluate({ policy: target, log }).positions).toHaveLength(armCount);
      const { heapBytes, allocatedBytes } = sb.memoryUsage();
      for (const position of [armCount, 5_000_000, 10_000_000, 2 ** 32 - 1]) {
        const error = expectBanditError(sb, () => sb.evaluate({ policy: target, log: { ...log, positions: [0, position, 0, 1] } }), 'INVALID_ARGUMENT');
        expect(error.message).toContain(`record 1: position ${position} is beyond the largest slate`);
        expect(sb.memoryUsage()).toEqual({ heapBytes, allocatedBytes });
      }
    }
    for (const owned of [user, catalogue, policy]) owned.dispose();
  });

  test('decision logs refuse strings for numbers (JSON lines) and hex or exponents for integers (CSV)', () => {
    const line = (fields) => JSON.stringify({ arm: 3, reward: 1, propensity: 0.5, ...fields });
    const refused = (text, fragment) => expect(expectBanditError(sb, () => sb.parseDecisionLog(text), 'INVALID_ARGUMENT').message).toContain(fragment);
    refused(line({ arm: '3' }), 'line 1: arm "3" is a string');
    refused(line({ reward: '1' }), 'line 1: reward "1" is a string');
    refused(line({ propensity: '0.5' }), 'line 1: propensity "0.5" is a string');
    refused(`${line({})}
${line({ position: '0x10' })}`, 'line 2: position "0x10" is a string');
    refused(line({ position: '' }), 'line 1: position "" is a string');
    refused(line({ exclude: '1 2' }), 'line 1: exclude is a string');
    refused(line({ labels: [1, '2'] }), 'line 1: labels "2" is a string');
    refused(line({ position: 1.5 }), 'is not an integer');
    refused('arm,reward,propensity\n0x10,1,0.5\n', 'line 2: arm "0x10" is not a decimal integer');
    refused('arm,reward,propensity,position\n3,1,0.5,0x1\n', 'position "0x1" is not a decimal integer');
    refused('arm,reward,propensity,position\n3,1,0.5,5e6\n', 'position "5e6" is not a decimal integer');
    refused('arm,reward,propensity,exclude\n3,1,0.5,1 0b10\n', 'exclude "0b10" is not a decimal integer');
    refused('arm,reward,propensity\n3,0x1,0.5\n', 'reward "0x1" is not a decimal number');
    refused('arm,reward,propensity\n3,Infinity,0.5\n', 'reward "Infinity" is not a decimal number');
    expectBanditError(sb, () => sb.formatDecision({ arm: '3', reward: 1, propensity: 0.5 }), 'INVALID_ARGUMENT');
    // Decimal text and JSON numbers as before, exponents included where a number is not an integer.
    const csv = sb.parseDecisionLog('arm,reward,propensity,position,exclude\n3, 1e-1 ,.5,2,1 2\n4,-2,1,,\n');
    expect(Array.from(csv.rewards)).toEqual([0.1, -2]);
    expect(Array.from(csv.positions)).toEqual([2, 0]);
    expect(sb.parseDecisionLog(line({ position: 1e1, exclude: [7] })).positions[0]).toBe(10);
  });

  test('decision logs: JSON lines and CSV read the same; formatDecision writes what parseDecisionLog reads', () => {
    const decisions = [{ arm: 3, reward: 1, propensity: 0.25, eventId: 'a' }, { arm: 9, reward: 0, propensity: 0.5 }];
    const lines = decisions.map((d) => sb.formatDecision(d)).join('\n');
    const csv = 'time,propensity,arm,reward\n1,0.25,3,1\n2,0.5,9,0\n';
    for (const text of [lines, csv]) {
      const log = sb.parseDecisionLog(text);
      expect(Array.from(log.arms)).toEqual([3, 9]);
      expect(Array.from(log.rewards)).toEqual([1, 0]);
      expect(Array.from(log.propensities)).toEqual([0.25, 0.5]);
    }
    expect(expectBanditError(sb, () => sb.parseDecisionLog('arm,reward,propensity\n1,2,0\n'), 'INVALID_ARGUMENT').message).toContain('line 2');
    expect(expectBanditError(sb, () => sb.parseDecisionLog('{"arm":1,"reward":2}\n'), 'INVALID_ARGUMENT').message).toContain("line 1: no 'propensity'");
    expect(expectBanditError(sb, () => sb.parseDecisionLog('arm,reward\n1,2\n'), 'INVALID_ARGUMENT').message).toContain("'propensity'");
    expectBanditError(sb, () => sb.formatDecision({ arm: -1, reward: 0, propensity: 1 }), 'INVALID_ARGUMENT');
  });

  test('the CLI evaluates a log file against a policy config or a saved state', () => {
    const directory = mkdtempSync(join(tmpdir(), 'sublinear-evaluate-'));
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    const problem = makeProblem(11);
    const log = problem.uniformLog(300);
    const logPath = join(directory, 'log.jsonl');
    writeFileSync(logPath, Array.from(log.arms, (arm, i) => sb.formatDecision({ arm, reward: log.rewards[i], propensity: log.propensities[i] })).join('\n'));
    const configPath = join(directory, 'policy.json');
    writeFileSync(configPath, JSON.stringify({ policy: { type: 'lin-ucb', dim }, arms: { ids: Array.from(problem.ids), features: Array.from(problem.features) } }));
    const printed = run('evaluate', '--log', logPath, '--policy', configPath);
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^dr\s+-?\d/m);
    const json = run('evaluate', '--log', logPath, '--policy', configPath, '--json', '--estimators', 'ips,dm');
    const policy = new sb.LinUCB({ dim });
    policy.addArms(problem.ids, problem.features);
    expect(JSON.parse(json.stdout)).toEqual(sb.evaluate({ policy, log, estimators: ['ips', 'dm'] }));
    // Clicks: the reward model is named, and --reward-model chooses it.
    const clicksPath = join(directory, 'clicks.jsonl');
    writeFileSync(clicksPath, Array.from(log.arms, (arm, i) => sb.formatDecision({ arm, reward: log.rewards[i] > 0 ? 1 : 0, propensity: log.propensities[i] })).join('\n'));
    const clicks = run('evaluate', '--log', clicksPath, '--policy', configPath);
    expect(clicks.stdout).toContain('(logistic reward model for dm and dr)');
    const forced = run('evaluate', '--log', clicksPath, '--policy', configPath, '--json', '--estimators', 'dm', '--reward-model', 'linear');
    expect(JSON.parse(forced.stdout).rewardModel).toBe('linear');
    // A user's saved state over a catalogue snapshot.
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    catalogue.add(problem.ids, problem.features);
    const user = new sb.SubTS({ catalogue, seed: 2 });
    writeFileSync(join(directory, 'catalogue.bin'), catalogue.toBytes());
    writeFileSync(join(directory, 'user.bin'), user.toBytes());
    const saved = run('evaluate', '--log', logPath, '--state', join(directory, 'user.bin'), '--catalogue', join(directory, 'catalogue.bin'), '--json', '--estimators', 'replay,ips');
    expect(saved.status, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout).ips.n).toBe(300);
    const broken = run('evaluate', '--log', configPath, '--policy', configPath);
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toContain('INVALID_ARGUMENT');
    // A record beyond the largest slate, and hex for an integer option, are refused.
    const farPath = join(directory, 'far.jsonl');
    writeFileSync(farPath, `${sb.formatDecision({ arm: problem.ids[0], reward: 1, propensity: 0.5, position: 5_000_000 })}\n`);
    const far = run('evaluate', '--log', farPath, '--policy', configPath);
    expect(far.status).not.toBe(0);
    expect(far.stderr).toContain('INVALID_ARGUMENT: log record 0: position 5000000');
    const hex = run('evaluate', '--log', logPath, '--policy', configPath, '--draws', '0x10');
    expect(hex.status).not.toBe(0);
    expect(hex.stderr).toContain('--draws "0x10" is not a decimal integer');
    for (const owned of [user, catalogue, policy]) owned.dispose();
  });
});
