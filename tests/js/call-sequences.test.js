// Call-sequence fuzzing through the package (issue 34): seeded random sequences of calls, valid and
// invalid, on every class with toBytes(). At random points the object is saved and restored; the
// restored twin must then answer every following call exactly as the original does, and its saved
// bytes must equal the original's. A valid sequence that saves a state which does not reload fails here.
import { describe, expect, test } from 'vitest';
import { loadModule, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();
const SEQUENCES = 12;
const CALLS = 40;

const plain = (value) => JSON.parse(JSON.stringify(value ?? null, (key, entry) => (ArrayBuffer.isView(entry) ? Array.from(entry) : entry)));

// Runs `call(object)`; -> its plain result or the BanditError's code (anything else fails).
function outcome(call, object) {
  try {
    return { value: plain(call(object)) };
  } catch (error) {
    if (!(error instanceof sb.BanditError)) throw error;
    return { code: error.code };
  }
}

const between = (random, low, high) => low + Math.floor(random() * (high - low + 1));
const vector = (random, length) => Array.from({ length }, () => (random() < 0.02 ? Number.NaN : random() * 2 - 1));

// Each family: make(random) -> a fresh object; next(random, object) -> a call (object) => result,
// drawn from the valid and invalid calls of the class. Calls must not depend on the object they are
// given beyond its public answers, so the same call can be replayed on a twin.
const families = {
  ...Object.fromEntries(registeredClasses(sb, 'index', {
    hnsw: { M: 4, efConstruction: 16 }, 'pca-tree': { depth: 1 }, adaptive: { base: { type: 'exact' }, copies: 2 },
  }).map(([name, options]) => [name, indexFamily(name, options)])),
  ...Object.fromEntries(registeredClasses(sb, 'linear-policy', {
    'sub-elim': { index: { type: 'hnsw', M: 4 } }, 'sub-ts': { index: { type: 'hnsw', M: 4 } },
  }).map(([name, options]) => [name, linearFamily(name, options)])),
  ...Object.fromEntries(registeredClasses(sb, 'semi-bandit-policy').map(([name]) => [name, semiBanditFamily(name)])),
  ...Object.fromEntries(registeredClasses(sb, 'cls-policy', { 'comb-ts': { randomization: 'arm' } })
    .map(([name, options]) => [name, clsFamily(name, options)])),
  'CombTS (round, index)': clsFamily('CombTS', { randomization: 'round', index: { type: 'exact' } }),
};

function indexFamily(name, options) {
  const dim = 3;
  return {
    Class: sb[name],
    make: (random) => new sb[name]({ dim, seed: between(random, 0, 99), ...options }),
    next(random) {
      const roll = random();
      if (roll < 0.35) {
        const count = between(random, 1, 4);
        const ids = Array.from({ length: count }, () => between(random, 0, 30));
        const vectors = vector(random, count * dim + (random() < 0.05 ? 1 : 0));
        return (index) => index.add(ids, vectors);
      }
      if (roll < 0.5) {
        const ids = [between(random, 0, 30)];
        return (index) => index.remove(ids);
      }
      if (roll < 0.6) {
        const limit = between(random, 0, 10);
        return (index) => index.build(limit);
      }
      const query = vector(random, dim);
      const k = between(random, 1, 5);
      return (index) => index.search(query, k);
    },
  };
}

function linearFamily(name, options) {
  const dim = 3;
  return {
    Class: sb[name],
    make: (random) => new sb[name]({ dim, horizon: 500, seed: between(random, 0, 99), ...options }),
    next(random) {
      const roll = random();
      if (roll < 0.25) {
        const count = between(random, 1, 4);
        const ids = Array.from({ length: count }, () => between(random, 0, 30));
        const features = vector(random, count * dim);
        const labels = Array.from({ length: count }, () => between(random, 0, 3));
        return random() < 0.5 ? (policy) => policy.addArms(ids, features) : (policy) => policy.addArms(ids, features, { labels });
      }
      if (roll < 0.35) {
        const ids = [between(random, 0, 30)];
        return (policy) => policy.removeArms(ids);
      }
      // buildIndex is a member of every linear policy (a policy without an index builds nothing).
      if (roll < 0.4) {
        const limit = between(random, 0, 20);
        return (policy) => policy.buildIndex(limit);
      }
      const reward = random() < 0.03 ? 1e300 : random();
      if (roll < 0.55) {
        // A filtered page: a slate (or one arm) of arms not excluded with an allowed label, each rewarded.
        const k = between(random, 1, 5);
        const filters = { exclude: [between(random, 0, 30)], labels: [between(random, 0, 3), between(random, 0, 3)] };
        const slate = random() < 0.7;
        return (policy) => {
          const shown = slate ? Array.from(policy.selectSlate(k, filters)) : [policy.select(filters)];
          for (const arm of shown) policy.update(arm, reward);
          return shown;
        };
      }
      const wrongArm = random() < 0.05;
      // A step: select, then update the selected arm (or another one).
      return (policy) => {
        const arm = policy.select();
        policy.update(wrongArm ? (arm + 1) % 31 : arm, reward);
        return arm;
      };
    },
  };
}

function semiBanditFamily(name) {
  return {
    Class: sb[name],
    make(random) {
      const matroid = random() < 0.5 ? sb.Matroid.uniform(between(random, 3, 8), 2)
        : sb.Matroid.partition(Array.from({ length: between(random, 3, 8) }, () => between(random, 0, 2)));
      const policy = new sb[name]({ matroid, horizon: 300, seed: between(random, 0, 99) });
      matroid.dispose();
      return policy;
    },
    next(random) {
      const rewards = Array.from({ length: 8 }, () => (random() < 0.03 ? 5 : random()));
      const drop = random() < 0.05;
      return (policy) => {
        const basis = policy.select();
        const played = drop ? basis.slice(1) : basis;
        policy.update(played, rewards.slice(0, played.length));
        return basis;
      };
    },
  };
}

function clsFamily(name, options) {
  const dim = 2;
  return {
    Class: sb[name],
    make: (random) => new sb[name]({ dim, k: 2, seed: between(random, 0, 99), ...options }),
    next(random) {
      const roll = random();
      const rows = between(random, 1, 7);
      const features = vector(random, rows * dim);
      const k = between(random, 1, 3);
      const rewards = Array.from({ length: 3 }, () => (random() < 0.03 ? 1e16 : random()));
      if (roll < 0.2) return (policy) => policy.setArms(features);
      // A selection from this round's rows or from the fixed arms, updated or left pending.
      const update = random() < 0.7;
      const fromArms = roll < 0.45;
      return (policy) => {
        const chosen = fromArms ? policy.select({ k }) : policy.select(features, { k });
        if (update) policy.update(chosen, rewards.slice(0, chosen.length));
        return chosen;
      };
    },
  };
}

describe.each(Object.entries(families))('%s', (label, family) => {
  test(`${SEQUENCES} random call sequences: every saved state reloads and continues identically`, () => {
    let reloads = 0;
    for (let sequence = 0; sequence < SEQUENCES; sequence++) {
      const random = seededRandom(1000 + sequence);
      const original = family.make(random);
      let twin = null;
      for (let i = 0; i < CALLS; i++) {
        if (twin === null && random() < 0.15) {
          twin = family.Class.fromBytes(original.toBytes());
          reloads += 1;
        }
        const call = family.next(random, original);
        const expected = outcome(call, original);
        if (twin !== null) {
          expect(outcome(call, twin), `${label}, sequence ${sequence}, call ${i}`).toEqual(expected);
          if (random() < 0.2) {
            expect(twin.toBytes(), `${label}, sequence ${sequence}, bytes after call ${i}`).toEqual(original.toBytes());
            twin.dispose();
            twin = null;
          }
        }
      }
      const last = family.Class.fromBytes(original.toBytes());
      expect(last.toBytes()).toEqual(original.toBytes());
      last.dispose();
      twin?.dispose();
      original.dispose();
    }
    expect(reloads).toBeGreaterThan(SEQUENCES / 2);
  }, 120_000);
});
