// The package as a guest in someone else's program (issue 34): it changes nothing of its host's
// process, reads only what a caller gave it (own properties, never prototypes), and every valid call
// sequence saves a state that reloads.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { expectBanditError, fastestMs, loadModule } from './helpers.js';
import { poolWorkerFactory } from '../../dist/pool-workers.js';

const entry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

// Runs `body` as an ES module in a fresh Node process, after importing the package and awaiting
// init() when `withPackage`; -> { status, stdout, stderr }.
function host(body, { withPackage, flags = [] }) {
  const prelude = withPackage
    ? `const { default: init } = await import(${JSON.stringify(entry)});\nconst sb = await init();\nconsole.log('threads', sb.threads);\n`
    : '';
  // --input-type: the pool's Workers once inherited it and failed to start.
  return spawnSync(process.execPath, [...flags, '--input-type=module', '-e', prelude + body], { encoding: 'utf8', timeout: 60_000 });
}

// The pool's threads on a host of 2+ cores: as many as the host's reason says.
const cores = availableParallelism();
const threadedLine = cores >= 2 ? 'threads ([2-9])\\nreason Node worker threads: \\1 threads' : 'threads 1\\nreason [^\\n]*';

// A host's flags are its own: Node refuses V8 and per-process flags (--expose-gc) in a Worker's
// execArgv, and --input-type fails a Worker's file; the pool once inherited them and fell back to
// one thread ("Initiated Worker with invalid execArgv flags"). The pool's Workers now start with the
// host's flags minus those, and answer as the single-thread build does.
test('a host started with --expose-gc or --input-type keeps its flags, the package its threads and the same answers', () => {
  // A simulation whose reviews run on the threads, a search and a batch, on the pool and on one thread.
  const body = `
    console.log('reason', sb.threadsReason);
    console.log('host', typeof gc, process.execArgv.includes('--no-warnings'));
    const one = await init({ threads: 1 });
    const run = (m) => {
      const result = m.simulate({ environment: { type: 'linear', dim: 8, arms: 3000, noise: 1, seed: 7 },
        policy: { type: 'linear-elim' }, horizon: 400, seed: 1, recordEvery: 100 });
      const index = new m.ExactIndex({ dim: 8 });
      const vectors = new Float32Array(8 * 5000).map((_, i) => Math.sin(i * 12.9898) * 43758.5453 % 1);
      index.add(Uint32Array.from({ length: 5000 }, (_, i) => i), vectors);
      const found = index.search(vectors.subarray(0, 8), 10);
      // A batch: on the pool's threads in the threaded build.
      const batch = index.searchBatch(vectors.subarray(0, 8 * 300), 10);
      const answers = JSON.stringify([Array.from(result.cumulativeRegret), Array.from(found.ids), Array.from(found.scores),
        Array.from(batch.ids), Array.from(batch.scores)]);
      // Disposed: a collection before the host exits would otherwise warn on stderr (--expose-gc
      // hosts collect sooner), which this test reads for the pool's own messages.
      index.dispose();
      return answers;
    };
    console.log('same', run(sb) === run(one), one.threads);`;
  for (const flags of [[], ['--expose-gc'], ['--no-warnings', '--max-old-space-size=1024', '--enable-source-maps', '--stack-size=900', '--expose-gc', '--title', 'host']]) {
    const result = host(body, { withPackage: true, flags });
    expect(result.stderr, flags.join(' ')).toBe('');
    const gc = flags.includes('--expose-gc') ? 'function' : 'undefined';
    expect(result.stdout, flags.join(' ')).toMatch(new RegExp(`^${threadedLine}\\nhost ${gc} ${flags.includes('--no-warnings')}\\nsame true 1\\n$`));
  }
  const viaEnvironment = spawnSync(process.execPath, ['--input-type=module', '-e',
    `const { default: init } = await import(${JSON.stringify(entry)});\nconst sb = await init();\nconsole.log('threads', sb.threads);\n${body}`],
  { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=1024 --no-warnings' } });
  expect(viaEnvironment.stderr).toBe('');
  expect(viaEnvironment.stdout).toMatch(new RegExp(`^${threadedLine}\\nhost undefined false\\nsame true 1\\n$`));
}, 180_000);

// The Workers keep what Node lets a Worker take, and only that: each dropped flag is one Node refuses
// alone (or names the host's string input), each kept one starts a Worker that reports it.
test('the pool\'s Workers start with the host\'s flags minus those a Worker refuses', async () => {
  const hostFlags = ['--expose-gc', '--no-warnings', '--input-type=module', '--title', 'host', '--enable-source-maps',
    '--max-old-space-size=100', '--conditions=development', '-e', 'console.log(1)', '--stack-trace-limit=50'];
  const reporter = new URL('data:text/javascript,import { parentPort } from "node:worker_threads"; parentPort.postMessage(process.execArgv);');
  const started = [];
  const create = poolWorkerFactory(hostFlags);
  const reported = async (worker) => {
    started.push(worker);
    return new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  };
  try {
    const kept = ['--no-warnings', '--enable-source-maps', '--conditions=development'];
    expect(await reported(create(Worker, reporter))).toEqual(kept);
    // The second Worker of the pool starts with the flags learned for the first.
    expect(await reported(create(Worker, reporter))).toEqual(kept);
    for (const flag of ['--expose-gc', '--title=host', '--max-old-space-size=100', '--stack-trace-limit=50']) {
      expect(() => started.push(new Worker(reporter, { execArgv: [flag] })), flag).toThrow(/invalid execArgv/);
    }
    // No flags at all: the host's defaults, nothing learned.
    expect(await reported(poolWorkerFactory([])(Worker, reporter))).toEqual([]);
  } finally {
    await Promise.all(started.map((worker) => worker.terminate()));
  }
});

describe('the host process is the host\'s', () => {
  const cases = {
    'an application handles its own rejections': `
      process.on('unhandledRejection', (reason) => console.log('handled', reason.message));
      Promise.reject(new Error('own rejection'));
      setTimeout(() => console.log('still running'), 50);`,
    'an unhandled rejection ends the process as Node would': `
      Promise.reject(new Error('own rejection'));`,
    'an uncaught exception prints its own message': `
      setTimeout(() => { throw new Error('own exception'); }, 10);`,
    // The glue once set global.Worker (worker_threads' Worker) in the host's process.
    'globals of the process': `
      console.log(Object.getOwnPropertyNames(globalThis).sort().join(' '));`,
    'listeners on process events': `
      console.log('listeners', process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection'), process.listenerCount('exit'));`,
  };
  for (const [name, body] of Object.entries(cases)) {
    test(name, () => {
      const alone = host(body, { withPackage: false });
      const guest = host(body, { withPackage: true });
      expect(guest.stdout).toMatch(/^threads [2-9]/);  // the threaded build, where the handlers were
      expect(guest.status).toBe(alone.status);
      expect(guest.stdout.replace(/^threads \d+\n/, '')).toBe(alone.stdout);
      // The same message, and none of the glue's minified source around it.
      expect(guest.stderr.length).toBeLessThan(alone.stderr.length + 2000);
      for (const line of alone.stderr.split('\n').filter((text) => text.startsWith('Error:'))) expect(guest.stderr).toContain(line);
    }, 120_000);
  }
});

describe('only what the caller gave is read', () => {
  // Adds `key` to Object.prototype (or Array.prototype) for the duration of `action` only.
  function polluted(prototype, key, value, action) {
    Object.defineProperty(prototype, key, { value, configurable: true, enumerable: true, writable: true });
    try {
      return action();
    } finally {
      delete prototype[key];
    }
  }

  const rows = (n, dim) => Float64Array.from({ length: n * dim }, (_, i) => Math.sin(i + 1));

  test('Object.prototype.k, groups and perGroup do not change a CLS selection', async () => {
    const sb = await loadModule();
    const policy = new sb.C2UCB({ dim: 2, k: 3, seed: 1 });
    const chosen = polluted(Object.prototype, 'k', 1, () =>
      polluted(Object.prototype, 'groups', [0, 0, 0, 0, 0, 0, 0, 0], () =>
        polluted(Object.prototype, 'perGroup', 1, () => policy.select(rows(8, 2), {}))));
    expect(chosen.length).toBe(3);
    policy.dispose();
  });

  test('Object.prototype.onProgress and .ratings do not reach simulate()', async () => {
    const sb = await loadModule();
    const config = { environment: { type: 'linear', dim: 2, arms: 20, seed: 1 }, policy: { type: 'lin-ts' }, horizon: 20, seed: 1 };
    const plain = sb.simulate(config);
    const result = polluted(Object.prototype, 'onProgress', 'not a function', () =>
      polluted(Object.prototype, 'ratings', 'x::y', () => sb.simulate(config)));
    expect(Array.from(result.cumulativeRegret)).toEqual(Array.from(plain.cumulativeRegret));
  });

  test('Object.prototype.shortlist does not change a search', async () => {
    const sb = await loadModule();
    const index = new sb.ExactIndex({ dim: 2 });
    index.add([1, 2, 3], [1, 0, 0, 1, 1, 1]);
    const plain = index.search([1, 0.5], 2);
    const found = polluted(Object.prototype, 'shortlist', -7, () => index.search([1, 0.5], 2, {}));
    expect(Array.from(found.ids)).toEqual(Array.from(plain.ids));
    index.dispose();
  });

  test('a hole in an array is refused, not read from Array.prototype', async () => {
    const sb = await loadModule();
    const index = new sb.ExactIndex({ dim: 2 });
    const holey = [1, 0, , 1];  // eslint-disable-line no-sparse-arrays
    const error = polluted(Array.prototype, 2, 0.5, () => expectBanditError(sb, () => index.add([1, 2], holey), 'INVALID_ARGUMENT'));
    expect(error.message).toMatch(/vectors\[2\] is missing/);
    expect(index.size).toBe(0);
    // Without pollution too (the hole reads undefined).
    expectBanditError(sb, () => index.add([1, 2], holey), 'INVALID_ARGUMENT');
    index.dispose();
  });

  test('a sparse array claiming 2^32 - 1 elements is refused at once', async () => {
    const sb = await loadModule();
    const index = new sb.ExactIndex({ dim: 1 });
    const claims = [];
    claims.length = 2 ** 32 - 1;
    claims[0] = 1;
    expect(fastestMs(() => expectBanditError(sb, () => index.add(claims, claims), 'INVALID_ARGUMENT'))).toBeLessThan(1000);
    index.dispose();
  });

  test('revoked proxies are refused with a BanditError', async () => {
    const sb = await loadModule();
    const { proxy: options, revoke: revokeOptions } = Proxy.revocable({}, {});
    const { proxy: array, revoke: revokeArray } = Proxy.revocable([1, 2], {});
    revokeOptions();
    revokeArray();
    expect(expectBanditError(sb, () => new sb.ExactIndex(options), 'INVALID_ARGUMENT').message).toMatch(/revoked Proxy/);
    const index = new sb.ExactIndex({ dim: 2 });
    expect(expectBanditError(sb, () => index.add([1], array), 'INVALID_ARGUMENT').message).toMatch(/revoked Proxy/);
    expect(expectBanditError(sb, () => index.search([1, 1], 1, options), 'INVALID_ARGUMENT').message).toMatch(/revoked Proxy/);
    index.dispose();
  });

  test('a subclass that restores another state before super() gets its own, and nothing leaks', async () => {
    const sb = await loadModule();
    const make = (count) => {
      const index = new sb.ExactIndex({ dim: 2 });
      index.add(Array.from({ length: count }, (_, i) => i), new Float32Array(2 * count).fill(1));
      const bytes = index.toBytes();
      index.dispose();
      return bytes;
    };
    const own = make(5);
    const other = make(2);
    const seen = [];
    class Restoring extends sb.ExactIndex {
      constructor(options) {
        const inner = sb.ExactIndex.fromBytes(other);
        seen.push(inner.size);
        inner.dispose();
        super(options);
      }
    }
    Restoring.fromBytes(own).dispose();  // the first call may grow the heap's free lists
    const before = sb.memoryUsage().allocatedBytes;
    for (let i = 0; i < 5; i++) {
      const restored = Restoring.fromBytes(own);
      expect(restored).toBeInstanceOf(Restoring);
      expect(restored.size).toBe(5);
      restored.dispose();
    }
    expect(seen.every((size) => size === 2)).toBe(true);
    expect(sb.memoryUsage().allocatedBytes).toBe(before);
    // A subclass constructed normally is not handed a restored object.
    const fresh = new Restoring({ dim: 2 });
    expect(fresh.size).toBe(0);
    fresh.dispose();
  });

  test('seeds are validated wherever an index accepts one', async () => {
    const sb = await loadModule();
    for (const seed of [-1, 1.5, '2']) {
      expectBanditError(sb, () => new sb.GreedyMipsIndex({ dim: 2, seed }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => new sb.AdaptiveIndex({ dim: 2, base: { type: 'exact', seed } }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => new sb.LinTS({ dim: 2, index: { type: 'greedy', seed } }), 'INVALID_ARGUMENT');
    }
    new sb.GreedyMipsIndex({ dim: 2, seed: 3 }).dispose();
  });

  test('a graphic matroid over 2^28 vertices costs what its edges cost', async () => {
    const sb = await loadModule();
    const before = sb.memoryUsage().heapBytes;
    const matroid = sb.Matroid.graphic(2 ** 28, [0, 1, 2 ** 28 - 1, 1, 5, 2 ** 28 - 1, 0, 5]);
    expect(matroid.rank).toBe(3);
    expect(matroid.isIndependent([0, 1, 2])).toBe(true);  // a path
    expect(matroid.isIndependent([0, 1, 2, 3])).toBe(false);  // a cycle through vertex 2^28 - 1
    expect(sb.memoryUsage().heapBytes - before).toBeLessThan(16 * 2 ** 20);
    matroid.dispose();
  });
});

describe('every valid call sequence saves a state that reloads', () => {
  const rows = (n, dim, shift = 0) => Float64Array.from({ length: n * dim }, (_, i) => Math.cos(i * 0.7 + shift));

  for (const Class of ['C2UCB', 'PC2UCB', 'CombLinUCB', 'CombLinTS', 'CombTS', 'GreedyCLS']) {
    test(`${Class}: a round with more rows than setArms registered, and after setArms shrank`, async () => {
      const sb = await loadModule();
      const original = new sb[Class]({ dim: 3, k: 2, seed: 4 });
      original.setArms(rows(6, 3));
      original.select();
      original.setArms(rows(2, 3, 1));  // shrank while a selection was pending
      const pending = original.select(rows(9, 3, 2));  // 9 rows, more than the 2 registered
      const restored = sb[Class].fromBytes(original.toBytes());
      for (const policy of [original, restored]) policy.update(pending, [1, 0]);
      for (let t = 0; t < 5; t++) {
        const features = rows(9, 3, t);
        const chosen = original.select(features);
        expect(Array.from(restored.select(features))).toEqual(Array.from(chosen));
        for (const policy of [original, restored]) policy.update(chosen, [t % 2, 1]);
      }
      expect(restored.toBytes()).toEqual(original.toBytes());
      original.dispose();
      restored.dispose();
    });
  }

  test('a getter that rewrites the features after their check cannot put 1e300 into a model', async () => {
    const sb = await loadModule();
    const policy = new sb.C2UCB({ dim: 2, k: 1, seed: 1 });
    const features = rows(4, 2);
    const options = { get k() { features[0] = 1e300; return 1; } };
    const before = policy.toBytes();
    expectBanditError(sb, () => policy.select(features, options), 'INVALID_ARGUMENT');
    expect(policy.toBytes()).toEqual(before);
    features[0] = 0.5;
    const chosen = policy.select(features);
    policy.update(chosen, [1]);
    sb.C2UCB.fromBytes(policy.toBytes()).dispose();
    policy.dispose();
  });
});
