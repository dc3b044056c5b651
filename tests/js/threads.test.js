// Index construction on threads (issue 15): the threaded build in Node, what init() says it uses,
// a graph built on threads as good as one built on one thread, and Node exiting by itself.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import init from '../../dist/index.js';
import { expectBanditError, gaussian, seededRandom } from './helpers.js';

const cores = os.availableParallelism();
const dim = 16;
const n = 20000;
const K = 10;

let one;
let all;
beforeAll(async () => {
  [one, all] = await Promise.all([init({ threads: 1 }), init()]);
});

function recallAt10(index, exact, queries) {
  let recall = 0;
  for (let q = 0; q < queries.length / dim; q++) {
    const query = queries.subarray(q * dim, (q + 1) * dim);
    const truth = new Set(exact.search(query, K).ids);
    for (const id of index.search(query, K).ids) recall += truth.has(id) ? 1 / K : 0;
  }
  return recall / (queries.length / dim);
}

describe('threads', () => {
  test('Node gets every core, and one thread when it asks', async () => {
    expect(all.threads).toBe(cores);
    if (cores >= 2) expect(all.threadsReason).toMatch(/Node worker threads/);
    expect(one.threads).toBe(1);
    expect(one.threadsReason).toMatch(/threads: 1/);
    const bounded = await init({ threads: cores + 3 });
    expect(bounded.threads).toBe(cores);
    if (cores >= 2) expect(bounded.threadsReason).toMatch(`${cores + 3} asked for`);
    for (const threads of [0, -1, 1.5, '2', null]) {
      await expect(init({ threads })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  test('this machine has two cores at least, so the threaded build is what Node loads', () => {
    // The premise of the next tests: on one core they would compare one thread with itself.
    expect(cores).toBeGreaterThanOrEqual(2);
    expect(all.threads).toBeGreaterThanOrEqual(2);
  });

  test('errors thrown deep in the core reach JavaScript as BanditErrors in both builds', () => {
    // emcc 3.1.6 with -pthread catches no C++ exception unless cpp/toolchain/ fixes its unwinder.
    for (const sb of [one, all]) {
      expectBanditError(sb, () => sb.optionTable('no-such-kind', 'x'), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => new sb.HnswIndex({ dim: 4, M: 0 }), 'INVALID_ARGUMENT');
      const index = new sb.ExactIndex({ dim: 2 });
      index.add([1], [1, 2]);
      expectBanditError(sb, () => index.add([1], [3, 4]), 'DUPLICATE_ID');
      expect(index.size).toBe(1);
      index.dispose();
    }
  });

  test('a graph built on threads finds what the one-thread graph finds, and loads in either build', () => {
    const random = seededRandom(5);
    const items = gaussian(random, n * dim);
    const queries = gaussian(random, 200 * dim);
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const exact = new one.ExactIndex({ dim });
    exact.add(ids, items);
    const built = {};
    for (const [name, sb] of [['one', one], ['all', all]]) {
      const index = new sb.HnswIndex({ dim, seed: 3, space: 'inner-product' });
      index.add(ids, items);
      // Two calls in a row with no turn of the event loop between them: the pool's Workers are
      // back in the pool when a build returns.
      expect(index.build(5000)).toBe(n - 5000);
      expect(index.build()).toBe(0);
      built[name] = { recall: recallAt10(index, exact, queries), bytes: index.toBytes(), stats: index.stats() };
      index.dispose();
    }
    expect(built.all.recall).toBeGreaterThanOrEqual(built.one.recall - 0.02);
    expect(built.one.recall).toBeGreaterThan(0.9);
    // Another graph: its nodes are numbered as the threads took them (equal bytes would mean the
    // build never ran concurrently).
    expect(Buffer.from(built.all.bytes).equals(Buffer.from(built.one.bytes))).toBe(false);
    expect(built.all.stats.distanceComputations / built.one.stats.distanceComputations).toBeCloseTo(1, 0);
    // A graph built on threads is an ordinary state: the single-thread build restores it (every
    // link validated) and answers as the original.
    const restored = one.HnswIndex.fromBytes(built.all.bytes);
    expect(restored.stats()).toEqual(built.all.stats);
    expect(recallAt10(restored, exact, queries)).toBe(built.all.recall);
    restored.dispose();
    exact.dispose();
  });

  test('Sub-TS builds a costly graph on the threads, and its default light graph on one thread', () => {
    const random = seededRandom(8);
    // Beyond the 10,000 arms of its index's space trial.
    const arms = 20000;
    const features = gaussian(random, arms * dim);
    const ids = Uint32Array.from({ length: arms }, (_, i) => i);
    const states = (options) => [one, all].map((sb) => {
      const policy = new sb.SubTS({ dim, seed: 2, ...options });
      policy.addArms(ids, features);
      expect(policy.buildIndex()).toBe(0);
      expect(policy.stats().index.built).toBe(arms);
      const bytes = Buffer.from(policy.toBytes());
      policy.dispose();
      return bytes;
    });
    // efConstruction 200 at d = 16 is worth threads: another graph than one thread's.
    const costly = states({ index: { type: 'hnsw', M: 16, efConstruction: 200 } });
    expect(costly[1].equals(costly[0])).toBe(false);
    // Its default graph (M 8, efConstruction 16) builds faster on one thread (HnswIndex's
    // kParallelWork): the same graph as the single-thread build's.
    const light = states({});
    expect(light[1].equals(light[0])).toBe(true);
  }, 120_000);

  test('a Node process that used the threaded build exits by itself', () => {
    const script = `import init from ${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)};
      const sb = await init();
      const index = new sb.HnswIndex({ dim: 4, seed: 1 });
      const n = 3000;
      index.add(Uint32Array.from({ length: n }, (_, i) => i), Float32Array.from({ length: n * 4 }, (_, i) => Math.sin(i)));
      console.log(sb.threads, index.build());`;
    const directory = mkdtempSync(path.join(os.tmpdir(), 'sb-threads-'));
    try {
      const file = path.join(directory, 'build.mjs');
      writeFileSync(file, script);
      // A process kept alive by its idle Workers would run into the timeout.
      const output = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
      expect(output.trim()).toBe(`${cores} 0`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('a Node process whose helper threads built slices and reviewed arms exits by itself', () => {
    // The helpers stay up between calls, asleep in their Workers: those must not keep Node alive.
    const script = `import init from ${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)};
      const sb = await init();
      const arms = 20000, dim = 8;
      const ids = Uint32Array.from({ length: arms }, (_, i) => i);
      const features = Float64Array.from({ length: arms * dim }, (_, i) => Math.sin(i * 0.7));
      for (const Policy of [sb.SubTS, sb.SubElim]) {
        const policy = new Policy({ dim, seed: 1 });
        policy.addArms(ids, features);
        for (let t = 0; t < 50; t++) policy.update(policy.select(), Math.cos(t));
        policy.dispose();
      }
      console.log(sb.threads, 'done');`;
    const directory = mkdtempSync(path.join(os.tmpdir(), 'sb-threads-'));
    try {
      const file = path.join(directory, 'steps.mjs');
      writeFileSync(file, script);
      const output = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
      expect(output.trim()).toBe(`${cores} done`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('default Sub-TS, Sub-Elim and Linear Elim choose and save the same on threads as on one', () => {
    // With a helper, Sub-TS's searches build their graph slice beside the scan of the arms not yet
    // in it, and the elimination policies examine the arms of a review on every thread: the graph,
    // the choices and the saved state are still the single-thread build's, byte for byte.
    const random = seededRandom(12);
    // Above the size from which Sub-TS's default graph pays (44,640 arms: kScanRowsPerSearchVisit).
    const arms = 50000;
    const features = gaussian(random, arms * dim);
    const theta = gaussian(random, dim);
    const ids = Uint32Array.from({ length: arms }, (_, i) => i);
    for (const name of ['SubTS', 'SubElim', 'LinearElim']) {
      const runs = [one, all].map((sb) => {
        const policy = new sb[name]({ dim, seed: 3, horizon: 5000 });
        policy.addArms(ids, features);
        const noise = seededRandom(5);
        const chosen = [];
        for (let t = 0; t < 400; t++) {
          const arm = policy.select();
          chosen.push(arm);
          let mean = 0;
          for (let j = 0; j < dim; j++) mean += features[arm * dim + j] * theta[j];
          policy.update(arm, mean / 4 + 0.3 * (noise() - 0.5));
        }
        const stats = policy.stats();
        const bytes = Buffer.from(policy.toBytes());
        policy.dispose();
        return { chosen, bytes, stats };
      });
      if (name === 'SubTS') {
        // The graph grew by slices during the searches, and was not finished.
        expect(runs[1].stats.index.built).toBeGreaterThan(0);
        expect(runs[1].stats.index.pending).toBeGreaterThan(0);
      } else {
        expect(runs[1].stats.reviews).toBeGreaterThan(1);
      }
      expect(runs[1].chosen).toEqual(runs[0].chosen);
      expect(runs[1].bytes.equals(runs[0].bytes)).toBe(true);
    }
  });

  test('threads and one thread compute the same searches over the same graph', () => {
    // Not a property of threads, but of the two builds: the same state answers the same.
    const random = seededRandom(9);
    const items = gaussian(random, 3000 * dim);
    const ids = Uint32Array.from({ length: 3000 }, (_, i) => i);
    const index = new one.HnswIndex({ dim, seed: 4, build: 'immediate' });
    index.add(ids, items);
    const copy = all.HnswIndex.fromBytes(index.toBytes());
    const query = gaussian(random, dim);
    expect(copy.search(query, 10)).toEqual(index.search(query, 10));
    index.dispose();
    copy.dispose();
    expectBanditError(one, () => copy.search(query, 10), 'DISPOSED');
  });
});
