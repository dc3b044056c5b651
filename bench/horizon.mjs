// Total time against the horizon (issue 15): a sublinear policy pays for its index before its fast
// steps pay back, so what a user sees is setup plus steps up to the horizon they run. For each pair
// (Linear TS / Sub-TS, Linear Elim / Sub-Elim) with default options: the total time (addArms
// included) at each checkpoint horizon, the ratio sublinear / baseline there, the longest single
// call, and the regret at the end.
//
//   npm run bench -- horizon                 K = 10^5 for both pairs
//   npm run bench -- horizon --million       K = 10^6 for both pairs (saved as horizon-million)
//   options: --arms K (TS pair), --elim-arms K, --pair ts|elim (one pair only), --dim d, --horizon T (the last checkpoint)
// Arms are added in chunks of 25,000 (kChunk), as a page would add a large catalogue: an addArms
// costs about 1 us per arm (Sub-Elim lifts each arm to d(d+1)/2 dimensions), so one call with 10^6
// arms cannot stay under 50 ms, nor can one of 50,000 at K = 10^6. "Longest call" is a select, an
// update or one chunk (the stores grow by blocks, but a chunk that crosses a growth of their id
// maps rehashes them).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { kChunk } from './lib/horizon-play.mjs';
import { spacedNumberArg, spacedTextArg } from './lib/args.mjs';

const player = fileURLToPath(new URL('./lib/horizon-play.mjs', import.meta.url));

// One policy's cold start and timed run, in a fresh Node process (see lib/horizon-play.mjs).
function playAlone(policy, arms, dim, checkpoints) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [player, JSON.stringify({ policy, arms, dim, checkpoints })], { maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${policy}: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

export default async function horizon(args, report) {
  const million = args.includes('--million');
  const dim = spacedNumberArg(args, 'dim', 16);
  const last = spacedNumberArg(args, 'horizon', 50000);
  const checkpoints = [10, 100, 1000, 3000, 10000, 15000, 20000, 50000].filter((t) => t < last).concat([last]);
  const only = spacedTextArg(args, 'pair', null);
  const pairs = [
    ['LinTS', 'SubTS', spacedNumberArg(args, 'arms', million ? 1e6 : 1e5), 'ts'],
    ['LinearElim', 'SubElim', spacedNumberArg(args, 'elim-arms', million ? 1e6 : 1e5), 'elim'],
  ].filter(([, , , name]) => only === null || name === only);
  report.note(`Configuration: default options, Gaussian arms of dimension ${dim}, a unit theta, noise 0.3, seed 1; ` +
    `pairs ${pairs.map(([a, b, k]) => `${a} / ${b} at K = ${k}`).join(', ')}; checkpoints ${checkpoints.join(', ')}. ` +
    `Total = addArms (${kChunk} arms a call) + every select and update up to the checkpoint (wasm in Node, driven from JavaScript). ` +
    'Each policy runs in a Node process of its own: 20 steps from a fresh wasm heap (the cold start), then the timed run. ' +
    '"ratio" = sublinear total / baseline total: below 1 the sublinear policy has paid for its index.');
  for (const [baseline, sublinear, arms] of pairs) {
    report.progress(0, `${baseline} K=${arms}`);
    const first = await playAlone(baseline, arms, dim, checkpoints);
    report.progress(0.5, `${sublinear} K=${arms}`);
    const second = await playAlone(sublinear, arms, dim, checkpoints);
    report.progress(1, `${sublinear} K=${arms}`);
    const [a, b] = [first.run, second.run];
    report.table(`${baseline} against ${sublinear}, K = ${arms}: total seconds at each horizon`,
      ['horizon', `${baseline} s`, `${sublinear} s`, 'ratio'],
      checkpoints.map((t, i) => [t, a.totals[i] / 1000, b.totals[i] / 1000, b.totals[i] / a.totals[i]]));
    const worst = Math.max(...checkpoints.map((_, i) => b.totals[i] / a.totals[i]));
    const ahead = checkpoints.find((t, i) => checkpoints.slice(i).every((_, j) => b.totals[i + j] < a.totals[i + j]));
    report.table(`${baseline} against ${sublinear}, K = ${arms}: setup, steps, longest call, regret at T = ${last}, index complete`,
      ['policy', 'setup s', 'steps s', 'longest call ms', 'longest call', 'calls over 50 ms', 'regret', 'index complete at step'],
      [[baseline, a.setup / 1000, (a.totals.at(-1) - a.setup) / 1000, a.longest, a.longestCall, `${a.over50} of ${a.calls}`, a.regret, '-'],
        [sublinear, b.setup / 1000, (b.totals.at(-1) - b.setup) / 1000, b.longest, b.longestCall, `${b.over50} of ${b.calls}`, b.regret, b.built < 0 ? `not by ${last}` : b.built]]);
    report.table(`${baseline} against ${sublinear}, K = ${arms}: cold start (a fresh process's first setup and 20 steps, before the timed run)`,
      ['policy', 'setup s', 'longest call ms', 'longest call'],
      [[baseline, first.cold.setup / 1000, first.cold.longest, first.cold.longestCall],
        [sublinear, second.cold.setup / 1000, second.cold.longest, second.cold.longestCall]]);
    report.note(`${sublinear} / ${baseline}: steps alone (select and update, setup left out) ×${((b.totals.at(-1) - b.setup) / (a.totals.at(-1) - a.setup)).toFixed(2)}; ` +
      `largest ratio over the checkpoints ${worst.toFixed(2)} (the bound is 2); ` +
      (ahead === undefined ? `not ahead by T = ${last}.` : `ahead from the checkpoint T = ${ahead} on.`));
    report.data(`${baseline}-${sublinear}`, { arms, checkpoints, baseline: a, sublinear: b, cold: { baseline: first.cold, sublinear: second.cold } });
  }
}
