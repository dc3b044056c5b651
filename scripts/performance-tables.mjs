// The measured tables of docs/performance.md and of the examples' READMEs, taken from bench/results/
// rather than copied by hand. A block in one of those files
//
//   <!-- table: bench/results/batch.md ### HnswIndex 100000 x 32 -->
//   ...
//   <!-- /table -->
//
// holds the first table after the first heading of that results file that starts with the given
// text, with a line naming where it comes from. `node scripts/performance-tables.mjs` rewrites the
// blocks from the results (`npm run bench` does after every run); `--check` exits 1 when a block
// differs from its results file (tests/js/performance-doc.test.js runs the same check).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
export const guide = new URL('docs/performance.md', root);
// Every file with blocks: the guide, and the Redis and HTTP examples' READMEs (their load tests' figures).
export const documents = [guide, new URL('examples/redis-users/README.md', root), new URL('examples/http-service/README.md', root)];

const block = /<!-- table: (\S+) (#+ [^\n]*?) -->\n[\s\S]*?<!-- \/table -->/g;

// The first markdown table after the heading of `file` that starts with `heading`.
export function tableFrom(file, heading) {
  const lines = readFileSync(new URL(file, root), 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith(heading));
  if (at < 0) throw new Error(`${file}: no heading starting with "${heading}"`);
  const start = lines.findIndex((line, i) => i > at && line.startsWith('|'));
  const next = lines.findIndex((line, i) => i > at && /^#+ /.test(line));
  if (start < 0 || (next >= 0 && next < start)) throw new Error(`${file}: no table under "${heading}"`);
  let end = start;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  return { title: lines[at].replace(/^#+ /, ''), rows: lines.slice(start, end) };
}

// The guide's text with every block filled from its results file.
export function renderTables(text) {
  return text.replace(block, (_match, file, heading) => {
    const { title, rows } = tableFrom(file, heading);
    return [`<!-- table: ${file} ${heading} -->`, `From \`${file}\`: ${title}.`, '', ...rows, '<!-- /table -->'].join('\n');
  });
}

// How many blocks the text holds.
export function tableBlocks(text) {
  return [...text.matchAll(block)].map(([, file, heading]) => ({ file, heading }));
}

// Rewrites the blocks of every document from the results; returns the documents that changed.
export function writeTables() {
  const changed = [];
  for (const document of documents) {
    const text = readFileSync(document, 'utf8');
    const rendered = renderTables(text);
    if (rendered === text) continue;
    writeFileSync(document, rendered);
    changed.push(document.pathname.slice(root.pathname.length));
  }
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = documents.filter((document) => { const text = readFileSync(document, 'utf8'); return renderTables(text) !== text; });
    for (const document of stale) {
      console.error(`${document.pathname.slice(root.pathname.length)}: a table differs from its bench/results file (node scripts/performance-tables.mjs rewrites them)`);
    }
    if (stale.length) process.exit(1);
  } else {
    for (const file of writeTables()) console.log(`${file}: its tables taken again from bench/results`);
  }
}
