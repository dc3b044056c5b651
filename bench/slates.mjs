// Slates (issue 32): the cost of selectSlate(k) for k = 1, 10, 100 at K = 10^5 Gaussian arms in
// d = 32 (`--full` adds 10^6), Sub-TS over its HNSW graph (built beforehand with buildIndex(), the
// policy's default index options) against Linear TS's exact scan, unfiltered, with 10% of the labels
// allowed, and with 100 shown arms excluded. Both policies first learn for `--warm` steps from a
// planted theta (rewards x^T theta* + N(0, 1)); then each round times one selectSlate of each
// contender in turn and feeds the slate back (untimed), `--rounds` rounds a cell: ms per slate as
// medians, and the per-round ratio Sub-TS / Linear TS. Also Sub-TS's audited miss rate after the
// run (its audits compare the slate's first arm with the exact first of the same draw).
//   npm run bench -- slates [--full] [--n=N] [--rounds=R] [--warm=W]
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { textArg, numberArg } from './lib/args.mjs';

const DIM = 32;
const LABELS = 100;
const SLATES = [1, 10, 100];

function parseArgs(args) {
  const full = args.includes('--full');
  return {
    sizes: textArg(args, 'n', '') ? [numberArg(args, 'n', '')] : full ? [100000, 1000000] : [100000],
    rounds: numberArg(args, 'rounds', 200),
    warm: numberArg(args, 'warm', 300),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function slates(args, report) {
  const config = parseArgs(args);
  const sb = await init();
  const rows = [];
  for (const n of config.sizes) {
    const random = seededRandom(17 + n);
    const features = Float64Array.from({ length: n * DIM }, () => standardNormal(random));
    const labels = Uint32Array.from({ length: n }, () => Math.floor(random() * LABELS));
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const theta = Float64Array.from({ length: DIM }, () => standardNormal(random) / Math.sqrt(DIM));
    const mean = (id) => { let s = 0; for (let j = 0; j < DIM; j++) s += features[id * DIM + j] * theta[j]; return s; };
    const reward = (id) => mean(id) + standardNormal(random);

    report.progress(0, `building at ${n}`);
    const started = performance.now();
    const sub = new sb.SubTS({ dim: DIM, horizon: 20000, seed: 1 });
    sub.addArms(ids, features, { labels });
    sub.buildIndex();
    const buildSeconds = (performance.now() - started) / 1000;
    const linear = new sb.LinTS({ dim: DIM, horizon: 20000, seed: 1 });
    linear.addArms(ids, features, { labels });
    const contenders = [['SubTS', sub], ['LinTS', linear]];
    for (const [, policy] of contenders) {
      for (let t = 0; t < config.warm; t++) {
        const arm = policy.select();
        policy.update(arm, reward(arm));
      }
    }
    const shown = Array.from(linear.selectSlate(100));
    const filters = [
      ['none', undefined],
      ['10% of labels', { labels: Uint32Array.from({ length: LABELS / 10 }, (_, i) => i) }],
      ['exclude 100 shown', { exclude: shown }],
    ];
    for (const [what, options] of filters) {
      for (const k of SLATES) {
        report.progress(0, `${what}, k = ${k} at ${n}`);
        const times = contenders.map(() => []);
        for (let r = 0; r < config.rounds; r++) {
          contenders.forEach(([, policy], c) => {
            const start = performance.now();
            const slate = policy.selectSlate(k, options);
            times[c].push(performance.now() - start);
            // Feedback for the first position only: the posterior moves a little each round, as on a
            // page whose first item is the one clicked, without the update cost growing with k.
            policy.update(slate[0], reward(slate[0]));
          });
        }
        const [subMs, linearMs] = times.map(median);
        const ratio = median(times[0].map((time, r) => time / times[1][r]));
        rows.push([n, what, k, subMs, linearMs, ratio]);
      }
    }
    const approximation = sub.stats().approximation;
    report.note(`K = ${n}: SubTS's graph (its defaults at d = 32: M 8, efConstruction 16) added and built in ${buildSeconds.toFixed(1)} s (buildIndex); after the run its audits: ${approximation.audits} audits, miss rate ${approximation.missRate.toFixed(3)}, shortlist ${sub.stats().shortlist}.`);
    sub.dispose();
    linear.dispose();
  }
  report.table(`selectSlate(k) cost, d = ${DIM}, labels uniform over ${LABELS} (ms per slate, medians of ${config.rounds} interleaved rounds; ratio: median of per-round SubTS / LinTS)`,
    ['K', 'filter', 'k', 'SubTS ms', 'LinTS ms', 'SubTS / LinTS'], rows);
  report.data('slates', rows);
}
