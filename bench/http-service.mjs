// The load test of examples/http-service (issue 55): clients at once against two service processes
// behind a round-robin (POST /decide, then POST /reward by event id: at once, or late and straight
// to the process that did not decide), each user's model (a SubTS over one catalogue) in a fresh
// redis-server, written by a compare-and-set on the user's key; then the same traffic with the last
// writer winning (--unsafe). Requests a second and latencies as the clients saw them (HTTP through
// the round-robin), the retries after a lost compare-and-set, the rewards and decisions answered 200
// against those the stored models hold, and the models intact.
//   npm run bench -- http-service [--clients=8] [--decisions=200] [--users=64]
import { loadavg } from 'node:os';
import { runExample } from '../examples/http-service/main.mjs';
import { numberArg } from './lib/args.mjs';

export default async function httpService(args, report) {
  const clients = numberArg(args, 'clients', 8), decisions = numberArg(args, 'decisions', 200), users = numberArg(args, 'users', 64), late = 0.3, arms = 2000, dim = 16;
  report.note(`Configuration: ${clients} clients at once, ${decisions} decisions each for users drawn at random among ${users}, each decision's reward sent at once through the round-robin or (${late * 100}% of them) later and straight to the other process; two service processes (node:http) behind a round-robin (node:http), all on this machine; one catalogue of ${arms} arms x ${dim}; each request restores the user's SubTS from Redis, decides or rewards, and writes the model back. Debian's redis-server on a free port, no persistence. The machine is shared: the load average is given after each run.`);
  const rows = [];
  for (const unsafe of [false, true]) {
    const summary = await runExample({ clients, decisions, users, late, unsafe, arms, dim });
    const decided = summary.decided.reduce((sum, count) => sum + count, 0);
    rows.push([unsafe ? 'last writer wins (--unsafe)' : 'compare-and-set', summary.requests, summary.requestsPerSecond, summary.p50, summary.p99, summary.retries,
      `${summary.lateRewards} (${summary.otherProcess})`, summary.failures.length, `${summary.rewardsKept} of ${summary.rewardsCommitted}`,
      `${decided - summary.lostDecisions} of ${decided}`, `${summary.intact} of ${users}`, loadavg()[0].toFixed(1)]);
  }
  report.table('Load test: HTTP clients against two processes behind a round-robin', ['writes', 'requests', 'requests a second', 'p50 ms a request', 'p99 ms a request',
    'retries after a lost compare-and-set', 'late rewards (to the other process)', 'requests not answered 200', 'rewards answered 200 kept in the stored models',
    'decisions answered 200 kept', 'models intact (every 200 in the model, restored and serving)', 'load average (1 min)'], rows);
}
