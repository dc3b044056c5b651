// Decisions through the package (issue 33, API v2): decide() / decideSlate() return the arms, an event
// id and propensities; reward(eventId, r) comes back late, out of order, also after the arm left the
// catalogue; pending decisions are bounded and saved; bad calls are coded errors that change nothing;
// a log written from decide() traffic is what sb.evaluate reads.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 4;

function arms(n, seed) {
  const random = seededRandom(seed);
  const ids = Uint32Array.from({ length: n }, (_, i) => 5 * i + 2);
  const features = gaussian(random, n * dim);
  const theta = gaussian(random, dim);
  const mean = new Map(Array.from(ids, (id, i) => [id, features.subarray(i * dim, (i + 1) * dim).reduce((sum, x, j) => sum + x * theta[j], 0)]));
  return { ids, features, mean, random };
}

// One seed's estimate against the truth: within two half-widths of its 95% interval (about 4
// standard errors, so that the test fails by chance about once in 15,000 runs; the intervals'
// 95% coverage over 50 seeds is tested natively, tests/cpp/off_policy_evaluation_test.cpp).
function expectWithin(estimate, truth, label) {
  const halfWidth = (estimate.high - estimate.low) / 2;
  expect(halfWidth, label).toBeGreaterThan(0);
  expect(Math.abs(estimate.value - truth), label).toBeLessThan(2 * halfWidth);
}

// Every registered linear policy (a new one is a case by itself); `randomized`: its choice is drawn
// (propensities below 1, with a standard error), else it is deterministic (propensity 1).
const types = registeredClasses(sb, 'linear-policy', { 'lin-ts': { randomized: true }, 'sub-ts': { randomized: true } });

