// The load test of examples/redis-users (issue 55): service processes serving the same users at once,
// each user's model (a SubTS over one catalogue) in a fresh redis-server, written back by a
// compare-and-set on the user's key; then the same traffic with the last writer winning (--unsafe).
// Requests a second over all processes, the p99 of a request (the slowest process's), the retries
// after a lost compare-and-set, the rewards the processes committed against those the stored models
// hold, and the stored models that restore over a fresh copy of the catalogue and serve.
//   npm run bench -- redis-users [--processes=2] [--users=8] [--steps=1000]
import { loadavg } from 'node:os';
import { runExample } from '../examples/redis-users/main.mjs';
import { numberArg } from './lib/args.mjs';

export default async function redisUsers(args, report) {
  const processes = numberArg(args, 'processes', 2), users = numberArg(args, 'users', 8), steps = numberArg(args, 'steps', 1000), arms = 2000, dim = 16;
  report.note(`Configuration: ${processes} service processes, ${steps} requests each for users drawn at random among ${users}; one catalogue of ${arms} arms x ${dim} (its snapshot loaded by every process); each request restores the user's SubTS from Redis, decides, rewards the event and writes the model back. Debian's redis-server on a free port, no persistence. The machine is shared: the load average is given after each run.`);
  const rows = [];
  for (const unsafe of [false, true]) {
    const summary = await runExample({ processes, users, steps, unsafe, arms, dim });
    const committed = summary.checks.reduce((sum, check) => sum + check.committed, 0);
    const kept = summary.checks.reduce((sum, check) => sum + check.updates, 0);
    const serving = summary.checks.filter((check) => check.servesArm && check.updates === check.committed && check.rewarded === check.committed).length;
    rows.push([unsafe ? 'last writer wins (--unsafe)' : 'compare-and-set', summary.requests, summary.requestsPerSecond, summary.p99, summary.retries,
      `${kept} of ${committed}`, `${serving} of ${users}`, loadavg()[0].toFixed(1)]);
  }
  report.table('Load test: requests over users shared by the processes', ['writes', 'requests', 'requests a second', 'p99 ms a request', 'retries after a lost compare-and-set',
    'rewards kept in the stored models', 'models intact (every committed reward, restored and serving)', 'load average (1 min)'], rows);
}
