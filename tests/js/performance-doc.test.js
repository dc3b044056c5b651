// docs/performance.md's tables are bench/results' own (issue 55: taken from the results, not copied by
// hand): every table block of the guide equals the table under its heading in its results file, and
// the guide holds one for each benchmark its highlights lean on; so do the Redis example's README's
// (its load test), and the HTTP example's.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { documents, guide, renderTables, tableBlocks, tableFrom } from '../../scripts/performance-tables.mjs';

const text = readFileSync(guide, 'utf8');

test('every table block of docs/performance.md is its results file\'s table', () => {
  const blocks = tableBlocks(text);
  expect(blocks.length).toBeGreaterThanOrEqual(8);
  for (const { file, heading } of blocks) {
    const { rows } = tableFrom(file, heading);
    expect(rows.length, `${file} ${heading}`).toBeGreaterThanOrEqual(3);
  }
  expect(renderTables(text)).toBe(text);
});

test('a block names a heading its results file has, or the check fails', () => {
  expect(() => renderTables('<!-- table: bench/results/batch.md ### No such heading -->\n<!-- /table -->')).toThrow(/no heading/);
  // A hand-edited cell is found.
  const edited = text.replace(/(<!-- table: bench\/results\/batch\.md[^\n]*\n[^\n]*\n\n\|[^\n]*\n\|[^\n]*\n\| )\d/, '$1' + '9');
  expect(edited).not.toBe(text);
  expect(renderTables(edited)).not.toBe(edited);
});

test('the guide\'s prose types no figure: every number it shows is in a generated block', () => {
  // Outside the blocks: no digit but in code, link targets and names (C2UCB, python3, Figure 2).
  const prose = text.replace(/<!-- table: [\s\S]*?<!-- \/table -->/g, '').replace(/`[^`]*`/g, '').replace(/\]\([^)]*\)/g, ']')
    .replace(/\b[A-Za-z]+\d\w*/g, '').replace(/\b(?:Figure|Table)s? \d+/g, '');
  expect(prose.split('\n').filter((line) => /\d/.test(line))).toEqual([]);
  expect(tableBlocks(text).map(({ file }) => file)).toEqual(expect.arrayContaining(['bench/results/persistence.md', 'bench/results/horizon-million.md', 'bench/results/linear-million.md']));
});

// An example's README and the load test's table its block holds, as measured.
function loadTestTable(readmePath, resultsFile) {
  const readme = documents.find((document) => document.pathname.endsWith(readmePath));
  const text = readFileSync(readme, 'utf8');
  expect(renderTables(text)).toBe(text);
  const [block] = tableBlocks(text);
  expect(block.file).toBe(resultsFile);
  return tableFrom(block.file, block.heading).rows;
}

test('the Redis example\'s README shows its load test as measured: requests a second, p99, rewards kept, models intact', () => {
  const rows = loadTestTable('examples/redis-users/README.md', 'bench/results/redis-users.md');
  for (const column of ['requests a second', 'p99 ms', 'rewards kept', 'models intact']) expect(rows[0]).toContain(column);
  expect(rows.find((row) => row.startsWith('| compare-and-set |'))).toMatch(/\| (\d+) of \1 \| (\d+) of \2 \|/);
});

test('the HTTP example\'s README shows its load test as measured: requests a second, p99, rewards kept, models intact', () => {
  const rows = loadTestTable('examples/http-service/README.md', 'bench/results/http-service.md');
  for (const column of ['requests a second', 'p99 ms', 'rewards answered 200 kept', 'models intact']) expect(rows[0]).toContain(column);
  // With the compare-and-set: nothing failed, every reward and decision kept, every model intact.
  expect(rows.find((row) => row.startsWith('| compare-and-set |'))).toMatch(/\| 0 \| (\d+) of \1 \| (\d+) of \2 \| (\d+) of \3 \|/);
});
