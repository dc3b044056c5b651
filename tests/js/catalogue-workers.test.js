// Issue 31, item 6: examples/catalogue-workers runs with 2 worker threads that load one catalogue
// snapshot and serve users sharded by id; a user moved to the other worker through its bytes
// continues exactly as it would have in one process that never moved it.
import { expect, test } from 'vitest';
import { loadModule } from './helpers.js';
import { makeWorld, play, runExample } from '../../examples/catalogue-workers/main.mjs';

const sb = await loadModule();

test('two workers serve users by id; a user moved between them continues exactly', async () => {
  const users = 6;
  const steps = 25;
  const { history, shards, moved, catalogueBytes } = await runExample({ workers: 2, users, steps });
  expect(moved).toMatchObject({ user: 1, from: 1, to: 0 });
  // The user's whole model: about 8 KB at d = 16, whatever the catalogue's size.
  expect(moved.bytes).toBeGreaterThan(1000);
  expect(moved.bytes).toBeLessThan(64 * 1024);
  // Sharded by id % 2, with user 1 now on worker 0.
  expect(shards[0].sort((a, b) => a - b)).toEqual([0, 1, 2, 4]);
  expect(shards[1].sort((a, b) => a - b)).toEqual([3, 5]);

  // The same users in this thread, over this thread's copy of the catalogue, never moved.
  const catalogue = sb.Catalogue.fromBytes(catalogueBytes);
  const models = new Map();
  const userOf = (userId) => {
    if (!models.has(userId)) models.set(userId, new sb.SubTS({ catalogue, seed: userId }));
    return models.get(userId);
  };
  const local = {
    select: async (userId) => userOf(userId).select(),
    update: async (userId, arm, reward) => userOf(userId).update(arm, reward),
  };
  const reference = await play(makeWorld({ users }), local, 2 * steps);
  for (let userId = 0; userId < users; userId++) {
    expect(history[userId], `user ${userId}`).toEqual(reference[userId]);
  }
  for (const model of models.values()) model.dispose();
  catalogue.dispose();
}, 60_000);
