import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectBanditError, loadModule, plantedRatings, seededRandom } from './helpers.js';

const native = new URL('../../build/native/sublinear-native', import.meta.url).pathname;

function linearConfig(overrides = {}) {
  return {
    environment: { type: 'linear', dim: 8, arms: 400, change: { every: 20, add: 2, remove: 1 } },
    policy: { type: 'lin-ucb' },
    horizon: 1000,
    seed: 3,
    recordEvery: 100,
    ...overrides,
  };
}

// A planted low-rank MovieLens-format file, written here independently of the library.
describe('simulate', () => {
  test('returns typed arrays recorded every recordEvery steps, with monotone cumulative regret', async () => {
    const sb = await loadModule();
    const result = sb.simulate(linearConfig({ horizon: 1050 }));
    expect(result.t).toBeInstanceOf(Uint32Array);
    expect(result.cumulativeRegret).toBeInstanceOf(Float64Array);
    expect(result.cumulativeReward).toBeInstanceOf(Float64Array);
    expect(Array.from(result.t)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1050]);
    expect(result.cumulativeRegret.length).toBe(11);
    for (let i = 1; i < result.cumulativeRegret.length; i++) {
      expect(result.cumulativeRegret[i]).toBeGreaterThanOrEqual(result.cumulativeRegret[i - 1]);
    }
    expect(Object.keys(result.seconds).sort()).toEqual(['select', 'setup', 'total', 'update']);
    expect(result.seconds.total).toBeGreaterThanOrEqual(result.seconds.select);
    expect(result.innerProducts).toBeGreaterThan(0);
    expect(result.seed).toBe(3);
  });

  test('many seeds give runs, mean and std', async () => {
    const sb = await loadModule();
    const { seed, ...config } = linearConfig({ horizon: 300 });
    const result = sb.simulate({ ...config, seeds: [1, 2, 3] });
    expect(result.runs.length).toBe(3);
    expect(result.runs.map((run) => run.seed)).toEqual([1, 2, 3]);
    expect(result.t).toEqual(result.runs[0].t);
    const last = result.t.length - 1;
    const finals = result.runs.map((run) => run.cumulativeRegret[last]);
    const mean = finals.reduce((a, b) => a + b) / 3;
    expect(result.mean.cumulativeRegret[last]).toBeCloseTo(mean, 9);
    const std = Math.sqrt(finals.reduce((a, b) => a + (b - mean) ** 2, 0) / 2);
    expect(result.std.cumulativeRegret[last]).toBeCloseTo(std, 9);
    expect(seed).toBe(3);
  });

  test('onProgress is called at most ~100 times, increasing, ending at 1', async () => {
    const sb = await loadModule();
    const calls = [];
    sb.simulate(linearConfig({ horizon: 2000, onProgress: (fraction) => calls.push(fraction) }));
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.length).toBeLessThanOrEqual(101);
    expect(calls.at(-1)).toBe(1);
    for (let i = 1; i < calls.length; i++) expect(calls[i]).toBeGreaterThan(calls[i - 1]);
  });

  test('an exception in onProgress stops the run and reaches the caller unchanged, leaking nothing', async () => {
    const sb = await loadModule();
    sb.simulate(linearConfig({ horizon: 200 }));
    const before = sb.memoryUsage().allocatedBytes;
    const mine = new Error('stop here');
    let calls = 0;
    expect(() => sb.simulate(linearConfig({ horizon: 2000, onProgress: () => { calls += 1; if (calls === 3) throw mine; } })))
      .toThrow(mine);
    expect(calls).toBe(3);
    expect(sb.memoryUsage().allocatedBytes).toBeLessThanOrEqual(before + 4096);
    expect(sb.simulate(linearConfig({ horizon: 100 })).t.length).toBe(1);
  });

  test('LinUCB learns: the last window has less regret per step than the first', async () => {
    const sb = await loadModule();
    const result = sb.simulate(linearConfig({ environment: { type: 'linear', dim: 6, arms: 300, seed: 5 }, horizon: 2000, recordEvery: 200 }));
    const r = result.cumulativeRegret;
    expect((r[9] - r[8]) / 200).toBeLessThan(0.5 * (r[0] / 200));
  });

  test('bad configs throw INVALID_ARGUMENT naming the problem', async () => {
    const sb = await loadModule();
    const error = expectBanditError(sb, () => sb.simulate(linearConfig({ environment: { type: 'galaxy' } })), 'INVALID_ARGUMENT');
    expect(error.message).toContain('linear, ratings');
    expectBanditError(sb, () => sb.simulate(linearConfig({ seeds: [1] })), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.simulate(linearConfig({ horizon: Infinity })), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.simulate(linearConfig({ onProgress: 3 })), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.simulate(null), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.simulate(linearConfig({ policy: { type: 'sub-magic' } })), 'INVALID_ARGUMENT');
  });

  test('ratings: string and bytes in both formats; a malformed line names its line number', async () => {
    const sb = await loadModule();
    const environment = { type: 'ratings', dim: 4, iterations: 3, testUsers: 4, minRatings: 30, change: { every: 10, add: 2 } };
    const text = plantedRatings();
    const fromString = sb.simulate({ environment: { ...environment, ratings: text }, policy: { type: 'lin-ucb' }, horizon: 200, seed: 1 });
    const fromBytes = sb.simulate({ environment: { ...environment, ratings: new TextEncoder().encode(text) }, policy: { type: 'lin-ucb' }, horizon: 200, seed: 1 });
    expect(fromBytes.cumulativeRegret).toEqual(fromString.cumulativeRegret);
    const last = fromString.cumulativeRegret.at(-1);
    // The paper's regret: 1 per recommendation the user did not rate >= 4.
    expect(last + fromString.cumulativeReward.at(-1)).toBe(200);
    const tabs = sb.simulate({ environment: { ...environment, ratings: plantedRatings({ tabs: true }) }, policy: { type: 'lin-ucb' }, horizon: 50, seed: 1 });
    expect(tabs.cumulativeRegret.at(-1) + tabs.cumulativeReward.at(-1)).toBe(50);
    const bad = `${text}1::2::3\n`;
    const lineNumber = text.split('\n').length;
    const error = expectBanditError(sb, () => sb.simulate({ environment: { ...environment, ratings: bad }, policy: { type: 'lin-ucb' }, horizon: 10 }), 'INVALID_ARGUMENT');
    expect(error.message).toContain(`ratings line ${lineNumber}`);
    expectBanditError(sb, () => sb.simulate({ environment: { ...environment, ratings: 42 }, policy: { type: 'lin-ucb' }, horizon: 10 }), 'INVALID_ARGUMENT');
  });

  test('native and wasm give bit-identical cumulative regret for a fixed seed', async () => {
    const sb = await loadModule();
    const configs = [
      linearConfig({ recordEvery: 1 }),
      linearConfig({ policy: { type: 'lin-ts' }, recordEvery: 1 }),
      linearConfig({ policy: { type: 'linear-elim' }, environment: { type: 'linear', dim: 8, arms: 400, change: { every: 20, add: 2 } }, recordEvery: 1 }),
    ];
    if (typeof sb.HnswIndex === 'function') {
      configs.push(linearConfig({ policy: { type: 'sub-ts', index: { type: 'hnsw' } }, environment: { type: 'linear', dim: 8, arms: 400, change: { every: 20, add: 2, remove: 2 } }, recordEvery: 1 }));
      configs.push(linearConfig({ policy: { type: 'sub-elim', index: { type: 'hnsw' } }, environment: { type: 'linear', dim: 8, arms: 400, change: { every: 20, add: 2 } }, recordEvery: 1 }));
      // Int8 storage: codes, integer graph distances and the decoded rows' scores are the same bits in both builds.
      configs.push(linearConfig({ policy: { type: 'sub-ts', index: { type: 'hnsw', storage: 'int8', build: 'immediate' } }, environment: { type: 'linear', dim: 8, arms: 400, change: { every: 20, add: 2, remove: 2 } }, recordEvery: 1 }));
      configs.push(linearConfig({ policy: { type: 'lin-ts', index: { type: 'exact', storage: 'int8' } }, environment: { type: 'linear', dim: 8, arms: 400, change: { every: 20, add: 2, remove: 2 } }, recordEvery: 1 }));
      // The euclidean reduction's graph in both storages, over rows that removals move (the graph
      // refers to the store's rows, its extra coordinate kept beside the reference): wasm's SIMD
      // kernels with the coordinate added apart must give native's bits.
      for (const storage of ['f32', 'int8']) {
        configs.push(linearConfig({ policy: { type: 'sub-ts', index: { type: 'hnsw', space: 'euclidean', storage, build: 'immediate', M: 8 } }, environment: { type: 'linear', dim: 7, arms: 1500, change: { every: 10, add: 3, remove: 5 } }, horizon: 400, recordEvery: 1 }));
      }
      // Rows longer than 64 floats, whose graph distances keep four sums (lane_kernels.hpp's
      // graphInnerProduct; 70 dimensions padded to 72: four groups of 16, then a tail of two). The
      // answers' scores are innerProduct's, so this checks the answers; a change in the order of
      // the four sums' last additions alone went unseen here (it flips no comparison on these
      // arms), and lane_kernels_test.cpp holds that order natively.
      for (const space of ['inner-product', 'euclidean']) {
        configs.push(linearConfig({ policy: { type: 'sub-ts', index: { type: 'hnsw', space, build: 'immediate', M: 8 } }, environment: { type: 'linear', dim: 70, arms: 1500, change: { every: 10, add: 3, remove: 5 } }, horizon: 200, recordEvery: 1 }));
      }
    }
    for (const config of configs) {
      const wasm = sb.simulate(config);
      const output = execFileSync(native, ['simulate', '-'], { input: JSON.stringify(config), encoding: 'utf8' });
      const expected = JSON.parse(output);
      expect(Array.from(wasm.t)).toEqual(expected.t);
      const wasmBits = new BigUint64Array(wasm.cumulativeRegret.buffer);
      const nativeBits = new BigUint64Array(Float64Array.from(expected.cumulativeRegret).buffer);
      expect(wasmBits, config.policy.type).toEqual(nativeBits);
      expect(Array.from(wasm.cumulativeReward)).toEqual(expected.cumulativeReward);
      expect(wasm.innerProducts).toBe(expected.innerProducts);
    }
  });

  test('native and wasm give bit-identical curves for every matroid and combinatorial policy type', async () => {
    const sb = await loadModule();
    const graphic = { kind: 'graphic', vertices: 12 };
    const configs = [
      ...['cucb', 'faster-cucb', 'cts'].flatMap((type) => [
        { environment: { type: 'matroid', K: 300, matroid: { kind: 'uniform', rank: 10 } }, policy: { type } },
        { environment: { type: 'matroid', K: 300, matroid: { kind: 'partition', groups: 10 } }, policy: { type } },
        { environment: { type: 'matroid', K: 60, matroid: graphic }, policy: { type } },
        { environment: { type: 'matroid', K: 80, matroid: { kind: 'transversal', right: 8, degree: 2 } }, policy: { type } },
      ]),
      ...[{ type: 'c2ucb' }, { type: 'pc2ucb' }, { type: 'comb-lin-ucb' }, { type: 'comb-lin-ts' }, { type: 'comb-ts', randomization: 'round' },
        { type: 'comb-ts', randomization: 'arm' }, { type: 'greedy-cls' }].map((policy) => ({
        environment: { type: 'clustered', dim: 5, arms: 300, k: 10, angle: 0.7 }, policy })),
      { environment: { type: 'promotion', promotions: 3, k: 4, users: 100, population: 500, rank: 3 }, policy: { type: 'pc2ucb' } },
    ].map((config) => ({ ...config, horizon: 60, seed: 4, recordEvery: 1 }));
    for (const config of configs) {
      const label = `${config.policy.type}${config.policy.randomization ? `/${config.policy.randomization}` : ''} on ${config.environment.type}`;
      const wasm = sb.simulate(config);
      const again = sb.simulate(config);
      const expected = JSON.parse(execFileSync(native, ['simulate', '-'], { input: JSON.stringify(config), encoding: 'utf8' }));
      const bits = (values) => Array.from(new BigUint64Array(Float64Array.from(values).buffer), String);
      expect(bits(wasm.cumulativeRegret), label).toEqual(bits(expected.cumulativeRegret));
      expect(bits(wasm.cumulativeReward), label).toEqual(bits(expected.cumulativeReward));
      expect(bits(again.cumulativeRegret), `${label}, second wasm run`).toEqual(bits(wasm.cumulativeRegret));
      expect(wasm.innerProducts, label).toBe(expected.innerProducts);
    }
  });

  test('mab-bp: BoundedME on adversarial lists keeps the (1 - delta)-percentile suboptimality below epsilon, as native does', async () => {
    const sb = await loadModule();
    for (const epsilon of [0.1, 0.3]) {
      const config = { environment: { type: 'mab-bp', arms: 500, listLength: 3000 }, policy: { type: 'bounded-me', epsilon, delta: 0.1 },
        horizon: 30, seed: 2, recordEvery: 1 };
      const result = sb.simulate(config);
      const regrets = Array.from(result.cumulativeRegret, (value, i) => value - (i > 0 ? result.cumulativeRegret[i - 1] : 0)).sort((a, b) => a - b);
      expect(regrets[0]).toBeGreaterThanOrEqual(0);
      expect(regrets[Math.ceil(0.9 * regrets.length) - 1]).toBeLessThanOrEqual(epsilon);
      const expected = JSON.parse(execFileSync(native, ['simulate', '-'], { input: JSON.stringify(config), encoding: 'utf8' }));
      expect(Array.from(result.cumulativeRegret)).toEqual(expected.cumulativeRegret);
      expect(result.innerProducts).toBe(expected.innerProducts);
    }
    expectBanditError(sb, () => sb.simulate({ environment: { type: 'mab-bp' }, policy: { type: 'sub-ts' }, horizon: 1 }), 'INVALID_ARGUMENT');
  });

  test('native and wasm agree bit for bit on the ratings environment (parsing, ALS, policy)', async () => {
    const sb = await loadModule();
    const text = plantedRatings({ seed: 11 });
    const path = join(mkdtempSync(join(tmpdir(), 'sublinear-ratings-')), 'ratings.dat');
    writeFileSync(path, text);
    const environment = { type: 'ratings', dim: 6, iterations: 5, testUsers: 3, minRatings: 30, change: { every: 10, add: 2 }, regret: 'best' };
    const config = { policy: { type: 'lin-ts' }, horizon: 300, seed: 2, recordEvery: 1 };
    const wasm = sb.simulate({ ...config, environment: { ...environment, ratings: text } });
    const expected = JSON.parse(execFileSync(native, ['simulate', '-'], {
      input: JSON.stringify({ ...config, environment: { ...environment, ratingsFile: path } }), encoding: 'utf8' }));
    expect(Array.from(wasm.cumulativeRegret)).toEqual(expected.cumulativeRegret);
    expect(Array.from(wasm.cumulativeReward)).toEqual(expected.cumulativeReward);
  });
});
