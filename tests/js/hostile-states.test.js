// Hostile bytes are cheap (issue 34), through the package: a valid state of every class whose stored
// options were edited to ask for a large object (a dimension of 10^6, 64 copies of an index of 1000
// hash tables, ...) and re-sealed (payload length and CRC-32 recomputed, so the envelope is intact)
// is refused with CORRUPT_STATE in well under 100 ms, and the WebAssembly heap -- which never shrinks --
// does not grow by 16 MiB for it. fromBytes refuses bytes that are not a state before copying them
// to the heap, and running out of heap is OUT_OF_MEMORY with the object left usable.
import { describe, expect, test } from 'vitest';
import { crc32, expectBanditError, fastestMs, gaussian, loadModule, registeredClasses, seededRandom } from './helpers.js';

// Without the warm-up, the heap starts small: growth caused by a restore is not hidden by free
// space that the warm-up left behind.
const sb = await loadModule({ warmUp: false });

const MiB = 1 << 20;
const heapBytes = () => sb.memoryUsage().heapBytes;

// The envelope (docs/state-format.md): 'SBST', format version (u16), library version and type
// (u32 length + bytes each), payload length (u64), payload, CRC-32. The payload starts with the
// options: a u64 length and the JSON text.
function optionsSpan(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 6;
  at += 4 + view.getUint32(at, true);
  at += 4 + view.getUint32(at, true);
  const lengthAt = at;
  const optionsAt = at + 8;
  const optionsLength = Number(view.getBigUint64(optionsAt, true));
  return { lengthAt, optionsAt, optionsLength };
}

function storedOptions(bytes) {
  const { optionsAt, optionsLength } = optionsSpan(bytes);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(optionsAt + 8, optionsAt + 8 + optionsLength)));
}

// `bytes` with its stored options replaced by `text`, payload length and checksum recomputed.
function withOptionsText(bytes, text) {
  const { lengthAt, optionsAt, optionsLength } = optionsSpan(bytes);
  const json = new TextEncoder().encode(text);
  const rest = bytes.subarray(optionsAt + 8 + optionsLength);
  const out = new Uint8Array(optionsAt + 8 + json.length + rest.length);
  out.set(bytes.subarray(0, optionsAt));
  const view = new DataView(out.buffer);
  view.setBigUint64(optionsAt, BigInt(json.length), true);
  out.set(json, optionsAt + 8);
  out.set(rest, optionsAt + 8 + json.length);
  view.setBigUint64(lengthAt, BigInt(out.length - optionsAt - 4), true);
  view.setUint32(out.length - 4, crc32(out.subarray(0, out.length - 4)), true);
  return out;
}

// A merge of `patch` into the stored options (a null removes a key, as in JSON merge patch).
function withOptions(bytes, patch) {
  const merge = (target, source) => {
    for (const [key, value] of Object.entries(source)) {
      if (value === null) delete target[key];
      else if (typeof value === 'object' && !Array.isArray(value) && typeof target[key] === 'object') merge(target[key], value);
      else target[key] = value;
    }
    return target;
  };
  return withOptionsText(bytes, JSON.stringify(merge(storedOptions(bytes), patch)));
}

const hugeLsh = { type: 'lsh', tables: 1000, bits: 64 };

// Edits every state gets: a dimension its data cannot have, one that no double holds, not an object.
function dimensionEdits(largeDim) {
  return [{ dim: largeDim }, { dim: 1e6 }, { dim: 0 }, '{"dim": 1e999}', '[1, 2]'];
}

// Restores `hostile` three times: CORRUPT_STATE each time (or, with `mayLoad`, possibly a restored
// object), the fastest of the three under 100 ms (a busy machine slows one run, not all), and the heap grown by less than 16 MiB.
function expectCheapRefusal(Class, hostile, what, mayLoad = false) {
  const before = heapBytes();
  const fastest = fastestMs(() => {
    let restored = null;
    try {
      restored = Class.fromBytes(hostile);
    } catch (error) {
      if (!(error instanceof sb.BanditError)) throw error;
      expect(error.code, `${what}: ${error.message}`).toBe('CORRUPT_STATE');
    }
    if (restored !== null) {
      expect(mayLoad, `${what}: restored without an error`).toBe(true);
      restored.dispose();
    }
  });
  expect(fastest, `${what}: fastest time (ms)`).toBeLessThan(100);
  expect(heapBytes() - before, `${what}: heap growth (bytes)`).toBeLessThan(16 * MiB);
}

