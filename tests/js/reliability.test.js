// Issue 7's table: every error code of ErrorCode (web/src/common.d.ts), for every class family,
// through the package. After each error the object must still answer exactly as before (state
// unchanged), and the module must stay usable. Oversized requests are INVALID_ARGUMENT naming the
// bytes asked for.
import { describe, expect, test } from 'vitest';
import { loadModule, registeredClasses } from './helpers.js';

const sb = await loadModule();

function codeOf(action) {
  try {
    action();
  } catch (error) {
    if (!(error instanceof sb.BanditError)) throw new Error(`not a BanditError: ${error}`);
    return error.code;
  }
  return 'no error';
}

const dim = 3;

// `body(object)`, then dispose (Node 20 has no `using` declarations).
function using(object, body) {
  try {
    return body(object);
  } finally {
    object.dispose();
  }
}
const nan = [0, Number.NaN, 0];
const inf = [0, Number.POSITIVE_INFINITY, 0];

// Each family: make() builds a small live object, snapshot(obj) reads what an error must not change,
// cases are [code, what, action(obj)].
const families = {
  'MIPS indexes': {
    classes: registeredClasses(sb, 'index', { hnsw: { M: 4 }, 'pca-tree': { depth: 1 }, adaptive: { base: { type: 'exact' } } }),
    make(name, options) {
      const index = new sb[name]({ dim, seed: 1, ...options });
      index.add([1, 2, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
      return index;
    },
    snapshot: (index) => [index.size, index.has(1), Array.from(index.search([1, 0.5, 0.25], 3).ids)],
    cases: [
      ['INVALID_ARGUMENT', 'negative id', (x) => x.add([-1], [0, 0, 0])],
      ['INVALID_ARGUMENT', 'id above 2^32-1', (x) => x.add([2 ** 32], [0, 0, 0])],
      ['INVALID_ARGUMENT', 'fractional id', (x) => x.add([1.5], [0, 0, 0])],
      ['INVALID_ARGUMENT', 'k = 0', (x) => x.search([1, 0, 0], 0)],
      ['DIMENSION_MISMATCH', 'vector of the wrong length', (x) => x.add([9], [1, 2])],
      ['DIMENSION_MISMATCH', 'query of the wrong length', (x) => x.search([1, 2], 1)],
      ['NON_FINITE', 'NaN in a batch', (x) => x.add([8, 9], [0, 0, 0, ...nan])],
      ['NON_FINITE', 'infinite query', (x) => x.search(inf, 1)],
      ['DUPLICATE_ID', 'id already present', (x) => x.add([4, 1], [0, 0, 0, 0, 0, 0])],
      ['DUPLICATE_ID', 'id twice in a batch', (x) => x.add([7, 7], [0, 0, 0, 0, 0, 0])],
      ['UNKNOWN_ID', 'one unknown id in a removal batch', (x) => x.remove([1, 99])],
      ['CORRUPT_STATE', 'bytes that are not a state', (x) => x.constructor.fromBytes(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]))],
    ],
  },
  'linear policies': {
    classes: registeredClasses(sb, 'linear-policy', { 'sub-elim': { index: { type: 'exact' } }, 'sub-ts': { index: { type: 'exact' } } }),
    make(name, options) {
      const policy = new sb[name]({ dim, seed: 1, horizon: 100, ...options });
      policy.addArms([1, 2, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
      for (let t = 0; t < 5; t++) policy.update(policy.select(), 0.5);
      return policy;
    },
    snapshot: (policy) => [policy.armCount, Array.from(policy.theta())],
    cases: [
      ['INVALID_ARGUMENT', 'id above 2^32-1', (x) => x.addArms([2 ** 32], [0, 0, 0])],
      ['DIMENSION_MISMATCH', 'features of the wrong length', (x) => x.addArms([9], [1, 2])],
      ['NON_FINITE', 'NaN features', (x) => x.addArms([9], nan)],
      ['NON_FINITE', 'NaN reward', (x) => x.update(1, Number.NaN)],
      ['DUPLICATE_ID', 'arm already present', (x) => x.addArms([1], [0, 0, 0])],
      ['UNKNOWN_ID', 'update of an unknown arm', (x) => x.update(99, 1)],
      ['UNKNOWN_ID', 'one unknown arm in a removal batch', (x) => x.removeArms([2, 99])],
      ['CORRUPT_STATE', 'bytes that are not a state', (x) => x.constructor.fromBytes(new Uint8Array(12))],
    ],
    extra: {
      EMPTY: (name, options) => using(new sb[name]({ dim, seed: 1, ...options }), (policy) => policy.select()),
      INVALID_ARGUMENT: (name, options) => new sb[name]({ dim: 0, ...options }),
    },
  },
  'matroid semi-bandits': {
    classes: registeredClasses(sb, 'semi-bandit-policy'),
    make(name, options) {
      const matroid = sb.Matroid.uniform(6, 2);
      const policy = new sb[name]({ matroid, horizon: 100, seed: 1, ...options });
      matroid.dispose();
      for (let t = 0; t < 4; t++) {
        const basis = policy.select();
        policy.update(basis, Array.from(basis, (arm) => arm / 6));
      }
      policy.select();
      return policy;
    },
    snapshot: (policy) => [policy.rounds, policy.armCount, policy.rank],
    cases: [
      ['DIMENSION_MISMATCH', 'rewards not aligned with the basis', (x) => x.update(x.select(), [0.5])],
      ['NON_FINITE', 'NaN reward', (x) => { const basis = x.select(); x.update(basis, Array.from(basis, () => Number.NaN)); }],
      ['INVALID_ARGUMENT', 'reward outside [a, b]', (x) => { const basis = x.select(); x.update(basis, Array.from(basis, () => 7)); }],
      ['INVALID_ARGUMENT', 'a basis that was not selected', (x) => {
        const basis = Array.from(x.select());
        x.update([0, 1, 2, 3, 4, 5].filter((arm) => !basis.includes(arm)).slice(0, 2), [0, 0]);
      }],
      ['CORRUPT_STATE', 'bytes that are not a state', (x) => x.constructor.fromBytes(new Uint8Array(12))],
    ],
    extra: {
      INVALID_ARGUMENT: () => sb.Matroid.uniform(3, 4),
      DUPLICATE_ID: () => using(sb.Matroid.uniform(3, 2), (m) => m.isIndependent([1, 1])),
      DIMENSION_MISMATCH: () => using(sb.Matroid.uniform(3, 2), (m) => m.maxWeightBasis([1, 2])),
      NON_FINITE: () => using(sb.Matroid.uniform(3, 2), (m) => m.maxWeightBasis([1, Number.NaN, 2])),
    },
  },
  'combinatorial linear policies': {
    classes: registeredClasses(sb, 'cls-policy', { 'comb-ts': { randomization: 'arm' } }),
    make(name, options) {
      const policy = new sb[name]({ dim, k: 2, seed: 1, ...options });
      const features = [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0];
      for (let t = 0; t < 3; t++) {
        const chosen = policy.select(features, { k: 2 });
        policy.update(chosen, [1, 0]);
      }
      return policy;
    },
    snapshot: (policy) => [Array.from(policy.theta())],
    cases: [
      ['DIMENSION_MISMATCH', 'features not a multiple of dim', (x) => x.select([1, 2, 3, 4], { k: 1 })],
      ['NON_FINITE', 'NaN features', (x) => x.select([...nan, 1, 1, 1], { k: 1 })],
      ['INVALID_ARGUMENT', 'k larger than the rows', (x) => x.select([1, 0, 0], { k: 2 })],
      ['CORRUPT_STATE', 'bytes that are not a state', (x) => x.constructor.fromBytes(new Uint8Array(12))],
    ],
  },
};

describe.each(Object.entries(families))('%s', (family, spec) => {
  test.each(spec.classes)('%s: every error leaves the object unchanged and usable', (name, options) => {
    const object = spec.make(name, options);
    const before = spec.snapshot(object);
    const allocated = sb.memoryUsage().allocatedBytes;
    for (const [code, what, action] of spec.cases) {
      expect(codeOf(() => action(object)), `${name}: ${what}`).toBe(code);
      expect(spec.snapshot(object), `${name} after ${what}`).toEqual(before);
    }
    // Errors free what they allocated.
    expect(sb.memoryUsage().allocatedBytes).toBeLessThanOrEqual(allocated + 4096);
    for (const [code, make] of Object.entries(spec.extra ?? {})) {
      expect(codeOf(() => make(name, options)), `${name}: ${code}`).toBe(code);
    }
    object.dispose();
    expect(codeOf(() => spec.snapshot(object))).toBe('DISPOSED');
    object.dispose();  // a second dispose is harmless
  });
});

describe('requests beyond the heap', () => {
  test('a simulation that would record more than the heap can hold is INVALID_ARGUMENT naming the bytes', () => {
    let message = '';
    try {
      sb.simulate({ environment: { type: 'linear', dim: 2, arms: 2 }, policy: { type: 'lin-ucb' }, horizon: 900000000, recordEvery: 1, seed: 1 });
    } catch (error) {
      expect(error).toBeInstanceOf(sb.BanditError);
      expect(error.code).toBe('INVALID_ARGUMENT');
      message = error.message;
    }
    expect(message).toMatch(/would need 18000000000 bytes/);
  });

  test('a semi-bandit policy on 2^32-1 arms is INVALID_ARGUMENT naming the bytes, and the module stays usable', () => {
    const matroid = sb.Matroid.uniform(2 ** 32 - 1, 2);
    let message = '';
    try {
      new sb.CUCB({ matroid, horizon: 10 });
    } catch (error) {
      expect(error.code).toBe('INVALID_ARGUMENT');
      message = error.message;
    }
    expect(message).toMatch(/would need \d+ bytes/);
    matroid.dispose();
    const index = new sb.ExactIndex({ dim: 2 });
    index.add([1], [1, 1]);
    expect(Array.from(index.search([1, 0], 1).ids)).toEqual([1]);
    index.dispose();
  });
});

describe('hostile options', () => {
  test('options nested 10^5 deep, or referring to themselves, are INVALID_ARGUMENT without leaking', () => {
    let deep = {};
    for (let i = 0; i < 1e5; i++) deep = { a: deep };
    const circular = { type: 'exact' };
    circular.self = circular;
    const before = sb.memoryUsage().allocatedBytes;
    for (let round = 0; round < 20; round++) {
      expect(codeOf(() => new sb.ExactIndex({ dim: 2, nested: deep }))).toBe('INVALID_ARGUMENT');
      expect(codeOf(() => new sb.LinUCB({ dim: 2, nested: circular }))).toBe('INVALID_ARGUMENT');
    }
    expect(sb.memoryUsage().allocatedBytes - before).toBeLessThan(64 * 1024);
    // 64 levels are fine for the parser (the option itself is then refused as unknown).
    let shallow = 1;
    for (let i = 0; i < 63; i++) shallow = [shallow];
    expect(() => new sb.ExactIndex({ dim: 2, nested: shallow })).toThrow(/unknown option 'nested'/);
    expect(new sb.ExactIndex({ dim: 2 }).size).toBe(0);
  });
});
