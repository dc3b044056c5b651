// One catalogue, many users (issue 31; docs/recommender.md, "Many users over one catalogue") through the package: the
// Catalogue's operations and errors, users over it choosing what a policy with its own copy of the arms
// chooses, small user snapshots that continue exactly (also after the catalogue changed) and are refused over
// another catalogue, the wasm heap a user costs, and the order of disposal.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, heapPerUser, loadModule, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();

// Arms and rewards from their own stream, so that every policy of a comparison sees the same.
function makeProblem(dim, seed) {
  const random = seededRandom(seed);
  const thetaStar = Float64Array.from(gaussian(random, dim));
  let nextId = 0;
  const features = new Map();
  return {
    thetaStar,
    features,
    arms(count) {
      const ids = Uint32Array.from({ length: count }, () => nextId++);
      const x = Float64Array.from(gaussian(random, count * dim));
      ids.forEach((id, i) => features.set(id, x.subarray(i * dim, (i + 1) * dim)));
      return { ids, x };
    },
    mean: (id) => features.get(id).reduce((sum, v, j) => sum + v * thetaStar[j], 0),
    reward(id) {
      return this.mean(id) + 0.5 * gaussian(random, 1)[0];
    },
  };
}

const userOptions = (catalogue) => ({ catalogue, seed: 11, horizon: 2000 });
// Whether the option table of a linear policy class has the option `name`.
const takes = (name, option) => sb.optionTable('linear-policy', sb[name].type).some((entry) => entry.name === option);

// Every registered linear policy as a user: the catalogue's index, and the options of the same policy
// over its own arms that choose as the user does (the elimination policies over a catalogue rank by
// kept widths: search 'widths'; catalogue-elimination.test.js has their filters and slates).
const policies = registeredClasses(sb, 'linear-policy', {
  'lin-ts': { index: { type: 'hnsw' } },
  'linear-elim': { own: { search: 'widths' } },
  'sub-elim': { own: { search: 'widths' } },
});