function expectEditsRefused(Class, bytes, edits) {
  // The valid state loads.
  Class.fromBytes(bytes).dispose();
  for (const edit of edits) {
    const { patch, mayLoad = false } = typeof edit === 'object' && 'patch' in edit ? edit : { patch: edit };
    const hostile = typeof patch === 'string' ? withOptionsText(bytes, patch) : withOptions(bytes, patch);
    expectCheapRefusal(Class, hostile, `${Class.name} with ${typeof patch === 'string' ? patch : JSON.stringify(patch)}`, mayLoad);
  }
}

describe('states re-sealed with options asking for a large object', () => {
  // Every registered index type: [its options, the re-sealed edits of its state to try].
  const indexes = registeredClasses(sb, 'index', {
    hnsw: [{ M: 4, build: 'immediate' }, [{ patch: { M: 1000 }, mayLoad: true }]],
    lsh: [{ bits: 4, tables: 4 }, [{ tables: 1000 }, { patch: { bits: 64 }, mayLoad: true }, { dim: 1e6, ...hugeLsh }]],
    greedy: [{}, [{ patch: { budget: 4294967295, budgetFraction: null }, mayLoad: true }]],
    'pca-tree': [{ depth: 2 }, [{ depth: 20 }]],
    adaptive: [{ base: { type: 'hnsw', M: 4 } }, [
      { copies: 64 }, { copies: 64, base: hugeLsh }, { dim: 1e6, copies: 64, base: hugeLsh },
      { copies: 64, base: { type: 'adaptive', copies: 64, base: hugeLsh } }, { dim: 1e6, copies: 64, base: { type: 'bounded-me' } },
    ]],
  }, { missingRow: [{}, []] }).map(([name, [options, edits]]) => [name, options, edits]);
  test.each(indexes)('%s', (name, options, edits) => {
    const Class = sb[name];
    const random = seededRandom(3);
    const index = new Class({ dim: 4, seed: 1, ...options });
    index.add(Uint32Array.from({ length: 40 }, (_, i) => i), gaussian(random, 40 * 4));
    index.search(gaussian(random, 4), 3);
    const bytes = index.toBytes();
    index.dispose();
    expectEditsRefused(Class, bytes, [...dimensionEdits(1e6), ...edits]);
  });

  // Every registered index type saved empty, with the edits of its own options beyond a large dim.
  const emptyIndexes = registeredClasses(sb, 'index', {
    lsh: [{ patch: { dim: 1e6, ...hugeLsh }, mayLoad: true }],
    adaptive: [{ patch: { dim: 1e6, copies: 64, base: hugeLsh }, mayLoad: true }, { dim: 1e6, copies: 64, base: { type: 'bounded-me' } }],
  }, { missingRow: [] });
  test.each(emptyIndexes)('%s saved empty costs its bytes, whatever its options ask', (name, edits) => {
    const Class = sb[name];
    const index = new Class({ dim: 4, seed: 1 });
    const bytes = index.toBytes();
    index.dispose();
    expectEditsRefused(Class, bytes, [{ patch: { dim: 1e6 }, mayLoad: true }, ...edits]);
  });

  test.each(registeredClasses(sb, 'linear-policy').map(([name]) => name))('%s', (name) => {
    const Class = sb[name];
    const random = seededRandom(5);
    // A policy that searches an index (its option table has `index`) also gets edits of the index's options.
    const searches = sb.optionTable('linear-policy', Class.type).some((option) => option.name === 'index');
    const policy = new Class({ dim: 3, seed: 2, horizon: 100, ...(searches ? { index: { type: 'exact' } } : {}) });
    policy.addArms(Uint32Array.from({ length: 20 }, (_, i) => i), Float64Array.from(gaussian(random, 60)));
    for (let t = 0; t < 10; t++) policy.update(policy.select(), random() - 0.5);
    const bytes = policy.toBytes();
    policy.dispose();
    const indexEdits = !searches ? [] : [
      { index: hugeLsh }, { index: { type: 'adaptive', copies: 64, base: hugeLsh } },
      { dim: 1000, index: { type: 'adaptive', copies: 64, base: hugeLsh } }, { patch: { shortlist: 1e6 }, mayLoad: true },
    ];
    expectEditsRefused(Class, bytes, [...dimensionEdits(1000), ...indexEdits]);
  });

  test.each(registeredClasses(sb, 'semi-bandit-policy').map(([name]) => name))('%s', (name) => {
    const Class = sb[name];
    const random = seededRandom(6);
    const matroid = sb.Matroid.partition(Uint32Array.from({ length: 12 }, (_, i) => i % 3));
    const policy = new Class({ matroid, horizon: 100, seed: 3 });
    matroid.dispose();
    for (let t = 0; t < 20; t++) {
      const basis = policy.select();
      policy.update(basis, Float64Array.from(basis, () => (random() < 0.5 ? 1 : 0)));
    }
    const bytes = policy.toBytes();
    policy.dispose();
    const type = storedOptions(bytes).type;
    expectEditsRefused(Class, bytes, [
      { patch: { horizon: 2 ** 53 - 1 }, mayLoad: true }, { type: 'exact' }, `{"type": "${type}", "horizon": 1e999}`, '[1, 2]',
      ...(name === 'FasterCUCB' ? [{ epsilon: 1e-300 }] : []),
    ]);
  });

  test.each(registeredClasses(sb, 'cls-policy').map(([name]) => name))('%s', (name) => {
    const Class = sb[name];
    const random = seededRandom(7);
    const features = Float64Array.from(gaussian(random, 10 * 3));
    for (const fixed of [false, true]) {
      const policy = new Class({ dim: 3, k: 2, seed: 4, ...(fixed ? { index: { type: 'exact' } } : {}) });
      if (fixed) policy.setArms(features);
      for (let t = 0; t < 5; t++) {
        const rows = fixed ? policy.select({ k: 2 }) : policy.select(features, { k: 2 });
        policy.update(rows, Float64Array.from(rows, () => random()));
      }
      const bytes = policy.toBytes();
      policy.dispose();
      expectEditsRefused(Class, bytes, [
        ...dimensionEdits(100000), { blocks: 100000 }, { dim: 100000, blocks: 100000 }, { patch: { k: 4294967295 }, mayLoad: true },
        ...(fixed ? [{ index: hugeLsh }, { index: { type: 'adaptive', copies: 64, base: hugeLsh } }] : []),
      ]);
    }
  });
});

