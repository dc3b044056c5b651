#!/usr/bin/env node
// npx sublinear-bandits simulate --config file.json [--out result.json]
// npx sublinear-bandits bench <name> [options]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import init from './index.js';
import { DECIMAL, DIGITS } from './decision-log.js';

const usage = `usage:
  sublinear-bandits simulate --config <file.json> [--out <result.json>]
      runs simulate() (docs/papers.md, "Simulations") on the configuration; prints a summary, writes the full
      result as JSON to --out (or to stdout with --out -); a ratings file may be named by "ratingsFile"
      in the environment object.
  sublinear-bandits evaluate --log <file> (--policy <config.json> | --state <policy.bin> [--catalogue <catalogue.bin>])
                    [--estimators replay,ips,snips,dm,dr,page-ips,page-pi,page-cascade] [--clip <w>] [--draws <n>]
                    [--reward-model auto|linear|logistic] [--json]
      off-policy estimates (evaluate(), docs/evaluation.md "Off-policy evaluation") of a policy's mean reward per
      decision from a decision log (JSON lines or CSV with columns arm, reward, propensity). The policy
      is a JSON file { "policy": { "type": "lin-ts", ...options }, "arms": { "ids": [...],
      "features": [...] } }, or a saved state (toBytes()), over the catalogue snapshot it was saved over.
  sublinear-bandits evaluate --log <file> --catalogue <catalogue.bin> (--users-policy <config.json> | --users-states <dir>)
                    [--baseline-policy <config.json> | --baseline-states <dir>] [--interval normal|bootstrap]
                    [--resamples <n>] [--seed <n>] [--acceptance <p>] [--estimators ...] [--clip <w>] [--draws <n>]
                    [--reward-model auto|linear|logistic] [--reward-model-scope auto|per-user|pooled] [--json]
      a population (docs/evaluation.md "Evaluating a population"): every record of the log names its user;
      each user learns from scratch with the policy { "type": "lin-ucb", ...options } (learning), or keeps
      its saved state, the file <user id>.bin of the directory (frozen); with a baseline, the paired difference.
  sublinear-bandits bench <name> [options]
      runs a benchmark (mips, mips-paper, mips-peer, linear, matroid, cls, combinatorial, random, soak)
      and prints its tables.`;

