// What the package weighs, measured on what ships (dist/ and `npm pack`), against the 800 KB budget
// and against the "Sizes" table of docs/threads-and-hosts.md: a figure there that no longer matches what ships (beyond a
// small tolerance) fails here, so the guide states the real sizes.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = new URL('../../dist/', import.meta.url);
const BUDGET_BYTES = 800 * 1024;
// A documented figure may differ from the measured one by this fraction (rounding, small changes).
const TOLERANCE = 0.03;

const raw = (name) => readFileSync(new URL(name, dist)).length;
const gzipped = (name) => gzipSync(readFileSync(new URL(name, dist)), { level: 9 }).length;

// The files a page downloads with one build: the modules index.js imports, statically or
// dynamically, followed from file to file, without the other build's (init() imports only the one
// it picks), and that build's .wasm. Node-only files (loaded through computed URLs) are not reached.
function pageFiles(build) {
  const other = build === 'single' ? 'sublinear_bandits_wasm_threads.sources.js' : 'sublinear_bandits_wasm.js';
  const seen = new Set();
  const pending = ['index.js'];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file) || file === other) continue;
    seen.add(file);
    const text = readFileSync(new URL(file, dist), 'utf8');
    for (const [, name] of text.matchAll(/(?:from\s*|import\s*\(\s*)['"]\.\/([\w.-]+\.js)['"]/g)) pending.push(name);
  }
  seen.add(build === 'single' ? 'sublinear_bandits_wasm.wasm' : 'sublinear_bandits_wasm_threads.wasm');
  return [...seen].sort();
}

let packedFiles = [];

function measure() {
  const payload = (build) => {
    const files = pageFiles(build);
    return { files, raw: files.reduce((sum, file) => sum + raw(file), 0), gzipped: files.reduce((sum, file) => sum + gzipped(file), 0) };
  };
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: root, encoding: 'utf8' }));
  packedFiles = packed.files.map((file) => file.path);
  return {
    'sublinear_bandits_wasm.wasm': { raw: raw('sublinear_bandits_wasm.wasm'), gzipped: gzipped('sublinear_bandits_wasm.wasm') },
    'sublinear_bandits_wasm_threads.wasm': { raw: raw('sublinear_bandits_wasm_threads.wasm'), gzipped: gzipped('sublinear_bandits_wasm_threads.wasm') },
    'page, one thread': payload('single'),
    'page, threads': payload('threads'),
    'npm tarball': { raw: packed.unpackedSize, gzipped: packed.size },
  };
}

// The guide's table: `| <label> ... | <raw> KB | <gzipped> KB |`, the label in the first cell.
function readmeFigures() {
  const readme = readFileSync(new URL('docs/threads-and-hosts.md', `file://${root}/`), 'utf8');
  const section = readme.slice(readme.indexOf('### Sizes'));
  const figures = {};
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    const cells = line.split('|').map((cell) => cell.trim());
    const label = cells[1]?.match(/^\*\*(.+?)\*\*/)?.[1] ?? cells[1]?.match(/^`(.+?)`/)?.[1];
    const number = (cell) => Number(cell?.match(/^([\d,.]+) KB$/)?.[1].replaceAll(',', ''));
    if (label && Number.isFinite(number(cells[2]))) figures[label] = { raw: number(cells[2]) * 1024, gzipped: number(cells[3]) * 1024 };
  }
  return figures;
}

const measured = measure();
const kb = (bytes) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;
console.log('measured sizes (raw, gzipped):\n' + Object.entries(measured).map(([what, m]) => `  ${what}: ${kb(m.raw)}, ${kb(m.gzipped)}`).join('\n'));

// The test build with the toy types (scripts/build.sh wasm-toys, build/dist-toys/) and the toys'
// golden states are the tests': nothing of them ships (the files field names dist/ only).
test('the tarball holds nothing of the toy build', () => {
  expect(packedFiles.length).toBeGreaterThan(50);
  expect(packedFiles.filter((file) => /toys?[-_/]|dist-toys/i.test(file))).toEqual([]);
});

// The README is the package's page on the registry: every relative link in it (the guides, the
// changelog, the examples) must be a file of the tarball, or the page links nowhere.
test('every relative link of the README is a file the tarball ships', () => {
  const readme = readFileSync(new URL('README.md', `file://${root}/`), 'utf8');
  const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((match) => match[1]).filter((link) => !/^[a-z]+:/i.test(link));
  expect(links.length).toBeGreaterThan(10);
  for (const link of links) {
    const shipped = link.endsWith('/') ? packedFiles.some((file) => file.startsWith(link)) : packedFiles.includes(link);
    expect(shipped, link).toBe(true);
  }
  // The guides' own links between them resolve inside the tarball too.
  for (const guide of packedFiles.filter((file) => /^docs\/.*\.md$/.test(file))) {
    const text = readFileSync(new URL(guide, `file://${root}/`), 'utf8');
    for (const [, link] of text.matchAll(/\]\(([^)#\s]+\.md)(#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(link)) continue;
      const target = new URL(link, `file://${root}/${guide}`).pathname.slice(root.length + 1);
      expect(packedFiles.includes(target) || !target.startsWith('docs/') ? true : target, `${guide} -> ${link}`).toBe(true);
    }
  }
});

describe('package size', () => {
  test.each(['page, one thread', 'page, threads'])('what a %s downloads stays within the 800 KB gzipped budget', (what) => {
    const { files, gzipped: total } = measured[what];
    console.log(`${what}: ${files.join(', ')}`);
    expect(files).toContain('index.js');
    expect(files.filter((file) => file.endsWith('.wasm'))).toHaveLength(1);
    expect(total).toBeLessThan(BUDGET_BYTES);
  });

  test('docs/threads-and-hosts.md states every figure as measured (within 3%)', () => {
    const figures = readmeFigures();
    expect(Object.keys(figures).sort()).toEqual(Object.keys(measured).sort());
    for (const [what, figure] of Object.entries(figures)) {
      for (const kind of ['raw', 'gzipped']) {
        const actual = measured[what][kind];
        expect(Math.abs(figure[kind] - actual) / actual, `docs' ${kind} size of ${what}: ${kb(figure[kind])}, measured ${kb(actual)}`).toBeLessThanOrEqual(TOLERANCE);
      }
    }
  }, 60_000);
});
