import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import init, { BanditError, init as namedInit, version } from '../../dist/index.js';
import { warmUp } from '../../dist/warm-up.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url)));

describe('init', () => {
  test('default and named exports load the module in Node with no options', async () => {
    expect(namedInit).toBe(init);
    const sb = await init();
    expect(sb.version).toBe(packageJson.version);
    expect(version).toBe(packageJson.version);
    expect(sb.BanditError).toBe(BanditError);
    expect(typeof sb.ExactIndex).toBe('function');
  });

  test('accepts the wasm bytes from the host', async () => {
    const wasmBinary = readFileSync(new URL('../../dist/sublinear_bandits_wasm.wasm', import.meta.url));
    const sb = await init({ wasmBinary });
    const index = new sb.ExactIndex({ dim: 2 });
    index.add([1], [1, 2]);
    expect(index.size).toBe(1);
    index.dispose();
  });

  test('rejects options that are not an object', async () => {
    await expect(init(5)).rejects.toBeInstanceOf(BanditError);
  });

  test('instances are independent', async () => {
    const [a, b] = await Promise.all([init(), init()]);
    const indexA = new a.ExactIndex({ dim: 1 });
    indexA.add([1, 2], [1, 2]);
    const indexB = new b.ExactIndex({ dim: 1 });
    expect(indexB.size).toBe(0);
    expect(indexA.size).toBe(2);
    indexA.dispose();
    indexB.dispose();
  });
});

describe('warm-up', () => {
  test('init refuses a warmUp option that is not a boolean', async () => {
    for (const warm of [1, 'no', null]) {
      await expect(init({ warmUp: warm })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  test('init({ warmUp: false }) gives a working module', async () => {
    const sb = await init({ warmUp: false, threads: 1 });
    const policy = new sb.LinearElim({ dim: 2, seed: 1 });
    policy.addArms([1, 2], [1, 0, 0, 1]);
    expect([1, 2]).toContain(policy.select());
    policy.dispose();
  });

  // What the warm-up makes it disposes: run again on a module that already ran it (its first run
  // started the helper threads, whose stacks stay), the heap holds as many bytes after as before.
  test('leaves nothing on the wasm heap', async () => {
    for (const threads of [1, 2]) {
      const sb = await init({ threads });
      const before = sb.memoryUsage().allocatedBytes;
      await warmUp(sb);
      expect(sb.memoryUsage().allocatedBytes).toBe(before);
    }
  });

  // init() must not hold the thread for the whole warm-up: a page's timers and input run between
  // its tasks. A timer that re-arms itself runs between every two of them.
  test('lets the event loop run between its tasks', async () => {
    const sb = await init({ warmUp: false });
    let turns = 0;
    let running = true;
    const turn = () => {
      turns += 1;
      if (running) setTimeout(turn, 0);
    };
    setTimeout(turn, 0);
    await warmUp(sb);
    running = false;
    expect(turns).toBeGreaterThanOrEqual(9);
  });
});

describe('random engine', () => {
  test('wasm draws the same numbers as the native build for a seed (checksum of 10^5 rounds)', async () => {
    const sb = await init();
    const native = new URL('../../build/native/sublinear-native', import.meta.url).pathname;
    for (const seed of [0, 42, 123456789]) {
      const expected = execFileSync(native, ['rng-checksum', String(seed), '100000'], { encoding: 'utf8' }).trim();
      expect(expected).toMatch(/^[0-9a-f]{16}$/);
      expect(sb.randomChecksum(seed, 100000)).toBe(expected);
    }
    expect(sb.randomChecksum(1, 1000)).not.toBe(sb.randomChecksum(2, 1000));
  });
});
