// One service process: `node service.mjs <config json>`. Loads the catalogue snapshot, connects to
// Redis, says "ready" on stdout and waits for "go" on stdin (so that every process starts at once),
// then serves `steps` requests for users drawn at random among `users`: each request decides for the
// user (an event id and a propensity), draws the user's click and rewards the event, all inside one
// compare-and-set update of the user's stored model. Ends with one line of JSON: what it committed.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import init from 'sublinear-bandits';
import { connectStore, updateUser } from './store.mjs';

const config = JSON.parse(process.argv[2]);
const sb = await init({ threads: 1 });
const catalogue = sb.Catalogue.fromBytes(readFileSync(config.catalogue));
const { client, redis } = await connectStore(config.url);

// The world: user u likes arms whose first feature has u's sign; a click is a coin of that chance.
const dim = catalogue.stats().dim;
const open = (userId) => (state) => state ? sb.SubTS.fromBytes(state, { catalogue }) : new sb.SubTS({ catalogue, seed: userId });

let random = config.seed >>> 0 || 1;
const next = () => ((random = (Math.imul(random, 1664525) + 1013904223) >>> 0) / 2 ** 32);

const lines = createInterface({ input: process.stdin });
console.log('ready');
for await (const line of lines) if (line.trim() === 'go') break;

const committed = {};
const latencies = [];
let retries = 0;
const started = performance.now();
for (let step = 0; step < config.steps; step++) {
  const userId = Math.floor(next() * config.users);
  const begun = performance.now();
  const outcome = await updateUser(redis, userId, open(userId), (user) => {
    const decision = user.decide();
    const click = next() < (decision.arm % config.users === userId ? 0.5 : 0.05) ? 1 : 0;
    user.reward(decision.eventId, click);
    return decision.eventId;
  }, { unsafe: config.unsafe });
  latencies.push(performance.now() - begun);
  retries += outcome.retries;
  committed[userId] = (committed[userId] ?? 0) + 1;
}
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
console.log(JSON.stringify({
  process: config.process, committed, retries, dim, seconds,
  requestsPerSecond: config.steps / seconds, p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[Math.floor(latencies.length * 0.99)],
}));
lines.close();
await client.close();
catalogue.dispose();
