// Linear Elim and Sub-Elim over a catalogue (issue 31 item 2, issue 37 item 2): a user keeps its ridge
// model and 13 bytes an arm (the row order it last saw, a stage byte, a kept width ||x||^2_{V^-1}), never
// the features or a lifted index; it chooses what the same policy over its own copy of the arms chooses
// (search 'widths'), sees the catalogue's changes at its next call, and its snapshots continue exactly,
// also after the catalogue changed.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, heapPerUser, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

function makeProblem(dim, seed) {
  const random = seededRandom(seed);
  const thetaStar = Float64Array.from(gaussian(random, dim));
  let nextId = 0;
  const features = new Map();
  return {
    features,
    arms(count) {
      const ids = Uint32Array.from({ length: count }, () => nextId++);
      const x = Float64Array.from(gaussian(random, count * dim));
      ids.forEach((id, i) => features.set(id, x.subarray(i * dim, (i + 1) * dim)));
      const labels = Uint32Array.from(ids, (id) => id % 3);
      return { ids, x, labels };
    },
    mean: (id) => features.get(id).reduce((sum, v, j) => sum + v * thetaStar[j], 0),
    reward(id) {
      return this.mean(id) + 0.5 * gaussian(random, 1)[0];
    },
  };
}

describe.each(['LinearElim', 'SubElim'])('%s over a catalogue', (name) => {
  test('chooses what the policy over its own arms chooses, through the catalogue\'s changes, filters and slates', () => {
    const dim = 6;
    const problem = makeProblem(dim, 21);
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    const user = new sb[name]({ catalogue, seed: 5, horizon: 1000 });
    const own = new sb[name]({ dim, search: 'widths', seed: 5, horizon: 1000 });
    const add = (count) => {
      const batch = problem.arms(count);
      catalogue.add(batch.ids, batch.x, { labels: batch.labels });
      own.addArms(batch.ids, batch.x, { labels: batch.labels });
    };
    add(300);
    for (let t = 0; t < 400; t++) {
      if (t % 80 === 40) {
        add(10);
        const gone = [t / 2, t / 2 + 1];
        catalogue.remove(gone);
        own.removeArms(gone);
      }
      if (t % 7 === 3) {
        const filter = { exclude: [t + 5], labels: [0, 2] };
        const slate = user.selectSlate(3, filter);
        expect(Array.from(own.selectSlate(3, filter)), `step ${t}`).toEqual(Array.from(slate));
        for (const arm of slate) {
          expect(arm % 3).not.toBe(1);
          const reward = problem.reward(arm);
          user.update(arm, reward);
          own.update(arm, reward);
        }
        continue;
      }
      const arm = user.select();
      expect(own.select(), `step ${t}`).toBe(arm);
      const reward = problem.reward(arm);
      user.update(arm, reward);
      own.update(arm, reward);
    }
    const stats = user.stats();
    expect(stats.search).toBe('widths');
    expect(stats.catalogue).toBe(catalogue.stats().identity);
    expect(stats.eliminated).toBeGreaterThan(0);
    expect(stats.arrivals).toBeGreaterThan(0);
    expect(stats.departures).toBe(10);
    expect(stats.perArmBytes).toBeGreaterThanOrEqual(13 * catalogue.size);
    expect(Array.from(user.theta())).toEqual(Array.from(own.theta()));
    for (const object of [user, own, catalogue]) object.dispose();
  });

  test('snapshots hold the model and 13 bytes an arm, continue exactly after the catalogue changed, and catch up when loaded late', () => {
    const dim = 8;
    const problem = makeProblem(dim, 33);
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    const batch = problem.arms(2000);
    catalogue.add(batch.ids, batch.x, { labels: batch.labels });
    const original = new sb[name]({ catalogue, seed: 8, horizon: 2000 });
    for (let t = 0; t < 200; t++) {
      const arm = original.select();
      original.update(arm, problem.reward(arm));
    }
    const bytes = original.toBytes();
    // 2,000 arms of 8 doubles are 128,000 bytes; the user holds 13 bytes an arm and its 8 x 8 model.
    expect(bytes.length).toBeLessThan(2000 * 14 + 4096);
    const restored = sb[name].fromBytes(bytes, { catalogue });
    expect(restored).toBeInstanceOf(sb[name]);
    catalogue.remove(Uint32Array.from({ length: 25 }, (_, i) => i * 3));
    const arriving = problem.arms(30);
    catalogue.add(arriving.ids, arriving.x);
    for (let t = 0; t < 150; t++) {
      const arm = original.select();
      expect(restored.select(), `step ${t}`).toBe(arm);
      const reward = problem.reward(arm);
      original.update(arm, reward);
      restored.update(arm, reward);
    }
    expect(restored.toBytes()).toEqual(original.toBytes());
    // A state saved before the change loads over the changed catalogue and catches up at its next call.
    const late = sb[name].fromBytes(bytes, { catalogue });
    expect(catalogue.has(late.select())).toBe(true);
    // Refusals over another catalogue, none, or damaged bytes: tests/js/catalogue.test.js, for every policy.
    for (const object of [original, restored, late, catalogue]) object.dispose();
  });

  test('refuses arms of its own, a dimension, an index and the lifted search, changing nothing', () => {
    const catalogue = new sb.Catalogue({ dim: 3, index: { type: 'exact' } });
    catalogue.add([1, 2], [1, 0, 0, 0, 1, 0]);
    const user = new sb[name]({ catalogue, seed: 1 });
    expectBanditError(sb, () => user.addArms([3], [1, 1, 1]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => user.removeArms([1]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => user.select({ labels: [9] }), 'EMPTY');
    expectBanditError(sb, () => user.selectSlate(0), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => user.update(7, 1), 'UNKNOWN_ID');
    expect(user.stats().selections).toBe(0);
    expect([1, 2]).toContain(user.select());
    expectBanditError(sb, () => new sb[name]({ catalogue, dim: 3 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb[name]({ catalogue, index: { type: 'exact' } }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb[name]({ catalogue, search: 'lifted' }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb[name]({ catalogue, search: 'nearest' }), 'INVALID_ARGUMENT');
    user.dispose();
    catalogue.dispose();
  });
});

test('an elimination user over 20,000 x 32 costs its model and about 13 bytes an arm of wasm heap', () => {
  const dim = 32;
  const count = 20000;
  const problem = makeProblem(dim, 12);
  const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
  const batch = problem.arms(count);
  catalogue.add(batch.ids, batch.x);
  const report = [];
  for (const name of ['LinearElim', 'SubElim']) {
    const perUser = heapPerUser(sb, 20, (u) => new sb[name]({ catalogue, seed: u }), (arm) => problem.reward(arm));
    report.push(`${name} ${(perUser / 1024).toFixed(1)} KiB (${(perUser / count).toFixed(1)} bytes an arm)`);
    // The features alone are 256 bytes an arm: a user holds 13, plus its d x d model (about 25 KiB).
    expect(perUser, name).toBeLessThanOrEqual(16 * count + 64 * 1024);
  }
  console.log(`[catalogue] wasm heap per elimination user over ${count} x ${dim}: ${report.join(', ')}`);
  catalogue.dispose();
}, 120_000);