describe('fromBytes before the heap', () => {
  test('256 MiB of zeros are refused without copying them to the heap', () => {
    const zeros = new Uint8Array(256 * MiB);
    const before = heapBytes();
    const refusals = () => {
      expectBanditError(sb, () => sb.ExactIndex.fromBytes(zeros), 'CORRUPT_STATE');
      expectBanditError(sb, () => sb.LinUCB.fromBytes(zeros), 'CORRUPT_STATE');
    };
    expect(fastestMs(refusals)).toBeLessThan(100);
    expect(heapBytes()).toBe(before);
  });

  test('a state head declaring another length than the input is refused without copying the input', () => {
    const index = new sb.ExactIndex({ dim: 4 });
    const state = index.toBytes();
    index.dispose();
    // The valid head and payload, then 256 MiB more than the head declares.
    const padded = new Uint8Array(256 * MiB);
    padded.set(state);
    const before = heapBytes();
    const error = expectBanditError(sb, () => sb.ExactIndex.fromBytes(padded), 'CORRUPT_STATE');
    expect(error.message).toMatch(/length does not match/);
    expect(heapBytes()).toBe(before);
    // Another format version is still named with both versions, from the head alone.
    const other = state.slice();
    new DataView(other.buffer).setUint16(4, 1, true);
    expect(expectBanditError(sb, () => sb.ExactIndex.fromBytes(other), 'CORRUPT_STATE').message).toMatch(/format version 1/);
  });
});

describe('OUT_OF_MEMORY', () => {
  test('an add that cannot fit is OUT_OF_MEMORY and leaves the index as it was', () => {
    // 1000 tables of 64 hyperplanes over 10^6 dimensions: 6.4e10 floats, made at the first add.
    const index = new sb.LshIndex({ dim: 1e6, tables: 1000, bits: 64, seed: 1 });
    const error = expectBanditError(sb, () => index.add([7], new Float32Array(1e6)), 'OUT_OF_MEMORY');
    expect(error.message).toMatch(/out of memory/);
    expect(index.size).toBe(0);
    expect(index.has(7)).toBe(false);
    const restored = sb.LshIndex.fromBytes(index.toBytes());
    expect(restored.size).toBe(0);
    restored.dispose();
    index.dispose();
  });

  test('a constructor asking for more than the heap holds is OUT_OF_MEMORY', () => {
    // V, V^-1 and the Cholesky factor of a 100,000-dimensional ridge regression: 240 GB.
    expectBanditError(sb, () => new sb.C2UCB({ dim: 100000 }), 'OUT_OF_MEMORY');
    const policy = new sb.C2UCB({ dim: 3 });
    expect(policy.dim).toBe(3);
    policy.dispose();
  });
});
