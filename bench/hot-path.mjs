// CPU time per HnswIndex search, two builds of the package side by side in one process (issue 57,
// point 1: the hot path of a single query). On a shared machine wall-clock times move with the other
// load; the process's own CPU time (process.cpuUsage) moves much less, and the two builds are timed
// in alternating passes on the same data, graph parameters and queries, so the ratio is what to read.
//   npm run bench -- hot-path --baseline <dist folder of the other build> [--threads t] [--rounds r]
// Without --baseline only this checkout's dist/ is timed. Configuration as bench/native.mjs's: inner
// product, top 10, M 16, efConstruction 200, build 'immediate', efSearch 1 and a shortlist of the
// beam; storage f32 and int8; data 20,000 x 16 and 100,000 x 32 Gaussian (--only <items>x<dim>
// keeps one), 200 Gaussian queries; beams 10, 64 and 256. One index is built and restored from its
// bytes into each build, so both search the same graph; their answers are compared id for id and
// score bit for score bit.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';

const K = 10;
const BEAMS = [10, 64, 256];
const QUERIES = 200;
// CPU milliseconds a timed pass lasts at least.
const MIN_PASS_MS = 150;

function option(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
}

function gaussianRows(random, count) {
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = standardNormal(random);
  return values;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// One timed pass: the queries over and over until MIN_PASS_MS of CPU time; microseconds per search
// in CPU time and in wall time.
function pass(search, queries, dim) {
  let searches = 0;
  const startCpu = cpuMs();
  const startWall = performance.now();
  do {
    for (let q = 0; q < QUERIES; q++) search(queries.subarray(q * dim, (q + 1) * dim));
    searches += QUERIES;
  } while (cpuMs() - startCpu < MIN_PASS_MS);
  return { cpu: ((cpuMs() - startCpu) * 1000) / searches, wall: ((performance.now() - startWall) * 1000) / searches };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

export default async function hotPath(args, report) {
  const threads = Number(option(args, 'threads', '2'));
  const rounds = Number(option(args, 'rounds', '5'));
  const only = option(args, 'only', undefined);
  const baseline = option(args, 'baseline', undefined);
  const sides = [{ name: 'this build', module: await (await import(new URL('../dist/index.js', import.meta.url))).default({ threads }) }];
  if (baseline) {
    const init = (await import(pathToFileURL(resolve(baseline, 'index.js')).href)).default;
    sides.unshift({ name: 'baseline', module: await init({ threads }) });
  }
  report.note(`CPU time (process.cpuUsage, user + system) per search, median of ${rounds} passes a side of at least ${MIN_PASS_MS} ms of CPU each, the sides alternating (which goes first alternates too); wall time beside it. ${QUERIES} Gaussian queries, top ${K}, M 16, efConstruction 200, build 'immediate', space 'inner-product', efSearch 1 and a shortlist of the beam, modules started with threads: ${threads}.${baseline ? ` Baseline: ${baseline}.` : ''}`);
  const configs = [[20000, 16], [100000, 32]].filter(([n, d]) => !only || only === `${n}x${d}`);
  const rows = [];
  for (const [n, dim] of configs) {
    const random = seededRandom(57);
    const vectors = gaussianRows(random, n * dim);
    const queries = gaussianRows(random, QUERIES * dim);
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    for (const storage of ['f32', 'int8']) {
      // One build (on the module's threads, whose links depend on timing), saved and restored into
      // each side: both search the same graph.
      const built = new sides[0].module.HnswIndex({ dim, M: 16, efConstruction: 200, efSearch: 1, build: 'immediate', space: 'inner-product', storage, seed: 100 });
      built.add(ids, vectors);
      const bytes = built.toBytes();
      built.dispose();
      const indexes = sides.map(({ module }) => module.HnswIndex.fromBytes(bytes));
      for (const beam of BEAMS) {
        const searches = indexes.map((index) => (query) => index.search(query, K, { shortlist: beam }));
        // The same answers from both builds, bit for bit.
        let differing = 0;
        for (let q = 0; q < QUERIES && indexes.length === 2; q++) {
          const query = queries.subarray(q * dim, (q + 1) * dim);
          const [a, b] = searches.map((search) => search(query));
          const same = a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i] && Object.is(a.scores[i], b.scores[i]));
          if (!same) differing++;
        }
        searches.forEach((search) => pass(search, queries, dim));  // warm
        const times = sides.map(() => []);
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i);
          for (const i of order) times[i].push(pass(searches[i], queries, dim));
        }
        const cpu = times.map((passes) => median(passes.map((p) => p.cpu)));
        const wall = times.map((passes) => median(passes.map((p) => p.wall)));
        const row = [`${n} x ${dim}`, storage, beam];
        sides.forEach((_, i) => row.push(cpu[i], wall[i]));
        if (sides.length === 2) row.push(cpu[1] / cpu[0], wall[1] / wall[0], differing);
        rows.push(row);
        console.error(`${n} x ${dim} ${storage} beam ${beam}: ${row.slice(3).map((v) => (typeof v === 'number' ? v.toPrecision(4) : v)).join(' ')}`);
      }
      indexes.forEach((index) => index.dispose());
    }
  }
  const columns = ['items x dim', 'storage', 'beam'];
  sides.forEach(({ name }) => columns.push(`${name} CPU us/search`, `${name} wall us/search`));
  if (sides.length === 2) columns.push('CPU ratio (this / baseline)', 'wall ratio', 'queries answered differently');
  report.table('CPU time per search, one query a call', columns, rows);
  report.data('rows', rows);
}
