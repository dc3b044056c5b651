// The command line the package ships (`npx sublinear-bandits ...`, dist/cli.js): simulate writes the
// same result as sb.simulate, errors exit non-zero with the BanditError code, bench dispatches.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadModule } from './helpers.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const directory = mkdtempSync(join(tmpdir(), 'sublinear-cli-'));

describe('CLI', () => {
  const config = {
    environment: { type: 'linear', dim: 4, arms: 50, change: { every: 10, add: 1 } },
    policy: { type: 'lin-ts' }, horizon: 200, seed: 3, recordEvery: 10,
  };

  test('simulate --config --out writes what sb.simulate returns, bit for bit, with a progress bar on stderr', async () => {
    const configPath = join(directory, 'config.json');
    const outPath = join(directory, 'result.json');
    writeFileSync(configPath, JSON.stringify(config));
    const { status, stdout, stderr } = run('simulate', '--config', configPath, '--out', outPath);
    expect(status, stderr).toBe(0);
    expect(stderr).toContain('100%');
    expect(stdout).toMatch(/run 1: T = 200, cumulative regret/);
    const written = JSON.parse(readFileSync(outPath, 'utf8'));
    const sb = await loadModule();
    const expected = sb.simulate(config);
    expect(written.t).toEqual(Array.from(expected.t));
    expect(written.cumulativeRegret).toEqual(Array.from(expected.cumulativeRegret));
    expect(written.cumulativeReward).toEqual(Array.from(expected.cumulativeReward));
    expect(written.innerProducts).toBe(expected.innerProducts);

    const piped = run('simulate', '--config', configPath, '--out', '-');
    expect(JSON.parse(piped.stdout).cumulativeRegret).toEqual(written.cumulativeRegret);
  });

  test('a bad configuration exits 1 with the error code; a missing --config too', () => {
    const configPath = join(directory, 'bad.json');
    writeFileSync(configPath, JSON.stringify({ ...config, environment: { type: 'galaxy' } }));
    const bad = run('simulate', '--config', configPath);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('error: INVALID_ARGUMENT');
    expect(bad.stderr).toContain('galaxy');
    const missing = run('simulate');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('--config');
  });

  test('usage without a command, exit 2 for an unknown command or benchmark', () => {
    const usage = run();
    expect(usage.status).toBe(0);
    expect(usage.stderr).toContain('sublinear-bandits simulate --config');
    expect(run('fly').status).toBe(2);
    const bench = run('bench', 'no-such-benchmark');
    expect(bench.status).toBe(2);
    expect(bench.stderr).toMatch(/names: .*combinatorial.*linear/);
  });
});
