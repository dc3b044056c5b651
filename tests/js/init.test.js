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
    for (const options of [5, 'threads', null, [1]]) {
      await expect(init(options)).rejects.toMatchObject({ name: 'BanditError', code: 'INVALID_ARGUMENT' });
    }
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

describe('init options are strict', () => {
  const refusal = async (options) => {
    const error = await init(options).then(() => null, (caught) => caught);
    expect(error).toBeInstanceOf(BanditError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    return error.message;
  };

  test('an unknown key is refused, naming it and the nearest known name', async () => {
    expect(await refusal({ bogus: 1 })).toMatch(/unknown init option 'bogus' \(the nearest is '\w+'; known: wasmBinary, locateFile, threads, threadsTimeout, warmUp\)/);
    expect(await refusal({ thread: 2 })).toMatch(/unknown init option 'thread' \(did you mean 'threads'\?/);
    expect(await refusal({ warmup: false })).toMatch(/did you mean 'warmUp'\?/);
    expect(await refusal({ wasmBinary: undefined, locatefile: () => 'x' })).toMatch(/'locatefile' \(did you mean 'locateFile'\?/);
  });

  test('only own properties are read: values on the prototype are neither checked nor used', async () => {
    const inherited = Object.create({ bogus: 1, warmUp: 'no', threads: -3, wasmBinary: new Uint8Array([1, 2, 3, 4]), locateFile: 5 });
    const sb = await init(inherited);
    expect(sb.threads).toBeGreaterThanOrEqual(1);
    const own = Object.assign(Object.create({ threads: 'many' }), { threads: 1, warmUp: false });
    expect((await init(own)).threads).toBe(1);
  });

  test('each known option is checked', async () => {
    expect(await refusal({ threads: 0 })).toMatch(/'threads' must be a positive integer, got number 0/);
    expect(await refusal({ threads: 1.5 })).toMatch(/'threads' must be a positive integer/);
    expect(await refusal({ threadsTimeout: -1 })).toMatch(/'threadsTimeout' must be a positive number of milliseconds/);
    expect(await refusal({ threadsTimeout: Infinity })).toMatch(/'threadsTimeout'/);
    expect(await refusal({ locateFile: 'x.wasm' })).toMatch(/'locateFile' must be a function, got the string 'x.wasm'/);
    expect(await refusal({ wasmBinary: 'bytes' })).toMatch(/'wasmBinary' must be an ArrayBuffer or a Uint8Array/);
    expect(await refusal({ wasmBinary: [0, 97, 115, 109] })).toMatch(/'wasmBinary' must be an ArrayBuffer or a Uint8Array, got an array/);
  });

  test('a wasmBinary that is not this package\'s wasm is a BanditError, not a RuntimeError', async () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 7919) & 0xff);
    expect(await refusal({ wasmBinary: garbage })).toMatch(/the bytes are not this package's wasm \(sublinear_bandits_wasm\.wasm\): they do not start with the wasm magic number/);
    // The magic number and then garbage: WebAssembly's CompileError becomes the message.
    const truncated = readFileSync(new URL('../../dist/sublinear_bandits_wasm.wasm', import.meta.url)).subarray(0, 5000);
    expect(await refusal({ wasmBinary: truncated })).toMatch(/the bytes are not this package's wasm \(sublinear_bandits_wasm\.wasm\): .*CompileError|the bytes are not this package's wasm \(sublinear_bandits_wasm\.wasm\): .+/);
    // A valid module that is not this package's: the smallest one, and the other build's.
    const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    expect(await refusal({ wasmBinary: empty })).toMatch(/not this package's wasm/);
    const threaded = readFileSync(new URL('../../dist/sublinear_bandits_wasm_threads.wasm', import.meta.url));
    expect(await refusal({ wasmBinary: threaded })).toMatch(/not this package's wasm \(sublinear_bandits_wasm\.wasm\)/);
    const single = readFileSync(new URL('../../dist/sublinear_bandits_wasm.wasm', import.meta.url));
    expect(await refusal({ wasmBinary: single, threads: 2 })).toMatch(/not this package's wasm \(sublinear_bandits_wasm_threads\.wasm\)/);
    // The module is still usable afterwards.
    const sb = await init({ wasmBinary: single.buffer.slice(single.byteOffset, single.byteOffset + single.byteLength), warmUp: false });
    expect(sb.threads).toBe(1);
  });

  test('the threaded build with its own bytes starts its workers', async () => {
    const threaded = readFileSync(new URL('../../dist/sublinear_bandits_wasm_threads.wasm', import.meta.url));
    const sb = await init({ wasmBinary: threaded, threads: 2, warmUp: false });
    expect(sb.threads).toBe(2);
  });
});

describe('threads never leave init() pending', () => {
  // Worker threads that do not start in time (here: a timeout shorter than any Worker takes to
  // load) turn into the single-thread build, within the timeout, instead of a promise that never settles.
  test('workers that miss threadsTimeout give one thread and a reason, quickly', async () => {
    const started = Date.now();
    const sb = await init({ threads: 2, threadsTimeout: 1, warmUp: false });
    // Far below the test's timeout, with room for a machine busy building beside the suite.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(sb.threads).toBe(1);
    expect(sb.threadsReason).toMatch(/worker thread did not start within 1 ms.*single-thread build/);
    const index = new sb.ExactIndex({ dim: 1 });
    index.add([1, 2], [1, 2]);
    expect(Array.from(index.search([1], 1).ids)).toEqual([2]);
    index.dispose();
  });

  test('by default the workers start within the timeout (Node)', async () => {
    const sb = await init({ threads: 2, warmUp: false });
    expect(sb.threads).toBe(2);
    expect(sb.threadsReason).toMatch(/Node worker threads: 2 threads/);
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
