// Issue 31, phase 2, through the package: a new user started from the population (`prior`) learns
// faster when users share their taste, the prior travels in the user's bytes and bad priors are
// refused; simulate() with many users over one catalogue reports per-user regret bands and memory.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 8;
const armCount = 300;

function makeCatalogue(seed) {
  const random = seededRandom(seed);
  const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' }, seed: 1 });
  const x = Float64Array.from(gaussian(random, armCount * dim));
  catalogue.add(Uint32Array.from({ length: armCount }, (_, i) => i), x);
  const mean = (id, theta) => {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += x[id * dim + j] * theta[j];
    return sum;
  };
  const best = (theta) => {
    let value = -Infinity;
    for (let id = 0; id < armCount; id++) value = Math.max(value, mean(id, theta));
    return value;
  };
  return { catalogue, mean, best };
}

describe('cold start from the population', () => {
  // theta_u = mu + spread z_u; the prior's centre is a pooled LinUCB's theta() after 2,000 random pulls.
  function meanRegret({ muScale, spread, usePrior, seeds = [1, 2, 3], users = 20, steps = 200 }) {
    let total = 0;
    let runs = 0;
    for (const seed of seeds) {
      const { catalogue, mean, best } = makeCatalogue(100 + seed);
      const random = seededRandom(200 + seed);
      const normal = () => gaussian(random, 1)[0];
      const mu = Float64Array.from({ length: dim }, () => muScale * normal());
      const drawUser = () => mu.map((value) => value + spread * normal());
      const pooled = new sb.LinUCB({ catalogue, seed });
      for (let u = 0; u < 40; u++) {
        const theta = drawUser();
        for (let step = 0; step < 50; step++) {
          const id = Math.floor(random() * armCount);
          pooled.update(id, mean(id, theta) + normal());
        }
      }
      const centre = pooled.theta();
      pooled.dispose();
      for (let u = 0; u < users; u++) {
        const theta = drawUser();
        const top = best(theta);
        const noise = seededRandom(5000 * seed + u);
        // The Bayesian weight, noise^2 / spread^2, as a host would estimate it from its users.
        const user = new sb.LinUCB({ catalogue, seed: u, ...(usePrior ? { prior: { theta: centre, weight: 1 / spread ** 2 } } : {}) });
        for (let step = 0; step < steps; step++) {
          const arm = user.select();
          total += top - mean(arm, theta);
          user.update(arm, mean(arm, theta) + gaussian(noise, 1)[0]);
        }
        user.dispose();
        runs++;
      }
      catalogue.dispose();
    }
    return total / runs;
  }

  test('lowers the first 200 steps\' regret when users share their taste, and not raises it when they share nothing', () => {
    const shared = { with: meanRegret({ muScale: 1, spread: 0.4, usePrior: true }), without: meanRegret({ muScale: 1, spread: 0.4, usePrior: false }) };
    const nothing = { with: meanRegret({ muScale: 0, spread: 1, usePrior: true }), without: meanRegret({ muScale: 0, spread: 1, usePrior: false }) };
    console.log(`LinUCB, 20 users x 3 seeds x 200 steps: shared taste ${shared.with.toFixed(1)} with the prior, ${shared.without.toFixed(1)} without; `
      + `nothing shared ${nothing.with.toFixed(1)} with, ${nothing.without.toFixed(1)} without`);
    expect(shared.with).toBeLessThan(0.7 * shared.without);
    expect(nothing.with).toBeLessThan(1.1 * nothing.without);
  });

  test('starts the estimate, travels in the user\'s bytes and is refused when malformed', () => {
    const { catalogue } = makeCatalogue(7);
    const centre = Float64Array.from([1, -1, 0.5, 0, 2, 0, -0.5, 1]);
    const user = new sb.LinTS({ catalogue, seed: 3, prior: { theta: centre, weight: 3 } });
    expect(Array.from(user.theta())).toEqual(Array.from(centre, (value) => 0.75 * value));
    for (let step = 0; step < 20; step++) user.update(user.select(), step % 3);
    const copy = sb.LinTS.fromBytes(user.toBytes(), { catalogue });
    for (let step = 0; step < 20; step++) {
      const arm = user.select();
      expect(copy.select()).toBe(arm);
      user.update(arm, step % 2);
      copy.update(arm, step % 2);
    }
    expect(Array.from(copy.theta())).toEqual(Array.from(user.theta()));
    expectBanditError(sb, () => new sb.LinTS({ catalogue, prior: { theta: [1, 2], weight: 1 } }), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => new sb.LinUCB({ catalogue, prior: { theta: centre } }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.LinUCB({ catalogue, prior: { theta: centre, weight: 0 } }), 'INVALID_ARGUMENT');
    const misspelt = expectBanditError(sb, () => new sb.SubTS({ catalogue, prior: { theta: centre, weigth: 1, weight: 1 } }), 'INVALID_ARGUMENT');
    expect(misspelt.message).toContain("'prior.weigth'");
    expectBanditError(sb, () => new sb.LinearElim({ dim, prior: { theta: centre, weight: 1 } }), 'INVALID_ARGUMENT');
    user.dispose();
    copy.dispose();
    catalogue.dispose();
  });
});

describe('simulate() with many users', () => {
  const config = (users, policy = 'lin-ts', extra = {}) => ({
    environment: { type: 'linear', dim: 8, arms: 200, noise: 1, users, spread: 0.5, ...extra },
    policy: { type: policy },
    horizon: 20 * 200,
    recordEvery: 20,
    seed: 4,
  });

  test('20 users over one catalogue learn, with per-user bands and memory', () => {
    const result = sb.simulate(config(20));
    const { users } = result;
    expect(users.count).toBe(20);
    expect(users.regret.median).toBeInstanceOf(Float64Array);
    expect(users.regret.median.length).toBe(result.t.length);
    for (let i = 0; i < result.t.length; i++) {
      expect(users.regret.q1[i]).toBeLessThanOrEqual(users.regret.median[i]);
      expect(users.regret.median[i]).toBeLessThanOrEqual(users.regret.q3[i]);
    }
    // Uniform play over these arms costs about 5.8 a step (tests/cpp/simulate_users_test.cpp: 1,169.8
    // over a user's 200 steps); every user learned.
    expect(users.regret.median.at(-1)).toBeLessThan(0.2 * 1169.8);
    expect(users.memory.perUserBytes).toBeLessThan(64 * 1024);
    expect(users.memory.catalogueBytes).toBeGreaterThan(200 * 8 * 8);
    console.log(`lin-ts, 20 users x 200 steps: final per-user regret median ${users.regret.median.at(-1).toFixed(1)} `
      + `(q1 ${users.regret.q1.at(-1).toFixed(1)}, q3 ${users.regret.q3.at(-1).toFixed(1)}), `
      + `catalogue ${users.memory.catalogueBytes} B, ${users.memory.perUserBytes} B per user`);
  });

  test('one user is the old simulation; elimination users keep widths and refuse the lifted search', () => {
    const one = sb.simulate(config(1));
    const { users: _users, spread: _spread, ...plainEnvironment } = config(1).environment;
    const plain = sb.simulate({ ...config(1), environment: plainEnvironment });
    expect(one.users).toBeUndefined();
    expect(Object.keys(one)).toEqual(Object.keys(plain));
    expect(Array.from(one.cumulativeRegret)).toEqual(Array.from(plain.cumulativeRegret));
    const elimination = sb.simulate({ ...config(3, 'sub-elim'), horizon: 60 });
    expect(elimination.users.count).toBe(3);
    expectBanditError(sb, () => sb.simulate({ ...config(3, 'sub-elim'), policy: { type: 'sub-elim', search: 'lifted' } }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.simulate(config(3, 'lin-ts', { usres: 2 })), 'INVALID_ARGUMENT');
  });

  // The ratings environment's users are the file's held-out users, each rewarded by their own
  // ratings: a lover (every movie 5) and a hater (every movie 1) served in turn have regret 0 and 1
  // a step whatever the policy does, so the quartiles over the two are exact; one taste shared by
  // both would make q1 = q3.
  test('ratings users of opposite tastes get their own regret', () => {
    const random = seededRandom(3);
    const lines = [];
    const movies = 20;
    for (let user = 1; user <= 30; user++) {
      for (let movie = 1; movie <= movies; movie++) {
        if (random() < 0.5) lines.push(`${user}::${movie}::${1 + Math.floor(random() * 5)}::${1000 * movie + user}`);
      }
    }
    for (let movie = 1; movie <= movies; movie++) lines.push(`100::${movie}::5::${1000 * movie + 50}`, `101::${movie}::1::${1000 * movie + 51}`);
    const horizon = 40;
    const environment = { type: 'ratings', ratings: `${lines.join('\n')}\n`, dim: 2, iterations: 3, testUsers: 2, minRatings: movies - 1, users: 2, change: { every: 0 } };
    const result = sb.simulate({ environment, policy: { type: 'lin-ts' }, horizon, recordEvery: 2, seed: 1 });
    const hater = horizon / 2;
    expect(result.users.count).toBe(2);
    expect(result.cumulativeRegret.at(-1)).toBe(hater);
    expect([result.users.regret.q1.at(-1), result.users.regret.median.at(-1), result.users.regret.q3.at(-1)]).toEqual([0.25 * hater, 0.5 * hater, 0.75 * hater]);
    expectBanditError(sb, () => sb.simulate({ environment: { ...environment, users: 3 }, policy: { type: 'lin-ts' }, horizon, seed: 1 }), 'INVALID_ARGUMENT');
  });
});
