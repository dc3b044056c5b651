// What a false alarm of 'auto''s click detector costs (issue 51): regret in generated stationary
// Bernoulli linear worlds (bench/lib/drift-world.mjs's bernoulliWorld; several d, click rates,
// seeds), pages of 5, each policy with 'none' against 'auto' at the given settings, and the
// changes 'auto' found where nothing changed. The target: stationary regret within 1.1x
// of 'none''s. Regret of a page: the 5 best arms' click rates less the shown arms'.
//   node bench/experiments/click-regret.mjs [--level=L] [--margin=m] [--drop=rho] [--keep=share] [--warmup=w] [--types=a,b] [--pages=P] [--seeds=S] [--switch] [--show-changes]
// --show-changes prints the update at which each false alarm was raised.
// --switch: the same worlds with the taste turned half way, the pages each policy takes to regain
// 80% of its pre-switch reward above the average arm, against a fresh model ('none', started at
// the switch).
import init from '../../dist/index.js';
import { bernoulliWorld } from '../lib/drift-world.mjs';

const CLASSES = { 'lin-ucb': 'LinUCB', 'lin-ts': 'LinTS', 'sub-ts': 'SubTS', 'linear-elim': 'LinearElim', 'sub-elim': 'SubElim' };
const args = process.argv.slice(2);
const numberArg = (name, fallback) => {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const types = (args.find((a) => a.startsWith('--types=')) ?? `--types=${Object.keys(CLASSES).join(',')}`).slice(8).split(',');
const pages = numberArg('pages', 300);
const seeds = numberArg('seeds', 3);
const PAGE = 5;
const auto = {};
for (const [flag, key] of [['level', 'likelihoodThreshold'], ['margin', 'likelihoodMargin'], ['drop', 'dropRatio'], ['keep', 'alarmKeeps'], ['warmup', 'warmUp']]) {
  if (args.some((a) => a.startsWith(`--${flag}=`))) auto[key] = numberArg(flag, 0);
}
const forgettingAuto = Object.keys(auto).length ? auto : 'auto';
const sb = await init();
console.log(`'auto' settings: ${JSON.stringify(forgettingAuto)}; ${pages} pages of ${PAGE}, ${seeds} seeds`);

function topSum(world, t, arms) {
  const rates = Array.from({ length: arms }, (_, arm) => world.mean(t, arm)).sort((a, b) => b - a);
  return rates.slice(0, PAGE).reduce((a, b) => a + b, 0);
}

function play(type, world, dim, seed, forgetting, from = 0) {
  const policy = new sb[CLASSES[type]]({ dim, seed, forgetting });
  policy.addArms(world.ids, world.features);
  const rewardPerPage = new Float64Array(pages);
  let regret = 0;
  const best = [topSum(world, 0, world.ids.length), world.changeTimes.length ? topSum(world, world.changeTimes[0], world.ids.length) : 0];
  for (let page = from; page < pages; page++) {
    const t = page * PAGE;
    const top = world.changeTimes.length && t >= world.changeTimes[0] ? best[1] : best[0];
    let shown = 0;
    for (const arm of policy.selectSlate(PAGE)) {
      shown += world.mean(t, arm);
      policy.update(arm, world.reward(t, arm));
    }
    rewardPerPage[page] = shown;
    regret += top - shown;
  }
  const changes = policy.stats().forgetting.changes;
  if (changes && args.includes('--show-changes')) console.log(`    change at update ${policy.stats().forgetting.lastChange} (d ${dim} seed ${seed})`);
  policy.dispose();
  return { regret, changes, rewardPerPage };
}

const settings = [];
for (const dim of [8, 16, 32]) {
  for (const [base, spread] of [[0.02, 0.25], [0.05, 0.5], [0.1, 0.3]]) settings.push({ dim, base, spread });
}

if (!args.includes('--switch')) {
  for (const type of types) {
    const ratios = [];
    let alarms = 0;
    let histories = 0;
    let noneTotal = 0;
    let autoTotal = 0;
    for (const setting of settings) {
      let none = 0;
      let withAuto = 0;
      for (let seed = 1; seed <= seeds; seed++) {
        const world = () => bernoulliWorld({ ...setting, arms: 2000, seed });
        none += play(type, world(), setting.dim, seed, 'none').regret;
        const run = play(type, world(), setting.dim, seed, forgettingAuto);
        withAuto += run.regret;
        alarms += run.changes;
        histories += run.changes > 0 ? 1 : 0;
      }
      noneTotal += none;
      autoTotal += withAuto;
      ratios.push(withAuto / none);
      if (withAuto / none > 1.05) console.log(`  ${type} d ${setting.dim} base ${setting.base} spread ${setting.spread}: ${(withAuto / none).toFixed(3)}x`);
    }
    console.log(`${type}: regret 'auto' / 'none' per world (mean of ${seeds} seeds): max ${Math.max(...ratios).toFixed(3)}, ` +
      `overall ${(autoTotal / noneTotal).toFixed(3)}; ${alarms} changes found in ${histories} of ${settings.length * seeds} histories`);
  }
} else {
  const at = Math.floor(pages / 2);
  for (const type of types) {
    const found = [];
    for (const setting of settings) {
      for (let seed = 1; seed <= seeds; seed++) {
        const world = () => bernoulliWorld({ ...setting, arms: 2000, seed, change: 'switch', at: at * PAGE });
        const w = world();
        const average = w.average(0) * PAGE;
        const run = play(type, w, setting.dim, seed, forgettingAuto);
        const fresh = play(type, world(), setting.dim, seed, 'none', at);
        const none = play(type, world(), setting.dim, seed, 'none');
        const before = run.rewardPerPage.slice(at - 25, at).reduce((a, b) => a + b, 0) / 25;
        const level = average + 0.8 * (before - average);
        const regain = (series) => {
          for (let p = at; p + 10 <= pages; p++) {
            if (series.slice(p, p + 10).reduce((a, b) => a + b, 0) / 10 >= level) return p - at;
          }
          return Infinity;
        };
        found.push({ auto: regain(run.rewardPerPage), fresh: regain(fresh.rewardPerPage), none: regain(none.rewardPerPage), changes: run.changes });
      }
    }
    const med = (key) => {
      const s = found.map((f) => f[key]).sort((a, b) => a - b);
      return s[Math.floor(s.length / 2)];
    };
    console.log(`${type} switch: pages to regain 80% (median of ${found.length}): auto ${med('auto')}, fresh ${med('fresh')}, none ${med('none')}; ` +
      `auto not in time ${found.filter((f) => !Number.isFinite(f.auto)).length}, switches found ${found.filter((f) => f.changes > 0).length}`);
  }
}
