import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { afterAll, describe, expect, test } from 'vitest';
import { launchChromium, watchErrors } from '../e2e/chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sublinear-consumer-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the packed tarball in a fresh project', () => {
  test('npm pack, npm install the tarball, import it in Node with no flags and run a search', () => {
    run('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], root);
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();

    const project = join(scratch, 'app');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    run('npm', ['install', join(scratch, tarball), '--no-audit', '--no-fund', '--loglevel=error'], project);
    const files = run('npm', ['ls', '--parseable', '--long'], project);
    expect(files).toContain('sublinear-bandits');

    writeFileSync(join(project, 'main.mjs'), `
      const sb = await (await import('sublinear-bandits')).default();
      const index = new sb.ExactIndex({ dim: 3 });
      index.add([1, 2, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
      const { ids, scores } = index.search([0.1, 0.9, 0.5], 2);
      let code = null;
      try { index.remove([42]); } catch (error) { code = error instanceof sb.BanditError && error.code; }
      index.dispose();
      console.log(JSON.stringify({ version: sb.version, ids: Array.from(ids), scores: Array.from(scores), code }));
    `);
    const output = JSON.parse(run('node', ['main.mjs'], project));
    expect(output.ids).toEqual([2, 3]);
    expect(output.scores[0]).toBeCloseTo(0.9, 6);
    expect(output.scores[1]).toBeCloseTo(0.5, 6);
    expect(output.code).toBe('UNKNOWN_ID');

    // Only what users need is in the tarball.
    const listing = run('tar', ['-tzf', join(scratch, tarball)], scratch).split('\n').filter(Boolean);
    expect(listing).toContain('package/dist/sublinear_bandits_wasm.wasm');
    expect(listing).toContain('package/dist/index.d.ts');
    expect(listing.some((name) => name.includes('/cpp/') || name.includes('/tests/'))).toBe(false);
  }, 180_000);

  test('a page built by Vite imports the installed package and searches in Chromium', async () => {
    const project = join(scratch, 'app');
    writeFileSync(join(project, 'index.html'), '<!doctype html><title>consumer</title><link rel="icon" href="data:,"><pre id="out">loading</pre><script type="module" src="./main.js"></script>');
    writeFileSync(join(project, 'main.js'), `
      import init from 'sublinear-bandits';
      const sb = await init();
      const index = new sb.ExactIndex({ dim: 2 });
      index.add([5, 6, 7], [1, 0, 0, 1, 1, 1]);
      document.querySelector('#out').textContent = 'ids ' + Array.from(index.search([2, 1], 3).ids).join(',');
      index.dispose();
    `);
    // The consumer's own Vite configuration is empty: no plugin or option is needed for the .wasm.
    await build({ root: project, logLevel: 'error', configFile: false, build: { outDir: join(project, 'dist'), target: 'es2022' } });
    const server = await preview({ root: project, configFile: false, logLevel: 'error', build: { outDir: join(project, 'dist') }, preview: { port: 0, host: '127.0.0.1' } });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors = watchErrors(page);
      await page.goto(server.resolvedUrls.local[0]);
      await expect.poll(() => page.locator('#out').textContent(), { timeout: 30_000 }).toBe('ids 7,5,6');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await new Promise((resolve) => server.httpServer.close(resolve));
    }
  }, 180_000);
});
