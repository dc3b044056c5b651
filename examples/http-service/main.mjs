// The example end to end: `node examples/http-service/main.mjs [clients] [decisions] [users] [--redis URL] [--unsafe]`.
// Builds one catalogue and saves its snapshot; starts Debian's redis-server (unless `--redis` names
// one), two service processes (server.mjs) on two ports and the round-robin (proxy.mjs) in front of
// them; then the load test: `clients` clients at once, each making `decisions` decisions for users
// drawn at random, each followed by its reward: at once through the round-robin, or (a share `late`)
// later, straight to the process that did not make the decision. Then every user as stored in Redis:
// its model counts every decision and every reward the clients got a 200 for (none lost, no fork),
// and restores over a fresh copy of the catalogue and serves. `--unsafe`: the services write without
// the compare-and-set (last writer wins), to show what is then lost.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import init from 'sublinear-bandits';
import { saveCatalogue, startRedis } from '../redis-users/main.mjs';
import { connectStore, loadUser, userKey } from '../redis-users/store.mjs';
import { startProxy } from './proxy.mjs';

function startServer(config) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('server.mjs', import.meta.url)), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`service ${config.name} exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => { if (line.startsWith('listening ')) resolve(Number(line.slice(10))); });
  });
  const stop = () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); });
  return port.then((at) => { child.removeAllListeners('exit'); return { name: config.name, port: at, stop }; });
}

// Redis (given or started), the catalogue snapshot, `processes` services and the round-robin.
export async function startServices({ processes = 2, url = null, unsafe = false, arms = 2000, dim = 16 } = {}) {
  const sb = await init({ threads: 1 });
  const folder = mkdtempSync(join(tmpdir(), 'http-service-'));
  const redisServer = url ? null : await startRedis();
  const redisUrl = url ?? redisServer.url;
  const { catalogue, file } = saveCatalogue(sb, folder, { arms, dim });
  const services = await Promise.all(Array.from({ length: processes }, (_, index) => startServer({ name: `service-${index}`, url: redisUrl, catalogue: file, unsafe })));
  const proxy = await startProxy(services.map((service) => service.port));
  const { client, redis } = await connectStore(redisUrl);
  return {
    sb, catalogue, redis, services, redisUrl,
    proxyUrl: `http://127.0.0.1:${proxy.port}`,
    serviceUrl: (name) => `http://127.0.0.1:${services.find((service) => service.name === name).port}`,
    async stop() {
      await proxy.close();
      await Promise.all(services.map((service) => service.stop()));
      await client.close();
      catalogue.dispose();
      if (redisServer) await redisServer.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

// POST `body` as JSON; { status, body, service and retries (the x-service and x-retries headers), ms }.
export async function post(url, body) {
  const begun = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  return { status: response.status, body: answer, service: response.headers.get('x-service'), retries: Number(response.headers.get('x-retries') ?? 0), ms: performance.now() - begun };
}

// The clients at once. Returns what they got a 200 for, per user, and the latencies.
export async function loadTest(running, { clients = 8, decisions = 50, users = 8, late = 0.3, seed = 1 } = {}) {
  const decided = new Array(users).fill(0), rewarded = new Array(users).fill(0), clicks = new Array(users).fill(0);
  const latencies = [], failures = [];
  let lateRewards = 0, otherProcess = 0, retries = 0;
  const served = {};  // decisions a process made
  const names = running.services.map((service) => service.name);
  const call = async (url, body) => {
    const result = await post(url, body);
    latencies.push(result.ms);
    retries += result.retries;
    if (result.status !== 200) failures.push({ url, body, status: result.status, error: result.body.error });
    return result;
  };
  const reward = async (url, pending) => {
    const { status } = await call(`${url}/reward`, { user: pending.user, eventId: pending.eventId, reward: pending.click });
    if (status === 200) { rewarded[pending.user]++; clicks[pending.user] += pending.click; }
  };
  // A late reward goes straight to the process that did not decide (the other one, with two).
  const rewardLate = (pending) => {
    lateRewards++;
    const other = names.find((name) => name !== pending.service) ?? pending.service;
    if (other !== pending.service) otherProcess++;
    return reward(running.serviceUrl(other), pending);
  };
  const client = async (index) => {
    let random = (seed * 7919 + index * 104729) >>> 0 || 1;
    const next = () => ((random = (Math.imul(random, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const waiting = [];
    for (let step = 0; step < decisions; step++) {
      const user = Math.floor(next() * users);
      const decision = await call(`${running.proxyUrl}/decide`, { user });
      if (decision.status === 200) {
        decided[user]++;
        served[decision.service] = (served[decision.service] ?? 0) + 1;
        // The world: user u clicks arms with id = u modulo users half the time, others one time in 20.
        const click = next() < (decision.body.arm % users === user ? 0.5 : 0.05) ? 1 : 0;
        const pending = { user, eventId: decision.body.eventId, click, service: decision.service };
        if (next() < late) waiting.push(pending);
        else await reward(running.proxyUrl, pending);
      }
      // Now and then a late reward arrives, the oldest first.
      if (waiting.length && next() < 0.3) await rewardLate(waiting.shift());
    }
    for (const pending of waiting) await rewardLate(pending);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    clients, users, requests: latencies.length, seconds, requestsPerSecond: latencies.length / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)], p99: latencies[Math.floor(latencies.length * 0.99)],
    decided, rewarded, clicks, lateRewards, otherProcess, retries, served, failures,
  };
}

// Every user as stored against what the clients got a 200 for.
export async function checkUsers(running, load) {
  const { sb } = running;
  const fresh = sb.Catalogue.fromBytes(running.catalogue.toBytes());
  const checks = [];
  for (let user = 0; user < load.users; user++) {
    const { version, state } = await loadUser(running.redis, user);
    const check = { user, decided: load.decided[user], rewarded: load.rewarded[user], version };
    if (state) {
      const model = sb.SubTS.fromBytes(state, { catalogue: fresh });
      const { decisions, updates } = model.stats();
      Object.assign(check, { storedDecisions: decisions.decisions, storedRewarded: decisions.rewarded, pending: decisions.pending, updates, servesArm: Number.isInteger(model.select()) });
      model.dispose();
    }
    // Intact: every decision and reward answered 200 is in the model, and every write was one of them.
    check.intact = check.storedDecisions === check.decided && check.storedRewarded === check.rewarded && check.updates === check.rewarded
      && check.version === check.decided + check.rewarded && check.servesArm === true;
    checks.push(check);
  }
  fresh.dispose();
  const sum = (key) => checks.reduce((total, check) => total + (check[key] ?? 0), 0);
  return {
    checks,
    intact: checks.filter((check) => check.intact).length,
    lostDecisions: sum('decided') - sum('storedDecisions'),
    lostRewards: sum('rewarded') - sum('storedRewarded'),
    rewardsKept: sum('storedRewarded'), rewardsCommitted: sum('rewarded'),
  };
}

export async function runExample({ clients = 8, decisions = 50, users = 8, late = 0.3, url = null, unsafe = false, arms = 2000, dim = 16, log = () => {} } = {}) {
  const running = await startServices({ url, unsafe, arms, dim });
  try {
    for (let user = 0; user < users; user++) await running.redis.del(userKey(user));
    log(`${running.services.map((service) => `${service.name} on port ${service.port}`).join(', ')} behind ${running.proxyUrl}; Redis at ${running.redisUrl}${unsafe ? ' (--unsafe: no compare-and-set)' : ''}`);
    const load = await loadTest(running, { clients, decisions, users, late });
    const models = await checkUsers(running, load);
    log(`${load.requests} requests from ${clients} clients over ${users} users in ${load.seconds.toFixed(2)} s: ${load.requestsPerSecond.toFixed(0)} a second, p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms; ${load.retries} retries after a lost compare-and-set`);
    log(`${load.lateRewards} rewards late, ${load.otherProcess} of them to the process that had not decided; ${load.failures.length} requests not answered 200`);
    for (const check of models.checks) log(`user ${check.user}: ${check.decided} decisions and ${check.rewarded} rewards answered 200; stored model: ${check.storedDecisions} decisions, ${check.storedRewarded} rewarded, version ${check.version}${check.intact ? '' : ' (NOT intact)'}`);
    log(`${models.intact} of ${users} models intact; ${models.rewardsKept} of ${models.rewardsCommitted} rewards kept; ${models.lostDecisions} decisions lost`);
    return { ...load, ...models };
  } finally {
    await running.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--redis');
  const url = at >= 0 ? args.splice(at, 2)[1] : null;
  const unsafe = args.includes('--unsafe');
  const [clients = 8, decisions = 50, users = 8] = args.filter((arg) => !arg.startsWith('--')).map(Number);
  const summary = await runExample({ clients, decisions, users, url, unsafe, log: console.log });
  process.exitCode = summary.intact === users || unsafe ? 0 : 1;
}
