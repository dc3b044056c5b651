// LinUCB, LinearElim and SubElim users over a catalogue learning in the catalogue's subspace (issue 37
// item 5 for the users that scan; docs/recommender.md, "Many users over one catalogue"): 'auto' is 'arms' above 64
// dimensions (the oracle against the same policy over its own arms B^T x is native, in
// tests/cpp/catalogue_subspace_scan_test.cpp), they learn on low-rank embeddings at high d, keep learning when the
// catalogue doubles, hold a wasm heap that does not grow with d (beyond 12-13 bytes an arm), restore
// across a refit bit for bit, and refuse bad input without a change.
import { describe, expect, test } from 'vitest';
import { expectBanditError, heapPerUser, loadModule } from './helpers.js';
import { lowRankWorld } from './low-rank-world.js';

const sb = await loadModule();

const policies = ['LinUCB', 'LinearElim', 'SubElim'];

describe('scanning users in the catalogue\'s subspace', () => {
  test.each(policies)('%s learns at d = 256 in the shared basis, and keeps learning when the catalogue doubles', (name) => {
    const world = lowRankWorld(256, 8, 11);
    const catalogue = new sb.Catalogue({ dim: 256, seed: 2, index: { type: 'exact' } });
    const first = world.arms(1500);
    catalogue.add(first.ids, first.x);
    const user = new sb[name]({ catalogue, seed: 3, horizon: 1500 });
    world.play(user, 500, 0);
    expect(user.stats().subspace).toMatchObject({ shared: true, version: 1, modelDim: 32 });
    expect(catalogue.stats().subspace.projectedBytes).toBeGreaterThanOrEqual(1500 * 32 * 12);
    const more = world.arms(1600);
    catalogue.add(more.ids, more.x);
    const lastQuarter = world.play(user, 600, 150) / 150;
    expect(lastQuarter).toBeLessThan(0.2 * world.uniformRegret());
    expect(user.stats().subspace).toMatchObject({ shared: true, version: 2 });
    expect(user.theta().length).toBe(256);
    expect(catalogue.stats().subspace.projectedBytes).toBeGreaterThanOrEqual(3100 * 32 * 12);
    user.dispose();
    catalogue.dispose();
  }, 120_000);

  test.each(policies)('%s: \'auto\' is \'arms\' above 64 dimensions, \'none\' learns in all d', (name) => {
    // The oracle against the same policy over its own arms B^T x is native, bit for bit
    // (tests/cpp/catalogue_subspace_scan_test.cpp): the basis is not exposed to JavaScript. Here: the
    // default and an explicit 'arms' choose alike step by step, and 'none' chooses otherwise.
    const world = lowRankWorld(256, 8, 12);
    const catalogue = new sb.Catalogue({ dim: 256, seed: 4, index: { type: 'exact' } });
    const arms = world.arms(800);
    catalogue.add(arms.ids, arms.x);
    const a = new sb[name]({ catalogue, seed: 5 });
    const b = new sb[name]({ catalogue, seed: 5, subspace: 'arms' });
    const none = new sb[name]({ catalogue, seed: 5, subspace: 'none' });
    let differs = 0;
    for (let t = 0; t < 150; t++) {
      const arm = a.select();
      expect(b.select()).toBe(arm);
      const other = none.select();
      if (other !== arm) differs += 1;
      const reward = world.reward(arm);
      a.update(arm, reward);
      b.update(arm, reward);
      none.update(other, world.reward(other));
    }
    expect(differs).toBeGreaterThan(0);
    expect(Array.from(b.theta())).toEqual(Array.from(a.theta()));
    for (const object of [a, b, none, catalogue]) object.dispose();
  }, 120_000);

  test('a user\'s wasm heap does not grow with d: the model is modelDim^2, the rest 12-13 bytes an arm', () => {
    const perUser = {};
    for (const dim of [128, 1024]) {
      const world = lowRankWorld(dim, 8, 4);
      const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
      const arms = world.arms(300);
      catalogue.add(arms.ids, arms.x);
      // The first user fits the shared basis and the projected rows; what follows is a user's own.
      const first = new sb.LinUCB({ catalogue });
      first.select();
      for (const name of policies) perUser[`${name} ${dim}`] = heapPerUser(sb, 10, (u) => new sb[name]({ catalogue, seed: u }), world.reward);
      if (dim === 1024) perUser.none = heapPerUser(sb, 2, (u) => new sb.LinUCB({ catalogue, seed: u, subspace: 'none' }), world.reward);
      first.dispose();
      catalogue.dispose();
    }
    console.log(`[catalogue-subspace-scan] wasm heap per user (KiB), modelDim 32, 300 arms: ${Object.entries(perUser)
      .map(([key, bytes]) => `${key} ${(bytes / 1024).toFixed(1)}`).join(', ')}`);
    for (const name of policies) {
      expect(perUser[`${name} 128`], name).toBeLessThanOrEqual(64 * 1024);
      expect(perUser[`${name} 1024`], name).toBeLessThanOrEqual(64 * 1024);
      expect(perUser[`${name} 1024`] - perUser[`${name} 128`], name).toBeLessThan(16 * 1024);
    }
    expect(perUser.none).toBeGreaterThan(1024 * 1024 * 8);
  }, 120_000);

  test.each(policies)('%s restores across a refit bit for bit, and not over another lineage', (name) => {
    const world = lowRankWorld(96, 8, 5);
    const catalogue = new sb.Catalogue({ dim: 96, modelDim: 24, seed: 6, index: { type: 'exact' } });
    const first = world.arms(300);
    catalogue.add(first.ids, first.x);
    const user = new sb[name]({ catalogue, seed: 7 });
    world.play(user, 100, 0);
    const atFirst = user.toBytes();
    const catalogueBytes = catalogue.toBytes();
    const more = world.arms(400);
    catalogue.add(more.ids, more.x);
    const arm = user.select();  // refits the basis; the model moves, the widths are computed afresh
    user.update(arm, 0.5);
    const restored = sb[name].fromBytes(atFirst, { catalogue });
    expect(restored.select()).toBe(arm);
    restored.update(arm, 0.5);
    expect(Array.from(restored.toBytes())).toEqual(Array.from(user.toBytes()));
    expect(restored.stats().subspace.version).toBe(2);
    const copy = sb.Catalogue.fromBytes(catalogueBytes);
    const other = world.arms(400);
    copy.add(other.ids.map((id) => id + 100000), other.x);
    const saved = user.toBytes();
    expect(expectBanditError(sb, () => sb[name].fromBytes(saved, { catalogue: copy }), 'INVALID_ARGUMENT').message).toMatch(/fitted otherwise/);
    for (const object of [user, restored, copy, catalogue]) object.dispose();
  }, 60_000);

  test.each(policies)('%s: the subspace is the catalogue\'s, over own arms the arms\' own, and refusals change nothing', (name) => {
    // Over its own arms the policy fits its own basis (modelDim its own option there).
    const own = new sb[name]({ dim: 100, modelDim: 8, seed: 2 });
    const ownWorld = lowRankWorld(100, 6, 3);
    const ownArms = ownWorld.arms(150);
    own.addArms(ownArms.ids, ownArms.x);
    expect(own.stats().subspace).toMatchObject({ modelDim: 8, fits: 1 });
    expect(own.stats().subspace.projectedBytes).toBeGreaterThan(150 * 8 * 8);
    expect(own.theta()).toHaveLength(100);
    own.dispose();
    const none = new sb[name]({ dim: 100, subspace: 'none' });
    expect(none.stats().subspace).toBeUndefined();
    none.dispose();
    const world = lowRankWorld(80, 6, 8);
    const catalogue = new sb.Catalogue({ dim: 80, modelDim: 16, subspaceEnergy: 0.7 });
    const arms = world.arms(200);
    catalogue.add(arms.ids, arms.x);
    expectBanditError(sb, () => new sb[name]({ catalogue, modelDim: 20 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb[name]({ catalogue, subspaceEnergy: 0.5 }), 'INVALID_ARGUMENT');
    const user = new sb[name]({ catalogue, seed: 1 });
    world.play(user, 20, 0);
    expect(user.stats().subspace.modelDim).toBe(16);
    const before = user.toBytes();
    expectBanditError(sb, () => user.update(123456, 1), 'UNKNOWN_ID');
    expectBanditError(sb, () => user.update(0, Number.NaN), 'NON_FINITE');
    expect(user.toBytes()).toEqual(before);
    user.dispose();
    catalogue.dispose();
  });
});
