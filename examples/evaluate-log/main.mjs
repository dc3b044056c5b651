// Evaluating a log from the command line: `node examples/evaluate-log/main.mjs [users] [records] [folder]`.
// 1. A simulated shop: a catalogue of items, users with hidden tastes, clicks a coin of a logistic
//    function of the taste and the item, sigma(-1 + 3 x^T theta). Each user is served by an exploring logger (a LinUCB over
//    the catalogue with `explore: 0.5`) whose decide() gives the propensity; every decision is a line
//    of the log (sb.formatDecision, JSON lines, with its user).
// 2. Two populations saved as files `<user>.bin`: the candidate, each user's LinUCB trained on clicks
//    of its own (not the logged ones), and the baseline, each user's LinUCB with nothing learned.
// 3. The package's command line (the bin of its package.json) evaluates the log:
//      sublinear-bandits evaluate --log log.jsonl --catalogue catalogue.bin
//        --users-states candidate/ --baseline-states baseline/
//    and prints its report: each estimator's value and 95% interval for the candidate, the baseline
//    and their paired difference.
// 4. The truth to hold it against: both populations frozen, run online on the same simulator over the
//    same users' records (the expected click rate of the arm each user's model picks).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import init from 'sublinear-bandits';

// The package's command line, as its package.json names it (an installed package, or this checkout).
export function cliPath() {
  const manifest = createRequire(import.meta.url).resolve('sublinear-bandits/package.json');
  return join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['sublinear-bandits']);
}

export function cli(args) {
  return execFileSync(process.execPath, [cliPath(), ...args], { encoding: 'utf8' });
}

// Writes catalogue.bin, log.jsonl, candidate/<user>.bin and baseline/<user>.bin into `folder`;
// returns the truths: the mean click rate per logged record of each population, online.
export async function writeShop(folder, { users = 40, records = 100, items = 30, dim = 4, training = 100, seed = 1 } = {}) {
  const sb = await init({ threads: 1 });
  let random = seed >>> 0 || 1;
  const uniform = () => ((random = (Math.imul(random, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  const features = Float64Array.from({ length: items * dim }, () => gaussian() / Math.sqrt(dim));
  const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' }, seed });
  catalogue.add(Uint32Array.from({ length: items }, (_, i) => i), features);
  writeFileSync(join(folder, 'catalogue.bin'), catalogue.toBytes());

  const tastes = Array.from({ length: users }, () => Array.from({ length: dim }, gaussian));
  const clickRate = (user, arm) => {
    let score = -1;
    for (let j = 0; j < dim; j++) score += 3 * tastes[user][j] * features[arm * dim + j];
    return 1 / (1 + Math.exp(-score));
  };
  const click = (user, arm) => (uniform() < clickRate(user, arm) ? 1 : 0);

  const lines = [];
  mkdirSync(join(folder, 'candidate'), { recursive: true });
  mkdirSync(join(folder, 'baseline'), { recursive: true });
  const truth = { candidate: 0, baseline: 0 };
  for (let user = 0; user < users; user++) {
    const logger = new sb.LinUCB({ catalogue, explore: 0.5, seed: seed * 1000 + user });
    for (let record = 0; record < records; record++) {
      const decision = logger.decide();
      const reward = click(user, decision.arm);
      logger.reward(decision.eventId, reward);
      lines.push(sb.formatDecision({ user, arm: decision.arm, reward, propensity: decision.propensity, eventId: decision.eventId }));
    }
    logger.dispose();
    // The candidate learns from clicks of its own, not from the log it is evaluated on.
    const candidate = new sb.LinUCB({ catalogue, seed: user });
    for (let step = 0; step < training; step++) {
      const arm = candidate.select();
      candidate.update(arm, click(user, arm));
    }
    const baseline = new sb.LinUCB({ catalogue, seed: user });
    for (const [name, model] of [['candidate', candidate], ['baseline', baseline]]) {
      const bytes = model.toBytes();
      writeFileSync(join(folder, name, `${user}.bin`), bytes);
      // Frozen and deterministic: the arm its saved state picks, on each of the user's records.
      const frozen = sb.LinUCB.fromBytes(bytes, { catalogue });
      truth[name] += clickRate(user, frozen.select()) * records;
      frozen.dispose();
      model.dispose();
    }
  }
  writeFileSync(join(folder, 'log.jsonl'), lines.join('\n') + '\n');
  catalogue.dispose();
  const total = users * records;
  return { records: total, candidate: truth.candidate / total, baseline: truth.baseline / total, difference: (truth.candidate - truth.baseline) / total };
}

// The command line's arguments for the folder writeShop filled.
export const evaluateArgs = (folder) => ['evaluate', '--log', join(folder, 'log.jsonl'), '--catalogue', join(folder, 'catalogue.bin'),
  '--users-states', join(folder, 'candidate'), '--baseline-states', join(folder, 'baseline')];

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [users = 40, records = 100] = process.argv.slice(2, 4).map(Number);
  const folder = process.argv[4] ?? mkdtempSync(join(tmpdir(), 'evaluate-log-'));
  mkdirSync(folder, { recursive: true });
  const truth = await writeShop(folder, { users, records });
  const args = evaluateArgs(folder);
  console.log(`$ sublinear-bandits ${args.join(' ')}`);
  console.log(cli(args));
  console.log(`online truth: candidate ${truth.candidate.toFixed(4)}, baseline ${truth.baseline.toFixed(4)}, difference ${truth.difference.toFixed(4)}`);
  if (!process.argv[4]) rmSync(folder, { recursive: true, force: true });
}