function progressBar(fraction) {
  const width = 30;
  const filled = Math.round(fraction * width);
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%`);
  if (fraction >= 1) process.stderr.write('\n');
}

function toPlain(value) {
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, toPlain(entry)]));
  return value;
}

// The value after `--name` in the command's arguments, or undefined.
function optionOf(args, name) {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

// A number option as decimal text only: Number() would read '0x10' as 16 and ' ' as 0.
function decimalOption(option, name, pattern, kind) {
  const text = option(name);
  if (!pattern.test(text)) throw new Error(`${name} ${JSON.stringify(text)} is not a ${kind}`);
  return Number(text);
}

async function simulateCommand(args) {
  const option = (name) => optionOf(args, name);
  const configPath = option('--config');
  if (!configPath) throw new Error('simulate needs --config <file.json>');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  if (config.environment?.ratingsFile) {
    config.environment.ratings = new Uint8Array(readFileSync(config.environment.ratingsFile));
    delete config.environment.ratingsFile;
  }
  const sb = await init();
  const result = sb.simulate({ ...config, onProgress: progressBar });
  const plain = toPlain(result);
  const out = option('--out');
  if (out === '-') {
    process.stdout.write(`${JSON.stringify(plain)}\n`);
    return;
  }
  const runs = plain.runs ?? [plain];
  for (const [i, run] of runs.entries()) {
    const last = run.cumulativeRegret.length - 1;
    console.log(`run ${i + 1}: T = ${run.t[last]}, cumulative regret ${run.cumulativeRegret[last].toFixed(2)}, reward ${run.cumulativeReward[last].toFixed(2)}, ` +
      `seconds setup ${run.seconds.setup.toFixed(3)} select ${run.seconds.select.toFixed(3)} update ${run.seconds.update.toFixed(3)} total ${run.seconds.total.toFixed(3)}, inner products ${run.innerProducts}`);
  }
  if (out) {
    writeFileSync(out, JSON.stringify(plain));
    console.log(`wrote ${out}`);
  }
}

// A population of the command line: --<name>-policy <config.json> (learning) or --<name>-states <dir>
// of <user id>.bin files (frozen), or undefined when neither is given.
function populationOf(option, name) {
  const policyPath = option(`--${name}-policy`);
  const statesPath = option(`--${name}-states`);
  if (policyPath !== undefined && statesPath !== undefined) throw new Error(`give --${name}-policy or --${name}-states, not both`);
  if (policyPath !== undefined) return { policy: JSON.parse(readFileSync(policyPath, 'utf8')) };
  if (statesPath === undefined) return undefined;
  const states = new Map();
  for (const file of readdirSync(statesPath)) {
    const id = file.match(/^(\d+)\.bin$/)?.[1];
    if (id !== undefined) states.set(Number(id), new Uint8Array(readFileSync(join(statesPath, file))));
  }
  return { states };
}

async function evaluatePopulationCommand(args, options, sb) {
  const option = (name) => optionOf(args, name);
  if (!option('--catalogue')) throw new Error('evaluate with --users-policy or --users-states needs --catalogue <catalogue.bin>: the users are over it');
  if (option('--policy') !== undefined || option('--state') !== undefined) throw new Error('evaluate takes --policy/--state (one policy) or --users-policy/--users-states (a population), not both');
  options.users = populationOf(option, 'users');
  options.baseline = populationOf(option, 'baseline');
  if (option('--interval')) options.interval = option('--interval');
  if (option('--resamples')) options.resamples = decimalOption(option, '--resamples', DIGITS, 'decimal integer');
  if (option('--seed')) options.seed = decimalOption(option, '--seed', DIGITS, 'decimal integer');
  if (option('--acceptance')) options.acceptance = decimalOption(option, '--acceptance', DECIMAL, 'decimal number');
  if (option('--reward-model-scope')) options.rewardModelScope = option('--reward-model-scope');
  const catalogue = sb.Catalogue.fromBytes(new Uint8Array(readFileSync(option('--catalogue'))));
  try {
    const report = sb.evaluate({ ...options, catalogue });
    if (args.includes('--json')) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    const format = (x) => (x === null || x === undefined ? '-' : x.toFixed(4));
    const names = ['replay', 'ips', 'snips', 'dm', 'dr', 'page-ips', 'page-pi', 'page-cascade'];
    // page-ips and page-cascade take Fay and Feuer's gamma interval where the others take the normal one.
    const gamma = report.interval === 'normal' ? ['page-ips', 'page-cascade'].filter((name) => report[name]) : [];
    console.log(`${options.log.arms.length} logged decisions of ${report.users} users (${report.interval} intervals` +
      `${gamma.length ? `; gamma for ${gamma.join(' and ')}` : ''}${report.rewardModel ? `, ${report.rewardModel} reward model ${report.userLambda === undefined ? 'pooled' : `${report.rewardModelScope === 'auto' ? 'per user for dm, pooled for dr' : 'per user'} (lambda ${report.userLambda})`}` : ''})`);
    const width = Math.max(8, ...names.filter((name) => report[name]).map((name) => name.length));
    for (const [title, estimates] of [['candidate', report], ['baseline', report.baseline], ['difference', report.difference]]) {
      if (!estimates || Object.keys(estimates).length === 0) continue;
      console.log(`${title}${estimates.horizon === undefined ? '' : ` (horizon ${estimates.horizon.toFixed(1)} decisions a user)`}`);
      for (const name of names) {
        const e = estimates[name];
        if (e) console.log(`  ${name.padEnd(width)} ${format(e.value).padStart(9)}  [${format(e.low)}, ${format(e.high)}]`);
      }
    }
  } finally {
    catalogue.dispose();
  }
}

async function evaluateCommand(args) {
  const option = (name) => optionOf(args, name);
  const logPath = option('--log');
  if (!logPath) throw new Error('evaluate needs --log <file>');
  const population = ['--users-policy', '--users-states'].some((name) => option(name) !== undefined);
  if (!population && (option('--policy') === undefined) === (option('--state') === undefined)) {
    throw new Error('evaluate needs --policy <config.json> or --state <policy.bin>, or a population: --users-policy or --users-states');
  }
  const sb = await init();
  const log = sb.parseDecisionLog(readFileSync(logPath, 'utf8'));
  const options = { log };
  if (option('--estimators')) options.estimators = option('--estimators').split(',');
  if (option('--clip')) options.clip = decimalOption(option, '--clip', DECIMAL, 'decimal number');
  if (option('--draws')) options.draws = decimalOption(option, '--draws', DIGITS, 'decimal integer');
  if (option('--reward-model')) options.rewardModel = option('--reward-model');
  if (population) {
    if (!log.users) throw new Error(`${logPath}: a population's log names the user of every record (a "user" field or column)`);
    await evaluatePopulationCommand(args, options, sb);
    return;
  }
  const owned = [];
  try {
    if (option('--policy')) {
      const config = JSON.parse(readFileSync(option('--policy'), 'utf8'));
      options.policy = config.policy;
      options.arms = config.arms;
    } else {
      const bytes = new Uint8Array(readFileSync(option('--state')));
      // The package's reader of a state's head names its class (and the catalogue a user needs).
      const state = sb.inspectState(bytes);
      // A class of a registered linear policy type (the registry lists them: a new one needs no line here).
      const linearTypes = sb.optionTable().filter((table) => table.kind === 'linear-policy').map((table) => table.type);
      const Class = linearTypes.includes(sb[state.class]?.type) ? sb[state.class] : undefined;
      if (!Class) throw new Error(`${option('--state')} is not a linear policy's state (it is the state of ${state.class})`);
      if (state.catalogueIdentity !== undefined && !option('--catalogue')) {
        throw new Error(`${option('--state')} is a user's model over catalogue ${state.catalogueIdentity}: give that catalogue's snapshot with --catalogue <catalogue.bin>`);
      }
      const catalogue = option('--catalogue') ? sb.Catalogue.fromBytes(new Uint8Array(readFileSync(option('--catalogue')))) : undefined;
      if (catalogue) owned.push(catalogue);
      options.policy = catalogue ? Class.fromBytes(bytes, { catalogue }) : Class.fromBytes(bytes);
      owned.push(options.policy);
    }
    const report = sb.evaluate(options);
    if (args.includes('--json')) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    const format = (x) => (x === null ? '-' : x.toFixed(4));
    const table = (estimates) => {
      console.log('estimator  value      95% interval            n       effective n');
      // The page estimators' n counts pages, their value is a page's sum of rewards.
      for (const name of ['replay', 'ips', 'snips', 'dm', 'dr', 'page-ips', 'page-pi', 'page-cascade']) {
        const e = estimates[name];
        if (!e) continue;
        console.log(`${name.padEnd(10)} ${format(e.value).padStart(9)}  [${format(e.low)}, ${format(e.high)}]`.padEnd(47) +
          ` ${String(e.n).padEnd(7)} ${e.effectiveSampleSize.toFixed(1)}`);
      }
    };
    console.log(`${log.arms.length} logged decisions${report.rewardModel ? ` (${report.rewardModel} reward model for dm and dr)` : ''}`);
    table(report);
    // A slate log: the same table for each position's records.
    (report.positions ?? []).forEach((estimates, position) => {
      if (estimates === null) return;
      console.log(`\nposition ${position}`);
      table(estimates);
    });
    if (report.target) {
      console.log(`policy's choice probabilities in ${report.target.contexts} contexts (${report.target.draws} draws each where drawn): ` +
        `${report.target.arms} arms, standard error <= ${report.target.standardError.toFixed(4)}`);
    }
  } finally {
    for (const object of owned.reverse()) object.dispose();
  }
}

function benchCommand(args) {
  const runner = fileURLToPath(new URL('../bench/run.mjs', import.meta.url));
  const { status } = spawnSync(process.execPath, [runner, ...args], { stdio: 'inherit' });
  process.exitCode = status ?? 1;
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === 'simulate') await simulateCommand(args);
  else if (command === 'evaluate') await evaluateCommand(args);
  else if (command === 'bench') benchCommand(args);
  else {
    console.error(usage);
    process.exitCode = command ? 2 : 0;
  }
} catch (error) {
  console.error(`error: ${error.code ? `${error.code}: ` : ''}${error.message}`);
  process.exitCode = 1;
}
