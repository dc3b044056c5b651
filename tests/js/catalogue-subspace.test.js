// LinTS and SubTS users over a catalogue learning in the catalogue's subspace (issue 37 item 5; docs/recommender.md,
// "Many users over one catalogue"): the catalogue's modelDim and subspaceEnergy, one shared basis, a user's
// wasm heap that does not grow with d, a user that keeps learning when the catalogue doubles, snapshots that
// restore across the refit and are refused over another lineage, and refusals that change nothing.
import { describe, expect, test } from 'vitest';
import { expectBanditError, heapPerUser, loadModule } from './helpers.js';
import { lowRankWorld } from './low-rank-world.js';

const sb = await loadModule();

describe('Thompson users in the catalogue\'s subspace', () => {
  test('learn at d = 256 in one shared basis, and keep learning when the catalogue doubles', () => {
    const world = lowRankWorld(256, 8, 1);
    const catalogue = new sb.Catalogue({ dim: 256, seed: 2 });
    const first = world.arms(1500);
    catalogue.add(first.ids, first.x);
    const users = ['LinTS', 'SubTS'].map((name, u) => new sb[name]({ catalogue, seed: 3 + u, horizon: 1500 }));
    for (const user of users) world.play(user, 500, 0);
    expect(catalogue.stats().subspace.fits).toBe(1);
    const more = world.arms(1600);
    catalogue.add(more.ids, more.x);
    for (const user of users) {
      const lastQuarter = world.play(user, 600, 150) / 150;
      expect(lastQuarter).toBeLessThan(0.2 * world.uniformRegret());
      // The catalogue's default modelDim: min(d, 32).
      expect(user.stats().subspace).toMatchObject({ shared: true, version: 2, modelDim: 32 });
    }
    expect(catalogue.stats().subspace).toMatchObject({ fits: 2, modelDim: 32, basisBytes: 256 * 32 * 8, transitionBytes: 32 * 32 * 8 });
    for (const user of users) user.dispose();
    catalogue.dispose();
  }, 120_000);

  test('a user\'s wasm heap is the model\'s modelDim^2, not d^2: within 64 KiB up to d = 4,096 by default', () => {
    const perUser = {};
    for (const dim of [128, 1024, 4096]) {
      const world = lowRankWorld(dim, 8, 4);
      // The catalogue's default modelDim, min(d, 32).
      const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
      const arms = world.arms(300);
      catalogue.add(arms.ids, arms.x);
      // The first user fits the shared basis; what follows is what users themselves cost.
      const first = new sb.LinTS({ catalogue });
      first.select();
      perUser[dim] = heapPerUser(sb, 20, (u) => new sb.LinTS({ catalogue, seed: u }), world.reward);
      // The model in all d dimensions, as a user without the subspace holds it.
      if (dim === 1024) perUser.none = heapPerUser(sb, 2, (u) => new sb.LinTS({ catalogue, seed: u, subspace: 'none' }), world.reward);
      first.dispose();
      catalogue.dispose();
    }
    console.log(`[catalogue-subspace] wasm heap per LinTS user, modelDim 32: d = 128 ${(perUser[128] / 1024).toFixed(1)} KiB, `
      + `d = 1,024 ${(perUser[1024] / 1024).toFixed(1)} KiB, d = 4,096 ${(perUser[4096] / 1024).toFixed(1)} KiB; `
      + `subspace 'none' at d = 1,024 ${(perUser.none / 2 ** 20).toFixed(1)} MiB`);
    for (const dim of [128, 1024, 4096]) expect(perUser[dim], `d = ${dim}`).toBeLessThanOrEqual(64 * 1024);
    // What grows with d is a user's vectors of d (a draw's query, a decision's features), not a d x d matrix.
    expect(perUser[1024] - perUser[128]).toBeLessThan(16 * 1024);
    expect(perUser.none).toBeGreaterThan(2 * 1024 * 1024 * 8);
  }, 120_000);

  test('snapshots restore across a refit, and not over another lineage', () => {
    const world = lowRankWorld(96, 8, 5);
    const catalogue = new sb.Catalogue({ dim: 96, modelDim: 24, seed: 6 });
    const first = world.arms(300);
    catalogue.add(first.ids, first.x);
    const user = new sb.LinTS({ catalogue, seed: 7 });
    world.play(user, 100, 0);
    const atFirst = user.toBytes();
    const catalogueBytes = catalogue.toBytes();
    const more = world.arms(400);
    catalogue.add(more.ids, more.x);
    const arm = user.select();  // refits the basis; the model moves
    user.update(arm, 0.5);
    const restored = sb.LinTS.fromBytes(atFirst, { catalogue });
    expect(restored.select()).toBe(arm);
    restored.update(arm, 0.5);
    expect(Array.from(restored.theta())).toEqual(Array.from(user.theta()));
    expect(restored.stats().subspace.version).toBe(2);
    // Two copies of the catalogue at version 1 that change apart: the user saved over one (version 2)
    // is refused over the other, and over the copy that has not refitted.
    const copy = sb.Catalogue.fromBytes(catalogueBytes);
    const other = world.arms(400);
    copy.add(other.ids.map((id) => id + 100000), other.x);
    const saved = user.toBytes();
    const refused = expectBanditError(sb, () => sb.LinTS.fromBytes(saved, { catalogue: copy }), 'INVALID_ARGUMENT');
    expect(refused.message).toMatch(/fitted otherwise/);
    const older = sb.Catalogue.fromBytes(catalogueBytes);
    expect(expectBanditError(sb, () => sb.LinTS.fromBytes(saved, { catalogue: older }), 'INVALID_ARGUMENT').message).toMatch(/has not reached/);
    for (const object of [user, restored, copy, older, catalogue]) object.dispose();
  }, 60_000);

  test('modelDim and subspaceEnergy are the catalogue\'s, and refusals change nothing', () => {
    const world = lowRankWorld(80, 6, 8);
    const catalogue = new sb.Catalogue({ dim: 80, modelDim: 16, subspaceEnergy: 0.7 });
    const arms = world.arms(200);
    catalogue.add(arms.ids, arms.x);
    expectBanditError(sb, () => new sb.LinTS({ catalogue, modelDim: 20 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.SubTS({ catalogue, subspaceEnergy: 0.5 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.Catalogue({ dim: 80, modelDim: 0 }), 'INVALID_ARGUMENT');
    const same = new sb.LinTS({ catalogue, modelDim: 16, subspaceEnergy: 0.7 });
    same.dispose();
    const user = new sb.SubTS({ catalogue, seed: 1 });
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
