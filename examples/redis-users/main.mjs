// The example end to end: `node examples/redis-users/main.mjs [processes] [users] [steps] [--redis URL]`.
// Builds one catalogue and saves its snapshot (every process loads the same one); starts Debian's
// redis-server on a free port in a temporary folder unless `--redis` names one; starts the service
// processes (service.mjs), which serve the same users at the same time with each user's model in
// Redis; then checks every user: the stored model counts every reward the processes committed (none
// lost) and restores over a fresh copy of the catalogue. `--unsafe` writes without the
// compare-and-set, to show the updates that are then lost.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import init from 'sublinear-bandits';
import { connectStore, loadUser } from './store.mjs';

const freePort = () => new Promise((resolve, reject) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  }).on('error', reject);
});

// redis-server on a free port, its files in a temporary folder, no persistence; `stop()` ends it.
export async function startRedis({ command = 'redis-server' } = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'redis-users-'));
  const port = await freePort();
  const server = spawn(command, ['--port', String(port), '--bind', '127.0.0.1', '--dir', folder, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise((resolve, reject) => {
    server.on('error', (error) => reject(error.code === 'ENOENT'
      ? new Error(`${command} is not installed: run scripts/bootstrap.sh as root (Debian package redis-server)`) : error));
    server.on('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    server.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
  }).catch((error) => { rmSync(folder, { recursive: true, force: true }); throw error; });
  server.removeAllListeners('exit');
  const stop = () => new Promise((resolve) => {
    server.once('exit', () => { rmSync(folder, { recursive: true, force: true }); resolve(); });
    server.kill('SIGTERM');
  });
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}

// One catalogue for every process: built once, shipped as its snapshot (`file`, in `folder`).
export function saveCatalogue(sb, folder, { arms, dim }) {
  let seed = 7;
  const uniform = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
  const catalogue = new sb.Catalogue({ dim, seed: 1 });
  catalogue.add(Uint32Array.from({ length: arms }, (_, i) => i), Float32Array.from({ length: arms * dim }, uniform));
  catalogue.build();
  const file = join(folder, 'catalogue.sbst');
  writeFileSync(file, catalogue.toBytes());
  return { catalogue, file };
}

function startService(config) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('service.mjs', import.meta.url)), JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise((resolve, reject) => {
    child.on('error', reject);
    lines.on('line', (line) => { if (line === 'ready') resolve(); });
  });
  const done = new Promise((resolve, reject) => {
    let last = '';
    lines.on('line', (line) => { last = line; });
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(last)) : reject(new Error(`service ${config.process} exited with ${code}`))));
  });
  return { ready, done, go: () => child.stdin.end('go\n') };
}

export async function runExample({ processes = 2, users = 4, steps = 200, url = null, unsafe = false, arms = 2000, dim = 16, log = () => {} } = {}) {
  const sb = await init({ threads: 1 });
  const folder = mkdtempSync(join(tmpdir(), 'redis-users-catalogue-'));
  const redisServer = url ? null : await startRedis();
  const redisUrl = url ?? redisServer.url;
  const { client, redis } = await connectStore(redisUrl);
  try {
    const { catalogue, file: catalogueFile } = saveCatalogue(sb, folder, { arms, dim });
    log(`catalogue: ${arms} arms x ${dim} in ${url ? 'the given Redis' : 'a fresh redis-server'} at ${redisUrl}`);
    for (let userId = 0; userId < users; userId++) await redis.del(`user:${userId}`);

    const services = Array.from({ length: processes }, (_, index) => startService({ process: index, url: redisUrl, catalogue: catalogueFile, users, steps, seed: 1 + index, unsafe }));
    await Promise.all(services.map((service) => service.ready));
    const started = performance.now();
    services.forEach((service) => service.go());
    const reports = await Promise.all(services.map((service) => service.done));
    const seconds = (performance.now() - started) / 1000;

    // Every user as stored: the rewards its model counts against the rewards the processes committed.
    const checks = [];
    const fresh = sb.Catalogue.fromBytes(catalogue.toBytes());
    for (let userId = 0; userId < users; userId++) {
      const committed = reports.reduce((sum, report) => sum + (report.committed[userId] ?? 0), 0);
      const { version, state } = await loadUser(redis, userId);
      const user = sb.SubTS.fromBytes(state, { catalogue: fresh });
      const stats = user.stats();
      const arm = user.select();  // the reloaded model serves
      checks.push({ userId, committed, version, updates: stats.updates, rewarded: stats.decisions.rewarded, bytes: state.length, servesArm: Number.isInteger(arm) });
      user.dispose();
    }
    fresh.dispose();
    catalogue.dispose();
    const lost = checks.reduce((sum, check) => sum + (check.committed - check.updates), 0);
    const requests = processes * steps;
    const summary = {
      processes, users, requests, seconds, requestsPerSecond: requests / seconds,
      p99: Math.max(...reports.map((report) => report.p99)), retries: reports.reduce((sum, report) => sum + report.retries, 0), lost, checks, reports,
    };
    log(`${requests} requests from ${processes} processes over ${users} users in ${seconds.toFixed(2)} s (${summary.requestsPerSecond.toFixed(0)} a second, p99 ${summary.p99.toFixed(1)} ms), ${summary.retries} retries after a lost compare-and-set`);
    for (const check of checks) log(`user ${check.userId}: ${check.committed} rewards committed, ${check.updates} in the stored model (version ${check.version}, ${check.bytes} bytes)`);
    log(lost === 0 ? 'no update lost' : `${lost} updates lost`);
    return summary;
  } finally {
    await client.close();
    if (redisServer) await redisServer.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--redis');
  const url = at >= 0 ? args.splice(at, 2)[1] : null;
  const unsafe = args.includes('--unsafe');
  const [processes = 2, users = 4, steps = 200] = args.filter((arg) => !arg.startsWith('--')).map(Number);
  const { lost } = await runExample({ processes, users, steps, url, unsafe, log: console.log });
  process.exitCode = lost === 0 || unsafe ? 0 : 1;
}