describe('Catalogue', () => {
  test('adds, removes, labels, builds and names itself', () => {
    const catalogue = new sb.Catalogue({ dim: 3, seed: 1 });
    expect(catalogue.dim).toBe(3);
    expect(catalogue.size).toBe(0);
    catalogue.add([10, 20, 30], [1, 0, 0, 0, 1, 0, 0, 0, 1], { labels: [4, 0, 6] });
    catalogue.add(new Uint32Array([40]), new Float32Array([1, 1, 1]));
    expect(catalogue.size).toBe(4);
    expect(catalogue.has(20)).toBe(true);
    catalogue.remove([20]);
    expect(catalogue.has(20)).toBe(false);
    const stats = catalogue.stats();
    expect(stats.identity).toMatch(/^[0-9a-f]{16}$/);
    expect(stats.size).toBe(3);
    expect(stats.labelled).toBe(2);
    expect(stats.index.type).toBe('hnsw');
    expect(stats.index.M).toBe(8);
    expect(catalogue.build()).toBe(0);
    expect(new sb.Catalogue({ dim: 3 }).stats().identity).not.toBe(stats.identity);
    const restored = sb.Catalogue.fromBytes(catalogue.toBytes());
    expect(restored).toBeInstanceOf(sb.Catalogue);
    expect(restored.stats()).toEqual(catalogue.stats());
    restored.dispose();
    catalogue.dispose();
    const options = sb.optionTable('catalogue', 'catalogue').filter((option) => !option.internal).map((option) => option.name);
    expect(options).toEqual(['dim', 'index', 'seed', 'modelDim', 'subspaceEnergy']);
  });

  test('bad input throws its code and changes nothing', () => {
    const catalogue = new sb.Catalogue({ dim: 2, index: { type: 'exact' } });
    catalogue.add([1, 2], [1, 2, 3, 4]);
    const before = catalogue.stats();
    expectBanditError(sb, () => catalogue.add([3], [1, 2, 3]), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => catalogue.add([3], [1, Number.NaN]), 'NON_FINITE');
    expectBanditError(sb, () => catalogue.add([1], [1, 2]), 'DUPLICATE_ID');
    expectBanditError(sb, () => catalogue.add([3, 4], [1, 2, 3, 4], { labels: [1] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => catalogue.add([3], [1, 2], { labels: [-1] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => catalogue.add([3], [1, 2], { label: [1] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => catalogue.remove([1, 9]), 'UNKNOWN_ID');
    expect(catalogue.stats()).toEqual(before);
    expectBanditError(sb, () => new sb.Catalogue({}), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.Catalogue({ dim: 2, index: { type: 'hnsw', efSerch: 3 } }), 'INVALID_ARGUMENT');
    const bytes = catalogue.toBytes();
    bytes[bytes.length - 20] ^= 1;
    expectBanditError(sb, () => sb.Catalogue.fromBytes(bytes), 'CORRUPT_STATE');
    catalogue.dispose();
    expectBanditError(sb, () => catalogue.add([5], [1, 1]), 'DISPOSED');
    expectBanditError(sb, () => catalogue.size, 'DISPOSED');
  });
});

describe('users over a catalogue', () => {
  // The user and a policy with its own copy of the arms, side by side, with the same rewards and changes.
  test.each(policies)(
    '%s over a catalogue (%j) chooses what it chooses with its own arms',
    (name, { index = { type: 'exact' }, own: ownOptions = {} }) => {
      const dim = 6;
      const catalogue = new sb.Catalogue({ dim, index, seed: 5 });
      const user = new sb[name](userOptions(catalogue));
      // A policy that searches an index searches the catalogue's kind of index over its own arms too.
      const own = new sb[name]({ dim, seed: 11, horizon: 2000, ...(takes(name, 'index') ? { index } : {}), ...ownOptions });
      const problem = makeProblem(dim, 7);
      const add = (count) => {
        const { ids, x } = problem.arms(count);
        catalogue.add(ids, x);
        own.addArms(ids, x);
      };
      add(300);
      for (let t = 0; t < 300; t++) {
        if (t % 100 === 50) {
          add(20);
          catalogue.remove([t, t + 1]);
          own.removeArms([t, t + 1]);
        }
        const arm = user.select();
        expect(own.select(), `step ${t}`).toBe(arm);
        const reward = problem.reward(arm);
        user.update(arm, reward);
        own.update(arm, reward);
      }
      expect(Array.from(user.theta())).toEqual(Array.from(own.theta()));
      expect(user.dim).toBe(dim);
      expect(user.armCount).toBe(catalogue.size);
      expect(user.stats().catalogue).toBe(catalogue.stats().identity);
      for (const object of [user, own, catalogue]) object.dispose();
    },
  );

  test('refuse what needs arms of their own', () => {
    const catalogue = new sb.Catalogue({ dim: 3, index: { type: 'exact' } });
    catalogue.add([1], [1, 2, 3]);
    for (const [name] of policies) {
      const user = new sb[name](userOptions(catalogue));
      expectBanditError(sb, () => user.addArms([2], [1, 1, 1]), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => user.removeArms([1]), 'INVALID_ARGUMENT');
      expect(user.select()).toBe(1);
      user.dispose();
      expectBanditError(sb, () => new sb[name]({ ...userOptions(catalogue), dim: 3 }), 'INVALID_ARGUMENT');
    }
    expectBanditError(sb, () => new sb.SubTS({ ...userOptions(catalogue), index: { type: 'exact' } }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.SubTS({ ...userOptions(catalogue), negativeRewardTransform: true }), 'INVALID_ARGUMENT');
    // The elimination policies over a catalogue keep widths: no stage index, no lifted search
    // (tests/js/catalogue-elimination.test.js); so does any policy with a `search` option.
    for (const [name] of policies.filter(([policy]) => takes(policy, 'search'))) {
      expectBanditError(sb, () => new sb[name]({ ...userOptions(catalogue), search: 'lifted' }), 'INVALID_ARGUMENT');
    }
    expectBanditError(sb, () => new sb.LinUCB({ catalogue: { dim: 3 } }), 'INVALID_ARGUMENT');
    const index = new sb.ExactIndex({ dim: 3 });
    expectBanditError(sb, () => new sb.LinUCB({ catalogue: index }), 'INVALID_ARGUMENT');
    index.dispose();
    catalogue.dispose();
  });

  test('see the catalogue\'s changes at their next call', () => {
    const catalogue = new sb.Catalogue({ dim: 2, index: { type: 'exact' } });
    catalogue.add([1], [1, 0]);
    const user = new sb.LinUCB(userOptions(catalogue));
    expect(user.select()).toBe(1);
    catalogue.add([2], [5, 5]);
    expect(user.hasArm(2)).toBe(true);
    expect(user.select()).toBe(2);
    catalogue.remove([2, 1]);
    expectBanditError(sb, () => user.update(2, 1), 'UNKNOWN_ID');
    expectBanditError(sb, () => user.select(), 'EMPTY');
    user.dispose();
    catalogue.dispose();
  });
});

describe('user snapshots', () => {
  test.each(registeredClasses(sb, 'linear-policy').map(([name]) => name))('%s: the model only, continuing exactly, also after the catalogue changed', (name) => {
    const dim = 5;
    const catalogue = new sb.Catalogue({ dim, index: { type: 'hnsw', M: 4, efConstruction: 8, efSearch: 1 }, seed: 2 });
    const problem = makeProblem(dim, 9);
    const batch = problem.arms(400);
    catalogue.add(batch.ids, batch.x);
    const options = { ...userOptions(catalogue), ...(name === 'SubTS' ? { shortlist: 1, auditBudget: 1 } : {}) };
    const original = new sb[name](options);
    for (let t = 0; t < 150; t++) {
      const arm = original.select();
      original.update(arm, problem.reward(arm));
    }
    const bytes = original.toBytes();
    expect(bytes.length).toBeLessThan(16 * 1024);
    const restored = sb[name].fromBytes(bytes, { catalogue });
    expect(restored).toBeInstanceOf(sb[name]);
    // The catalogue gains and loses arms after the save; both continue alike.
    catalogue.remove(Uint32Array.from({ length: 30 }, (_, i) => i));
    const arriving = problem.arms(40);
    catalogue.add(arriving.ids, arriving.x);
    for (let t = 0; t < 150; t++) {
      const arm = original.select();
      expect(restored.select(), `step ${t}`).toBe(arm);
      const reward = problem.reward(arm);
      original.update(arm, reward);
      restored.update(arm, reward);
    }
    expect(restored.toBytes()).toEqual(original.toBytes());
    // A catalogue loaded from this one's snapshot (another process would) is the same catalogue.
    const elsewhere = sb.Catalogue.fromBytes(catalogue.toBytes());
    sb[name].fromBytes(bytes, { catalogue: elsewhere }).dispose();
    // Another catalogue, or none, is refused naming the reason; so is a catalogue for a state with its own arms.
    const other = new sb.Catalogue({ dim, index: { type: 'exact' } });
    other.add(batch.ids, batch.x);
    expect(() => sb[name].fromBytes(bytes, { catalogue: other })).toThrow(/saved over catalogue [0-9a-f]{16}, not over catalogue/);
    expectBanditError(sb, () => sb[name].fromBytes(bytes, { catalogue: other }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb[name].fromBytes(bytes), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb[name].fromBytes(bytes, { catalog: catalogue }), 'INVALID_ARGUMENT');
    const own = new sb[name]({ dim });
    expectBanditError(sb, () => sb[name].fromBytes(own.toBytes(), { catalogue }), 'INVALID_ARGUMENT');
    const damaged = bytes.slice();
    damaged[damaged.length - 40] ^= 4;
    expectBanditError(sb, () => sb[name].fromBytes(damaged, { catalogue }), 'CORRUPT_STATE');
    for (const object of [original, restored, elsewhere, other, own, catalogue]) object.dispose();
  });

  test('a user at d = 32 loads well under a millisecond', () => {
    const dim = 32;
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    const problem = makeProblem(dim, 4);
    const batch = problem.arms(2000);
    catalogue.add(batch.ids, batch.x);
    const user = new sb.SubTS(userOptions(catalogue));
    for (let t = 0; t < 50; t++) {
      const arm = user.select();
      user.update(arm, problem.reward(arm));
    }
    const bytes = user.toBytes();
    const times = [];
    for (let repeat = 0; repeat < 300; repeat++) {
      const start = performance.now();
      const restored = sb.SubTS.fromBytes(bytes, { catalogue });
      times.push(performance.now() - start);
      restored.dispose();
    }
    times.sort((a, b) => a - b);
    const median = times[times.length >> 1];
    console.log(`[catalogue] SubTS user at d = 32: ${bytes.length} bytes, fromBytes median ${(median * 1000).toFixed(0)} us, p90 ${(times[Math.floor(times.length * 0.9)] * 1000).toFixed(0)} us (wasm, Node)`);
    // Generous against a loaded machine.
    expect(median).toBeLessThan(1);
    user.dispose();
    catalogue.dispose();
  });
});

describe('memory and disposal', () => {
  test('100 users over 20,000 x 32 cost at most 64 KiB of wasm heap each', () => {
    const dim = 32;
    const catalogue = new sb.Catalogue({ dim, seed: 3 });
    const problem = makeProblem(dim, 12);
    const batch = problem.arms(20000);
    catalogue.add(batch.ids, batch.x);
    // The shared graph is built now, so that what follows is what the users themselves cost.
    catalogue.build();
    const report = [];
    // Every registered policy: 64 KiB a user beside what it keeps an arm. LinUCB keeps nothing per
    // arm with `widths: 'direct'` (its default kept widths add 12 bytes an arm, below); the
    // elimination policies keep 13 bytes an arm (catalogue-elimination.test.js).
    const perType = {
      'lin-ucb': { options: { widths: 'direct' } }, 'linear-elim': { bytesPerArm: 13 }, 'sub-elim': { bytesPerArm: 13 },
    };
    for (const [name, { options = {}, bytesPerArm = 0 }] of registeredClasses(sb, 'linear-policy', perType)) {
      const perUser = heapPerUser(sb, 100, (u) => new sb[name]({ catalogue, seed: u, ...options }), (arm) => problem.reward(arm));
      report.push(`${name} ${(perUser / 1024).toFixed(1)} KiB`);
      expect(perUser, name).toBeLessThanOrEqual(bytesPerArm * 20000 + 64 * 1024);
    }
    const kept = heapPerUser(sb, 10, (u) => new sb.LinUCB({ catalogue, seed: u }), (arm) => problem.reward(arm));
    report.push(`LinUCB with kept widths ${(kept / 1024).toFixed(1)} KiB`);
    expect(kept).toBeGreaterThanOrEqual(12 * 20000);
    expect(kept).toBeLessThanOrEqual(12 * 20000 + 64 * 1024);
    console.log(`[catalogue] wasm heap per user over 20,000 x 32: ${report.join(', ')}`);
    catalogue.dispose();
  }, 120_000);

  test('a catalogue disposed first lives on for its users; users disposed first leave it working', () => {
    const problem = makeProblem(4, 1);
    const batch = problem.arms(200);
    const catalogue = new sb.Catalogue({ dim: 4, seed: 1 });
    catalogue.add(batch.ids, batch.x);
    // A user of every registered policy.
    const users = policies.map(([name]) => new sb[name]({ catalogue }));
    const saved = users[0].toBytes();
    const First = users[0].constructor;
    catalogue.dispose();
    expect(catalogue.disposed).toBe(true);
    expectBanditError(sb, () => catalogue.has(1), 'DISPOSED');
    expectBanditError(sb, () => new First({ catalogue }), 'DISPOSED');
    expectBanditError(sb, () => First.fromBytes(saved, { catalogue }), 'DISPOSED');
    for (const user of users) {
      for (let t = 0; t < 20; t++) {
        const arm = user.select();
        user.update(arm, problem.reward(arm));
      }
      expect(user.armCount).toBe(200);
      expect(user.toBytes().length).toBeGreaterThan(0);
    }
    const allocated = sb.memoryUsage().allocatedBytes;
    for (const user of users) user.dispose();
    // The last user's dispose frees the catalogue's arms and graph.
    expect(sb.memoryUsage().allocatedBytes).toBeLessThan(allocated - 200 * 4 * 8);

    const second = new sb.Catalogue({ dim: 4, seed: 1 });
    second.add(batch.ids, batch.x);
    const user = new sb.LinTS({ catalogue: second });
    user.select();
    user.dispose();
    expect(second.size).toBe(200);
    second.add([100000], [1, 2, 3, 4]);
    expect(second.has(100000)).toBe(true);
    second.dispose();
  });

  test('a catalogue disposed by a getter of the options is DISPOSED, not used', () => {
    const catalogue = new sb.Catalogue({ dim: 2 });
    const options = {
      catalogue,
      get seed() {
        catalogue.dispose();
        return 1;
      },
    };
    expectBanditError(sb, () => new sb.SubTS(options), 'DISPOSED');
  });
});
