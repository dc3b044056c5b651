// Decisions (issue 33): what decide() costs beside select(), the same policy and state, interleaved.
// decide() selects as select() does, then estimates the propensity (Thompson sampling: the scores of
// the candidates that can win, drawn `propensityDraws` times; the others: nothing to estimate) and
// keeps the decision's features until its reward. Gaussian arms (unit-norm rows), theta* random,
// noise 0.1; each cell warms the policy up with W select + update steps (Sub-TS: graph built), then
// times S steps of select + update and S steps of decide + reward, alternating: median ms a step.
//   npm run bench -- decide [--full] [--steps=S] [--warm=W]
import init from '../dist/index.js';
import { median, unitRows } from './lib/catalogue-run.mjs';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { numberArg } from './lib/args.mjs';

function parseArgs(args) {
  const full = args.includes('--full');
  return { sizes: full ? [10000, 100000, 1000000] : [10000, 100000], dims: [32, 128], steps: numberArg(args, 'steps', 200), warm: numberArg(args, 'warm', 300) };
}

export default async function decide(args, report) {
  const config = parseArgs(args);
  const sb = await init();
  const rows = [];
  for (const count of config.sizes) {
    for (const dim of config.dims) {
      const features = unitRows(count, dim, 7 + dim);
      const random = seededRandom(8 + dim);
      const theta = Float64Array.from({ length: dim }, () => standardNormal(random) / Math.sqrt(dim));
      const ids = Uint32Array.from({ length: count }, (_, i) => i);
      const reward = (arm) => {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += features[arm * dim + j] * theta[j];
        return sum + 0.1 * standardNormal(random);
      };
      const contenders = [
        ['LinUCB', { }], ['LinUCB, explore 0.1', { explore: 0.1 }], ['Linear TS', { }, 'LinTS'],
        ['Sub-TS', { }, 'SubTS'], ['Sub-TS, 64 draws', { propensityDraws: 64 }, 'SubTS'], ['Sub-TS, 1,024 draws', { propensityDraws: 1024 }, 'SubTS'],
      ];
      for (const [name, options, className = 'LinUCB'] of contenders) {
        const policy = new sb[className]({ dim, seed: 1, ...options });
        policy.addArms(ids, features);
        for (let t = 0; t < config.warm; t++) {
          const arm = policy.select();
          policy.update(arm, reward(arm));
        }
        policy.buildIndex();
        const selects = [];
        const decides = [];
        let propensitySum = 0;
        let errorSum = 0;
        for (let t = 0; t < config.steps; t++) {
          let start = performance.now();
          const arm = policy.select();
          policy.update(arm, reward(arm));
          selects.push(performance.now() - start);
          start = performance.now();
          const d = policy.decide();
          policy.reward(d.eventId, reward(d.arm));
          decides.push(performance.now() - start);
          propensitySum += d.propensity;
          errorSum += d.propensityError;
        }
        const select = median(selects);
        const decided = median(decides);
        rows.push([count, dim, name, select.toFixed(3), decided.toFixed(3), (decided / select).toFixed(2),
          (propensitySum / config.steps).toFixed(3), (errorSum / config.steps).toFixed(4)]);
        report.progress(rows.length / (config.sizes.length * config.dims.length * contenders.length), `${count} x ${dim} ${name}`);
        policy.dispose();
      }
    }
  }
  report.table(`decide() beside select(): median ms a step (with its update or reward), ${config.steps} steps after ${config.warm}`,
    ['K', 'd', 'policy', 'select + update', 'decide + reward', 'x select', 'mean propensity', 'mean standard error'], rows);
}
