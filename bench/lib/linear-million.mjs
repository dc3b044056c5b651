// `npm run bench -- linear --million`: Linear TS against Sub-TS with default options at K = 10^6
// (d = 16), regret over seeds, setup, step time, the longest step and the wasm heap, in Node and in
// one Chromium page, side by side in one run. `--pair elim`: Linear Elim against Sub-Elim instead
// (save it with --save-as linear-million-elim).
//   options: --arms K (10^6), --horizon T (3,000), --seeds N (5), --theta-norm s (1),
//            --distribution gaussian | unit, --noise sigma (1), --node-only, --pair ts | elim,
//            --build-index yes | no (buildIndex() in the setup; default yes for ts, no for elim:
//            Sub-Elim's first stage holds every arm in d(d+1)/2 = 136 dimensions, whose graph
//            takes minutes at 10^5 arms), --storage f32 | int8 (the Sub-TS graph's storage,
//            index { type: 'hnsw', storage }; save it with --save-as linear-million-int8)
import init from '../../dist/index.js';
import { playOneSeed } from './linear-million-run.mjs';
import { openRepositoryPage } from './chromium-page.mjs';

// The exact baseline and its sublinear policy, with what the configuration line says of them.
const PAIRS = {
  ts: { types: ['lin-ts', 'sub-ts'], names: ['Linear TS', 'Sub-TS'], classes: 'LinTS and SubTS',
    index: 'Sub-TS: hnsw M 16, efConstruction 16, efSearch 64, shortlist 30, audits 10% of the search work', buildIndex: true },
  elim: { types: ['linear-elim', 'sub-elim'], names: ['Linear Elim', 'Sub-Elim'], classes: 'LinearElim and SubElim',
    index: 'Sub-Elim: an hnsw index per stage over the lifts x x^T (136 dimensions), shortlist 30, audits 10% of the search work', buildIndex: false },
};

function parse(args) {
  const config = { arms: 1000000, dim: 16, horizon: 3000, seeds: 5, thetaNorm: 1, distribution: 'gaussian', noise: 1, nodeOnly: false, pair: 'ts', buildIndex: null, storage: null };
  for (let i = 0; i < args.length; i++) {
    const next = () => args[++i];
    if (args[i] === '--million') continue;
    else if (args[i] === '--arms') config.arms = Number(next());
    else if (args[i] === '--horizon') config.horizon = Number(next());
    else if (args[i] === '--seeds') config.seeds = Number(next());
    else if (args[i] === '--theta-norm') config.thetaNorm = Number(next());
    else if (args[i] === '--distribution') config.distribution = next();
    else if (args[i] === '--noise') config.noise = Number(next());
    else if (args[i] === '--node-only') config.nodeOnly = true;
    else if (args[i] === '--pair') config.pair = next();
    else if (args[i] === '--build-index') config.buildIndex = next() === 'yes';
    else if (args[i] === '--storage') config.storage = next();
    else throw new Error(`unknown argument ${args[i]} (with --million: --arms, --horizon, --seeds, --theta-norm, --distribution, --noise, --node-only, --pair ts|elim, --build-index yes|no, --storage f32|int8)`);
  }
  if (!PAIRS[config.pair]) throw new Error(`--pair takes ts or elim, got ${config.pair}`);
  if (config.storage !== null && (config.pair !== 'ts' || !['f32', 'int8'].includes(config.storage))) {
    throw new Error(`--storage takes f32 or int8, with --pair ts (the Sub-TS graph), got ${config.storage}`);
  }
  config.buildIndex ??= PAIRS[config.pair].buildIndex;
  return config;
}

