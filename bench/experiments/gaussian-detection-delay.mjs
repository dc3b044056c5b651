// Where LinUCB's steps go after the drift benchmark's Gaussian switch (issue 51): for each seed, the
// step after the switch at which 'auto' found it, the mean the old favourite keeps under the new
// taste against the new best arm's, and the alarms raised before the switch, at the default alarm
// level and at lower ones (the object form's `threshold`, internal). The world is bench/drift.mjs's:
// d = 16, 2,000 arms, noise 0.5, |theta*| = 1, theta* turned to an orthogonal one at step 2,000.
//   node bench/experiments/gaussian-detection-delay.mjs [--seeds=10] [--levels=18,12,9]
import init from '../../dist/index.js';
import { gaussianWorld } from '../lib/drift-world.mjs';
import { numberArg, textArg } from '../lib/args.mjs';

const args = process.argv.slice(2);
const seeds = numberArg(args, 'seeds', 10);
const levels = textArg(args, 'levels', '18,12,9').split(',').map(Number);
const at = 2000;
const sb = await init({ threads: 1 });
console.log(`LinUCB (defaults but the alarm level), the drift benchmark's Gaussian switch at step ${at}, seeds 1-${seeds}`);
console.log('| level | seed | found after (steps) | alarms before the switch | old favourite\'s new mean | new best mean |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const threshold of levels) {
  for (let seed = 1; seed <= seeds; seed++) {
    const world = gaussianWorld({ seed, change: 'switch', at });
    const policy = new sb.LinUCB({ dim: world.dim, seed: 5, forgetting: { threshold } });
    policy.addArms(world.ids, world.features);
    let before = 0;
    let found = Infinity;
    let favourite = -1;
    for (let t = 0; t < at + 400; t++) {
      const arm = policy.select();
      if (t === at) favourite = arm;
      policy.update(arm, world.reward(t, arm));
      const changes = policy.stats().forgetting.changes;
      if (t < at) before = changes;
      else if (changes > before && !Number.isFinite(found)) found = t - at;
    }
    const kept = world.mean(at, favourite);
    console.log(`| ${threshold} | ${seed} | ${Number.isFinite(found) ? found : 'not in 400'} | ${before} | ${kept.toFixed(2)} | ${world.best(at).toFixed(2)} |`);
    policy.dispose();
  }
}
