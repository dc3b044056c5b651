// `npm run bench -- <name> [options]`: runs bench/<name>.mjs, prints its tables, and writes
// bench/results/<name>.json and bench/results/<name>.md. A benchmark module exports
//   default async function (args, report) where report.table(title, columns, rows), report.note(text)
// and report.data(key, value) collect what is printed and saved. `--save-as <base>` writes
// <base>.json and <base>.md instead (e.g. a long --full run beside the default results).
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import os from 'node:os';

// Former names, still accepted: a run under one writes the results of the name it stands for, so
// that one benchmark has one family of results files.
const ALIASES = { native: 'peers' };
const [asked, ...rawArgs] = process.argv.slice(2);
const name = ALIASES[asked] ?? asked;
const saveAt = rawArgs.indexOf('--save-as');
// Runs that are reports of their own, beside the default tables: `<name> --<part>` saves as <name>-<part>.
const OWN_REPORTS = { linear: '--million', persistence: '--million', horizon: '--million', ope: '--pages' };
const part = rawArgs.includes(OWN_REPORTS[name]) ? `${name}-${OWN_REPORTS[name].slice(2)}` : name;
const saveAs = saveAt >= 0 ? rawArgs[saveAt + 1] : part;
const args = saveAt >= 0 ? rawArgs.filter((_, i) => i !== saveAt && i !== saveAt + 1) : rawArgs;
if (!/^[\w.-]+$/.test(saveAs ?? '')) {
  console.error('--save-as takes a file base name (letters, digits, . _ -)');
  process.exit(2);
}
const available = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.mjs') && f !== 'run.mjs').map((f) => f.slice(0, -4));
if (!name || !available.includes(name)) {
  const aliases = Object.entries(ALIASES).map(([alias, target]) => `${alias} (= ${target})`);
  console.error(`usage: npm run bench -- <name> [options]\n  names: ${[...available, ...aliases].sort().join(', ')}`);
  process.exit(2);
}

const sections = [];
const data = {};
const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;

function markdownTable(title, columns, rows) {
  const format = (value) => (typeof value === 'number' ? (Number.isInteger(value) ? String(value) : value.toPrecision(4)) : String(value));
  return [`### ${title}`, '', `| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(format).join(' | ')} |`), ''].join('\n');
}

const report = {
  table(title, columns, rows) {
    const text = markdownTable(title, columns, rows);
    sections.push(text);
    console.log(`\n${text}`);
    (data.tables ??= []).push({ title, columns, rows });
  },
  note(text) {
    sections.push(`${text}\n`);
    console.log(text);
  },
  data(key, value) {
    data[key] = value;
  },
  progress(fraction, label = '') {
    const width = 30;
    const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${label}`.padEnd(80));
    if (fraction >= 1) process.stderr.write('\n');
  },
};

const started = Date.now();
const { default: benchmark } = await import(`./${name}.mjs`);
report.note(`Benchmark ${name} on ${machine}, ${new Date().toISOString()}, arguments: ${args.join(' ') || '(defaults)'}`);
await benchmark(args, report);
report.note(`Finished in ${((Date.now() - started) / 1000).toFixed(1)} s.`);

// In a checkout results go to bench/results (committed); from an installed package, to the
// current directory rather than into node_modules.
const inCheckout = existsSync(new URL('../CMakeLists.txt', import.meta.url));
const out = inCheckout ? new URL('./results/', import.meta.url) : pathToFileURL(`${process.cwd()}/sublinear-bandits-bench/`);
mkdirSync(out, { recursive: true });
writeFileSync(new URL(`${saveAs}.json`, out), JSON.stringify({ name, machine, args, date: new Date().toISOString(), ...data }, null, 2));
writeFileSync(new URL(`${saveAs}.md`, out), `# Benchmark: ${name}\n\n${sections.join('\n')}\n`);
console.log(`\nWrote ${new URL(`${saveAs}.json`, out).pathname} and ${saveAs}.md beside it`);
// The guide's and the examples' tables are the results' own (scripts/performance-tables.mjs).
if (inCheckout) {
  const { writeTables } = await import('../scripts/performance-tables.mjs');
  for (const file of writeTables()) console.log(`${file}: its tables taken again from bench/results`);
}
