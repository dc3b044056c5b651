// examples/redis-users (issue 55): two service processes serve the same users at the same time, each
// user's model in a real redis-server (Debian's, installed by scripts/bootstrap.sh) written by a
// compare-and-set on the user's key. No reward either process committed is missing from the stored
// model, every stored model restores over a fresh copy of the catalogue and serves, and the same run
// without the compare-and-set does lose updates (so this test would see them lost).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runExample, startRedis } from '../../examples/redis-users/main.mjs';

let redis;
// Debian's redis-server (scripts/bootstrap.sh installs it; startRedis says so when it is missing).
beforeAll(async () => { redis = await startRedis(); });
afterAll(async () => { await redis?.stop(); });

describe('examples/redis-users', () => {
  test('two processes, one Redis: no update lost, every state reloads', async () => {
    const summary = await runExample({ processes: 2, users: 4, steps: 150, url: redis.url });
    expect(summary.reports).toHaveLength(2);
    expect(summary.lost).toBe(0);
    let committed = 0;
    for (const check of summary.checks) {
      expect(check.updates, `user ${check.userId}`).toBe(check.committed);
      expect(check.rewarded, `user ${check.userId}`).toBe(check.committed);
      expect(check.version, `user ${check.userId}`).toBe(check.committed);
      expect(check.servesArm).toBe(true);
      committed += check.committed;
    }
    expect(committed).toBe(300);
    // Both processes served every user (the contention the compare-and-set resolves).
    for (const report of summary.reports) expect(Object.keys(report.committed).length).toBe(4);
  }, 120_000);

  test('without the compare-and-set the same traffic loses updates', async () => {
    const summary = await runExample({ processes: 2, users: 2, steps: 150, url: redis.url, unsafe: true });
    expect(summary.lost).toBeGreaterThan(0);
  }, 120_000);
});
