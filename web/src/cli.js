#!/usr/bin/env node
// npx sublinear-bandits simulate --config file.json [--out result.json]
// npx sublinear-bandits bench <name> [options]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import init from './index.js';

const usage = `usage:
  sublinear-bandits simulate --config <file.json> [--out <result.json>]
      runs simulate() (README, "Simulations") on the configuration; prints a summary, writes the full
      result as JSON to --out (or to stdout with --out -); a ratings file may be named by "ratingsFile"
      in the environment object.
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

async function simulateCommand(args) {
  const option = (name) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
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

function benchCommand(args) {
  const runner = fileURLToPath(new URL('../bench/run.mjs', import.meta.url));
  const { status } = spawnSync(process.execPath, [runner, ...args], { stdio: 'inherit' });
  process.exitCode = status ?? 1;
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === 'simulate') await simulateCommand(args);
  else if (command === 'bench') benchCommand(args);
  else {
    console.error(usage);
    process.exitCode = command ? 2 : 0;
  }
} catch (error) {
  console.error(`error: ${error.code ? `${error.code}: ` : ''}${error.message}`);
  process.exitCode = 1;
}
