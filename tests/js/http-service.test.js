// examples/http-service (issue 55): an HTTP service (POST /decide, POST /reward by event id) in two
// processes behind a round-robin, each user's model in a real redis-server (Debian's) written by the
// compare-and-set of examples/redis-users/store.mjs. Under concurrent clients, with some rewards late
// and sent to the process that did not decide, every decision and reward answered 200 is in the user's
// stored model (no fork, nothing lost); the same traffic without the compare-and-set does lose some
// (so this test would see them lost); and the service answers bad requests with their codes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRedis } from '../../examples/redis-users/main.mjs';
import { post, runExample, startServices } from '../../examples/http-service/main.mjs';

let redis;
// Debian's redis-server (scripts/bootstrap.sh installs it; startRedis says so when it is missing).
beforeAll(async () => { redis = await startRedis(); });
afterAll(async () => { await redis?.stop(); });

describe('examples/http-service', () => {
  test('two processes behind a round-robin: every reward answered 200 is in the stored model', async () => {
    const summary = await runExample({ clients: 6, decisions: 25, users: 4, url: redis.url });
    expect(summary.failures).toEqual([]);
    expect(summary.requests).toBe(2 * 6 * 25);
    expect(summary.intact).toBe(4);
    expect(summary.lostRewards).toBe(0);
    expect(summary.lostDecisions).toBe(0);
    expect(summary.rewardsKept).toBe(6 * 25);
    for (const check of summary.checks) {
      expect(check.storedRewarded, `user ${check.user}`).toBe(check.rewarded);
      expect(check.updates, `user ${check.user}`).toBe(check.rewarded);
      expect(check.pending, `user ${check.user}`).toBe(0);
    }
    // Both processes decided, and rewards came late to the process that had not decided.
    expect(Object.keys(summary.served).sort()).toEqual(['service-0', 'service-1']);
    expect(summary.otherProcess).toBeGreaterThan(0);
    expect(summary.retries).toBeGreaterThan(0);  // the processes did race on users
    expect(summary.p99).toBeGreaterThan(0);
  }, 60_000);

  test('without the compare-and-set the same traffic loses decisions or rewards', async () => {
    const summary = await runExample({ clients: 6, decisions: 25, users: 2, url: redis.url, unsafe: true });
    expect(summary.intact).toBeLessThan(2);
    expect(summary.lostRewards + summary.lostDecisions).toBeGreaterThan(0);
  }, 60_000);

  test('a reward after a reload, a second reward, an unknown event and a bad body', async () => {
    const running = await startServices({ url: redis.url, arms: 200, dim: 8 });
    try {
      await running.redis.del('user:99');
      const decision = await post(`${running.proxyUrl}/decide`, { user: 99 });
      expect(decision.status).toBe(200);
      expect(Object.keys(decision.body).sort()).toEqual(['arm', 'eventId', 'propensity']);
      expect(decision.body.propensity).toBeGreaterThan(0);
      expect(decision.body.propensity).toBeLessThanOrEqual(1);
      // The reward reaches the other process, which restores the model from Redis with the decision pending.
      const other = running.services.find((service) => service.name !== decision.service).name;
      const reward = { user: 99, eventId: decision.body.eventId, reward: 1 };
      expect((await post(`${running.serviceUrl(other)}/reward`, reward)).status).toBe(200);
      const again = await post(`${running.serviceUrl(decision.service)}/reward`, reward);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('INVALID_ARGUMENT');
      expect((await post(`${running.proxyUrl}/reward`, { ...reward, eventId: decision.body.eventId + 1000 })).status).toBe(404);
      expect((await post(`${running.proxyUrl}/reward`, { user: 99, eventId: 'x', reward: 1 })).status).toBe(400);
      expect((await post(`${running.proxyUrl}/decide`, { user: -1 })).status).toBe(400);
    } finally {
      await running.stop();
    }
  }, 60_000);
});