// Runs in the page: the same module on the same seeds.
async function runInPage({ config, seed, type }) {
  const { default: initInPage } = await import('/dist/index.js');
  const { playOneSeed: play } = await import('/bench/lib/linear-million-run.mjs');
  const sb = await initInPage();
  return play(sb, config, seed, type);
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const std = (values) => (values.length < 2 ? 0 : Math.sqrt(values.reduce((a, b) => a + (b - mean(values)) ** 2, 0) / (values.length - 1)));

export default async function linearMillion(args, report) {
  const config = parse(args);
  const pair = PAIRS[config.pair];
  const [baseline, sublinear] = pair.names;
  report.note(`Configuration: K = ${config.arms} ${config.distribution} arms, d = ${config.dim}, |theta*| = ${config.thetaNorm}, ` +
    `noise ${config.noise}, T = ${config.horizon}, seeds 1..${config.seeds}; ${pair.classes} with default options ` +
    `(practical radius, ${pair.index}${config.storage ? `, its graph over ${config.storage} storage` : ''}); ` +
    'each step is one select() and one update() from JavaScript. ' +
    (config.buildIndex
      ? 'Setup is the constructor, addArms of all arms and buildIndex() (the whole index built at once; bench horizon measures the default, built a slice per step); '
      : 'Setup is the constructor and addArms of all arms (no buildIndex(): the indexes are built a slice per search, the default); ') +
    'heap is the wasm memory the policy holds after the run (default options).');
  const runtimes = [['Node', null]];
  const chromium = config.nodeOnly ? null : await openRepositoryPage('linear-million');
  if (chromium) runtimes.push(['Chromium', chromium.page]);
  const sb = await init();
  const results = [];
  try {
    const total = runtimes.length * config.seeds * 2;
    let done = 0;
    for (const [runtime, page] of runtimes) {
      for (let seed = 1; seed <= config.seeds; seed++) {
        for (const type of pair.types) {
          report.progress(done / total, `${runtime} ${type} seed ${seed}`);
          const result = page ? await page.evaluate(runInPage, { config, seed, type }) : playOneSeed(sb, config, seed, type);
          results.push({ runtime, ...result });
          done += 1;
        }
      }
    }
    report.progress(1);
  } finally {
    if (chromium) await chromium.close();
  }
  const rows = [];
  for (const [runtime] of runtimes) {
    const pick = (type) => results.filter((r) => r.runtime === runtime && r.type === type);
    const ts = pick(pair.types[0]);
    const sub = pick(pair.types[1]);
    for (const [name, list] of [[baseline, ts], [sublinear, sub]]) {
      const regrets = list.map((r) => r.regret);
      const audits = list.reduce((sum, r) => sum + (r.approximation?.audits ?? 0), 0);
      const misses = list.reduce((sum, r) => sum + (r.approximation?.misses ?? 0), 0);
      rows.push([runtime, name, `${mean(regrets).toFixed(1)} ± ${std(regrets).toFixed(1)}`, regrets.map((r) => r.toFixed(0)).join(' '),
        mean(list.map((r) => r.setupMs)) / 1000, mean(list.map((r) => r.stepMs)), Math.max(...list.map((r) => r.longestMs)),
        Math.max(...list.map((r) => r.heapBytes)) / 2 ** 20, list[0].approximation ? `${misses} / ${audits}` : '—']);
    }
    const ratioRegret = mean(sub.map((r) => r.regret)) / mean(ts.map((r) => r.regret));
    const ratioStep = mean(ts.map((r) => r.stepMs)) / mean(sub.map((r) => r.stepMs));
    const totalTs = mean(ts.map((r) => r.setupMs + r.stepMs * config.horizon));
    const totalSub = mean(sub.map((r) => r.setupMs + r.stepMs * config.horizon));
    // Total time against the horizon: setup + T x step for each; the sublinear policy's total drops
    // below its baseline's from T = (setup_sub - setup_ts) / (step_ts - step_sub).
    const setupGap = mean(sub.map((r) => r.setupMs)) - mean(ts.map((r) => r.setupMs));
    const stepGap = mean(ts.map((r) => r.stepMs)) - mean(sub.map((r) => r.stepMs));
    const crossover = stepGap > 0 ? Math.max(0, Math.ceil(setupGap / stepGap)) : Infinity;
    report.note(`${runtime}: ${sublinear} regret ×${ratioRegret.toFixed(3)} of ${baseline}'s (mean of ${config.seeds} seeds); ` +
      `steps ×${ratioStep.toFixed(1)} faster; total time with setup ×${(totalTs / totalSub).toFixed(2)} ` +
      `(${(totalSub / 1000).toFixed(1)} s against ${(totalTs / 1000).toFixed(1)} s at T = ${config.horizon}); ` +
      `${sublinear}'s total time drops below ${baseline}'s from T = ${Number.isFinite(crossover) ? crossover : 'never'}.`);
  }
  report.table(`${baseline} against ${sublinear} at K = ${config.arms}, d = ${config.dim}, T = ${config.horizon}`,
    ['runtime', 'policy', 'regret mean ± std', 'regret per seed', 'setup s', 'ms / step', 'longest step ms', 'heap MiB', 'audit misses / audits'], rows);
  report.data('million', { config, results });
}