describe('decide and reward', () => {
  for (const [name, { randomized = false }] of types) {
    test(`${name}: decide picks what select picks, reward updates as update does`, () => {
      const w = arms(40, 1);
      const decided = new sb[name]({ dim, seed: 4 });
      const selected = new sb[name]({ dim, seed: 4 });
      for (const policy of [decided, selected]) policy.addArms(w.ids, w.features);
      const d = decided.decide();
      expect(Object.keys(d).sort()).toEqual(['arm', 'eventId', 'propensity', 'propensityError']);
      expect(d.arm).toBe(selected.select());
      expect(d.eventId).toBe(1);
      if (randomized) {
        expect(d.propensity).toBeGreaterThan(0);
        expect(d.propensity).toBeLessThanOrEqual(1);
        expect(d.propensityError).toBeGreaterThan(0);
      } else {
        expect(d.propensity).toBe(1);
        expect(d.propensityError).toBe(0);
      }
      decided.reward(d.eventId, 0.75);
      selected.update(d.arm, 0.75);
      expect(decided.theta()).toEqual(selected.theta());
      expect(decided.stats().decisions).toMatchObject({ decisions: 1, pending: 0, rewarded: 1, expired: 0, maxPending: 1000 });
      decided.dispose();
      selected.dispose();
    });
  }

  // Issue 54, point 6: with explore 0 a decision draws what a selection would. Thompson sampling's
  // propensity estimate draws from a stream derived from the policy's engine without advancing it,
  // so the two policies agree at every step, not only the first: own arms (every eligible arm ranked,
  // and 600 arms, searched candidates) and over a catalogue, single arms, filtered slates.
  for (const [name] of types) {
    test(`${name}: decide + reward chooses what select + update does, step for step, over several seeds`, () => {
      for (const [seed, count, overCatalogue] of [[1, 40, false], [2, 40, false], [3, 600, false], [4, 40, true], [5, 600, true]]) {
        const w = arms(count, 10 + seed);
        const owned = [];
        const make = () => {
          if (!overCatalogue) {
            const policy = new sb[name]({ dim, seed });
            policy.addArms(w.ids, w.features);
            owned.push(policy);
            return policy;
          }
          // One catalogue each: the two users' searches do not share a graph built a slice per search.
          const catalogue = new sb.Catalogue({ dim, seed: 8 });
          catalogue.add(w.ids, w.features);
          const user = new sb[name]({ catalogue, seed });
          owned.unshift(catalogue);  // disposed after the users
          owned.push(user);
          return user;
        };
        const decided = make();
        const selected = make();
        const label = `${name} seed ${seed}, ${count} arms${overCatalogue ? ' over a catalogue' : ''}`;
        const exclude = [w.ids[1], w.ids[3]];
        for (let t = 0; t < 30; t++) {
          if (t % 6 === 5) {
            const s = decided.decideSlate(3, { exclude });
            const shown = selected.selectSlate(3, { exclude });
            expect(Array.from(s.arms), `${label}, step ${t}`).toEqual(Array.from(shown));
            const rewards = Array.from(shown, (arm) => w.mean.get(arm));
            decided.reward(s.eventId, rewards);
            shown.forEach((arm, j) => selected.update(arm, rewards[j]));
          } else {
            const d = decided.decide();
            const arm = selected.select();
            expect(d.arm, `${label}, step ${t}`).toBe(arm);
            const reward = w.mean.get(arm) + 0.3 * gaussian(w.random, 1)[0];
            decided.reward(d.eventId, reward);
            selected.update(arm, reward);
          }
        }
        expect(decided.theta(), label).toEqual(selected.theta());
        for (const object of owned.reverse()) object.dispose();
      }
    });
  }

  test('slates: one reward per position, late and out of order, exactly once', () => {
    const w = arms(30, 2);
    const policy = new sb.LinTS({ dim, seed: 1 });
    policy.addArms(w.ids, w.features);
    const slates = Array.from({ length: 4 }, () => policy.decideSlate(3, { labels: [0] }));
    for (const s of slates) {
      expect(s.arms).toBeInstanceOf(Uint32Array);
      expect(s.arms.length).toBe(3);
      expect(s.propensities).toBeInstanceOf(Float64Array);
      expect(s.propensities.length).toBe(3);
      for (const p of s.propensities) expect(p > 0 && p <= 1).toBe(true);
    }
    expect(slates.map((s) => s.eventId)).toEqual([1, 2, 3, 4]);
    expectBanditError(sb, () => policy.reward(slates[2].eventId, 1), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.reward(slates[2].eventId, [1, 2]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.reward(slates[2].eventId, [1, Number.NaN, 0]), 'NON_FINITE');
    expect(policy.stats().updates).toBe(0);
    for (const s of [slates[3], slates[0], slates[2], slates[1]]) policy.reward(s.eventId, Array.from(s.arms, (arm) => w.mean.get(arm)));
    expect(policy.stats().updates).toBe(12);
    expectBanditError(sb, () => policy.reward(slates[0].eventId, [0, 0, 0]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.reward(99, [0, 0, 0]), 'UNKNOWN_ID');
    expectBanditError(sb, () => policy.decide({ k: 2 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.decideSlate(0), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.decide({ labels: [9] }), 'EMPTY');
    policy.dispose();
  });

  // Issue 52: 10^7 rewards for a slate of 3 were copied to the wasm heap (80 MB, about a second)
  // before the core found that they did not match it. More rewards than any slate decided are
  // refused from the array's length.
  test('more rewards than any slate decided are refused from their length, before one is read', () => {
    const w = arms(30, 3);
    const policy = new sb.LinUCB({ dim, seed: 1 });
    policy.addArms(w.ids, w.features);
    const slate = policy.decideSlate(3);
    let reads = 0;
    const counted = (length) => new Proxy(new Array(length).fill(0.5), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^(?:0|[1-9][0-9]*)$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    expectBanditError(sb, () => policy.reward(slate.eventId, counted(1e7)), 'INVALID_ARGUMENT');
    expect(reads).toBe(0);
    // A length that some slate has is read, and checked against this decision by the core.
    expectBanditError(sb, () => policy.reward(slate.eventId, counted(2)), 'INVALID_ARGUMENT');
    expect(reads).toBe(2);
    policy.reward(slate.eventId, counted(3));
    expect(policy.stats().updates).toBe(3);
    policy.dispose();
  });

  test('a reward for an arm that left the catalogue still updates the user; memory is bounded', () => {
    const w = arms(50, 3);
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' }, seed: 1 });
    catalogue.add(w.ids, w.features);
    const user = new sb.SubTS({ catalogue, seed: 2, maxPending: 5 });
    const first = user.decide();
    catalogue.remove([first.arm]);
    expect(user.hasArm(first.arm)).toBe(false);
    user.reward(first.eventId, 1);
    expect(user.stats().updates).toBe(1);
    const before = sb.memoryUsage().allocatedBytes;
    const events = [];
    for (let t = 0; t < 500; t++) events.push(user.decideSlate(4).eventId);
    const stats = user.stats().decisions;
    expect(stats).toMatchObject({ decisions: 501, pending: 5, expired: 495 });
    expect(stats.pendingBytes).toBe(5 * (4 * 4 + 4 * dim * 8 + 8));
    expect(sb.memoryUsage().allocatedBytes - before).toBeLessThan(65536);
    expectBanditError(sb, () => user.reward(events[0], [1, 1, 1, 1]), 'UNKNOWN_ID');
    user.reward(events.at(-1), [1, 0, 0, 0]);
    // Saved with its pending decisions, the user continues exactly over the same catalogue.
    const restored = sb.SubTS.fromBytes(user.toBytes(), { catalogue });
    for (const policy of [user, restored]) policy.reward(events.at(-2), [0, 1, 0, 0]);
    expect(restored.toBytes()).toEqual(user.toBytes());
    expect(restored.decideSlate(4)).toEqual(user.decideSlate(4));
    for (const object of [user, restored, catalogue]) object.dispose();
  });

  test('the exploration mix: exact propensities that match the frequencies; a decide() log evaluates', () => {
    const w = arms(20, 4);
    const logger = new sb.LinUCB({ dim, seed: 3, explore: 0.5, maxPending: 50 });
    logger.addArms(w.ids, w.features);
    const best = logger.select();
    const counts = new Map();
    const lines = [];
    const random = seededRandom(9);
    const n = 4000;
    for (let t = 0; t < n; t++) {
      const d = logger.decide();
      expect(d.propensity).toBe(d.arm === best ? 0.5 + 0.5 / 20 : 0.5 / 20);
      counts.set(d.arm, (counts.get(d.arm) ?? 0) + 1);
      lines.push(sb.formatDecision({ arm: d.arm, reward: w.mean.get(d.arm) + 0.1 * (random() - 0.5), propensity: d.propensity, eventId: d.eventId }));
    }
    expect(counts.size).toBe(20);
    const p = 0.525;
    expect(Math.abs(counts.get(best) / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n));
    // The logger is frozen (no rewards): its log evaluates the greedy policy, LinUCB without exploration.
    const target = new sb.LinUCB({ dim, seed: 3 });
    target.addArms(w.ids, w.features);
    const report = sb.evaluate({ policy: target, log: sb.parseDecisionLog(lines.join('\n')), estimators: ['ips', 'snips'] });
    const greedyTruth = w.mean.get(best);
    for (const estimator of ['ips', 'snips']) expectWithin(report[estimator], greedyTruth, estimator);
    for (const object of [logger, target]) object.dispose();
  });

  test('decideSlate traffic with filters, logged per position, evaluates per position', () => {
    const w = arms(30, 5);
    const labels = Uint32Array.from({ length: 30 }, (_, i) => i % 3);
    const logger = new sb.LinUCB({ dim, seed: 3, explore: 0.6 });
    logger.addArms(w.ids, w.features, { labels });
    const filters = [{ labels: [0, 1] }, { labels: [1, 2], exclude: [w.ids[1]] }, { exclude: [w.ids[0], w.ids[3]] }];
    const random = seededRandom(11);
    const lines = [];
    for (let t = 0; t < 3000; t++) {
      const filter = filters[t % filters.length];
      const s = logger.decideSlate(3, filter);
      s.arms.forEach((arm, position) => lines.push(sb.formatDecision({
        arm, reward: w.mean.get(arm) + 0.2 * (random() - 0.5), propensity: s.propensities[position], position, eventId: s.eventId, ...filter,
      })));
    }
    const log = sb.parseDecisionLog(lines.join('\n'));
    expect(log.positions.length).toBe(9000);
    expect(log.filters[3].exclude).toEqual(Uint32Array.of(w.ids[1]));
    const target = new sb.LinUCB({ dim, seed: 3 });
    target.addArms(w.ids, w.features, { labels });
    // The frozen deterministic target's value per position: its slate under each page's filters.
    const truth = [0, 1, 2].map((position) => filters.reduce((sum, filter) => sum + w.mean.get(target.selectSlate(3, filter)[position]), 0) / filters.length);
    const fresh = new sb.LinUCB({ dim, seed: 3 });
    fresh.addArms(w.ids, w.features, { labels });
    const report = sb.evaluate({ policy: fresh, log, estimators: ['ips', 'snips', 'dr'] });
    expect(report.positions.length).toBe(3);
    expect(report.target.contexts).toBe(9);
    for (const [position, estimates] of report.positions.entries()) {
      for (const name of ['ips', 'snips', 'dr']) expectWithin(estimates[name], truth[position], `${name} at ${position}`);
    }
    expectBanditError(sb, () => sb.evaluate({ policy: fresh, log: { ...log, positions: log.positions.subarray(1) } }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.evaluate({ policy: fresh, log: { ...log, filters: [{ exclude: [log.arms[0]] }, ...log.filters.slice(1)] } }), 'INVALID_ARGUMENT');
    for (const object of [logger, target, fresh]) object.dispose();
  });
});
