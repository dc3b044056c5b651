// Filtered search (issue 32): K Gaussian items in d = 32 (default 10^5; `--full` adds 10^6 for the
// exact scan and HNSW), each with one of 1,000 labels drawn uniformly, so that allowing L labels makes
// about L / 10 percent of the items eligible. For every index type and selectivity: recall@10 against
// the exact answer over the eligible items, and ms per query beside the exact scan of just the
// eligible items (ExactIndex's filtered search: the labels' posting lists) and beside the same
// index's unfiltered search. Then HNSW's crossover: its graph search forced (filterCrossover 0)
// against the exact scan of the eligible items over a finer grid of selectivities; the selectivity
// where the two cost the same gives the constant of HnswIndex's rule (scan the eligible items when
// that costs at most filterCrossover x beam / f scan rows), printed with the configuration.
//   npm run bench -- filters [--full] [--n=N] [--queries=Q] [--repeats=R] [--efc=E] [--indexes=exact,hnsw,lsh,...]
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { textArg, numberArg } from './lib/args.mjs';

const K = 10;
const DIM = 32;
const LABELS = 1000;
const SELECTIVITIES = [500, 100, 10, 1];          // allowed labels of 1,000: 50%, 10%, 1%, 0.1%
const CROSSOVER_GRID = [500, 200, 100, 50, 20, 10, 5, 2, 1];

function parseArgs(args) {
  const full = args.includes('--full');
  return {
    full,
    sizes: textArg(args, 'n', '') ? [numberArg(args, 'n', '')] : full ? [100000, 1000000] : [100000],
    queries: numberArg(args, 'queries', 200),
    only: textArg(args, 'indexes', '').split(',').filter(Boolean),
    // HNSW's efConstruction (200; a 10^6 graph builds in about a third of the time at 64).
    efConstruction: numberArg(args, 'efc', 200),
    repeats: numberArg(args, 'repeats', 7),
  };
}

// The indexes compared at every size (HNSW and the exact scan only at 10^6: the others' builds and
// searches there say nothing new about filters).
function indexConfigs(n, efConstruction) {
  const all = [
    { label: 'exact', spec: { type: 'exact' } },
    { label: 'hnsw', spec: { type: 'hnsw', M: 16, efConstruction, efSearch: 64, build: 'immediate', seed: 1 } },
    { label: 'lsh', spec: { type: 'lsh', bits: 8, tables: 16, seed: 1 } },
    { label: 'bounded-me', spec: { type: 'bounded-me', seed: 1 } },
    { label: 'greedy', spec: { type: 'greedy', seed: 1 } },
    { label: 'pca-tree', spec: { type: 'pca-tree', seed: 1 } },
  ];
  return all.filter((entry) => n <= 100000 || entry.label === 'exact' || entry.label === 'hnsw');
}

const classOf = { exact: 'ExactIndex', hnsw: 'HnswIndex', lsh: 'LshIndex', 'bounded-me': 'BoundedMEIndex', greedy: 'GreedyMipsIndex', 'pca-tree': 'PcaTreeIndex' };
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const firstLabels = (count) => Uint32Array.from({ length: count }, (_, i) => i);

// The machine is shared: each measurement runs its contenders in turn, `repeats` rounds of all the
// queries each, and reports per contender the median of its rounds' mean ms per query, and the
// median of the per-round ratios to the first contender's (ratios of neighbouring rounds drift less
// than times). Returns [{ ms, ratio, answers }] (answers of the last round).
function compare(contenders, queries, repeats) {
  const rounds = contenders.map(() => []);
  const answers = contenders.map(() => []);
  for (let r = 0; r < repeats; r++) {
    contenders.forEach(([index, options], c) => {
      const found = [];
      const start = performance.now();
      for (const query of queries) found.push(index.search(query, K, options).ids);
      rounds[c].push((performance.now() - start) / queries.length);
      answers[c] = found;
    });
  }
  return contenders.map((_, c) => ({
    ms: median(rounds[c]),
    ratio: median(rounds[c].map((time, r) => time / rounds[0][r])),
    answers: answers[c],
  }));
}

function timeQueries(index, queries, options, repeats) {
  return compare([[index, options]], queries, repeats)[0];
}

function recall(answers, truth) {
  let hits = 0;
  let wanted = 0;
  for (let q = 0; q < truth.length; q++) {
    const found = new Set(answers[q]);
    for (const id of truth[q]) hits += found.has(id) ? 1 : 0;
    wanted += truth[q].length;
  }
  return wanted === 0 ? 1 : hits / wanted;
}

export default async function filters(args, report) {
  const config = parseArgs(args);
  const sb = await init();
  const crossovers = [];
  for (const n of config.sizes) {
    const random = seededRandom(32 + n);
    const vectors = Float32Array.from({ length: n * DIM }, () => standardNormal(random));
    const labels = Uint32Array.from({ length: n }, () => Math.floor(random() * LABELS));
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const queries = Array.from({ length: config.queries }, () => Float32Array.from({ length: DIM }, () => standardNormal(random)));

    // The reference: ExactIndex, unfiltered (the whole set) and filtered (just the eligible items).
    const exact = new sb.ExactIndex({ dim: DIM });
    exact.add(ids, vectors, { labels });
    const countOf = (allowed) => { let m = 0; for (const label of labels) m += label < allowed ? 1 : 0; return m; };

    const rows = [];
    for (const entry of indexConfigs(n, config.efConstruction)) {
      if (config.only.length > 0 && !config.only.includes(entry.label)) continue;
      report.progress(0, `${entry.label} at ${n}`);
      const started = performance.now();
      const index = entry.label === 'exact' ? exact : new sb[classOf[entry.label]]({ dim: DIM, ...entry.spec });
      if (index !== exact) index.add(ids, vectors, { labels });
      const build = (performance.now() - started) / 1000;
      const measure = (options) => {
        const [filtered, scan, unfiltered, wholeScan] = compare(
          [[index, options], [exact, options], [index, undefined], [exact, undefined]], queries, config.repeats);
        // ratio is relative to the filtered search: invert for "filtered x contender".
        return { filtered, scan, unfiltered, wholeScan, xScan: 1 / scan.ratio, xUnfiltered: 1 / unfiltered.ratio, xWhole: 1 / wholeScan.ratio };
      };
      for (const allowed of SELECTIVITIES) {
        const r = measure({ labels: firstLabels(allowed) });
        rows.push([n, entry.label, `${(allowed / 10).toString()}%`, countOf(allowed), recall(r.filtered.answers, r.scan.answers),
          r.filtered.ms, r.scan.ms, r.xScan, r.unfiltered.ms, r.xUnfiltered, r.wholeScan.ms, r.xWhole, build]);
      }
      // Exclusions only (a page's 100 best unfiltered answers of the first query) and labels with them.
      const shown = Array.from(exact.search(queries[0], 100).ids);
      for (const [what, options] of [['exclude 100', { exclude: shown }], ['10% + exclude 100', { labels: firstLabels(100), exclude: shown }]]) {
        const r = measure(options);
        rows.push([n, entry.label, what, '', recall(r.filtered.answers, r.scan.answers), r.filtered.ms, r.scan.ms, r.xScan,
          r.unfiltered.ms, r.xUnfiltered, r.wholeScan.ms, r.xWhole, build]);
      }
      if (entry.label === 'hnsw') {
        // The crossover: the same graph's search forced at every selectivity (filterCrossover 0)
        // against the scan of the eligible items. A second graph, built the same way (same seed).
        const graphOnly = new sb.HnswIndex({ dim: DIM, ...entry.spec, filterCrossover: 0 });
        graphOnly.add(ids, vectors, { labels });
        const beam = entry.spec.efSearch + K - 1;
        const grid = [];
        for (const allowed of CROSSOVER_GRID) {
          const options = { labels: firstLabels(allowed) };
          const before = graphOnly.stats().innerProducts;
          const [graph, scan, wholeScan] = compare([[graphOnly, options], [exact, options], [exact, undefined]], queries, config.repeats);
          const products = (graphOnly.stats().innerProducts - before) / (config.repeats * queries.length);
          const m = countOf(allowed);
          // Times as ratios to the whole scan of the same rounds: graph rows = graph / whole x n.
          grid.push({ allowed, m, fraction: m / n, graph: graph.ms, scan: scan.ms, graphRows: n / wholeScan.ratio,
            graphOverScan: scan.ratio === 0 ? Infinity : 1 / scan.ratio, recall: recall(graph.answers, scan.answers), products });
        }
        // Where the two times meet (interpolated in log f between the grid points that bracket it).
        // HnswIndex's rule takes a filtered beam to cost c x beam / f scan rows and scans the eligible
        // items when that costs no more (eligibleScanRows: the rows, or 6 per posting entry when less):
        // at the meeting point c = scanRows(f) x f / beam.
        const scanRows = (m) => Math.min(n, 6 * m);
        let constant = null;
        for (let i = 0; i + 1 < grid.length; i++) {
          const [above, below] = [grid[i], grid[i + 1]];
          if (above.graphOverScan <= 1 && below.graphOverScan > 1) {
            const ratio = (g) => Math.log(g.graphOverScan);
            const t = ratio(above) / (ratio(above) - ratio(below));
            const fraction = Math.exp(Math.log(above.fraction) + t * (Math.log(below.fraction) - Math.log(above.fraction)));
            constant = (scanRows(fraction * n) * fraction) / beam;
            crossovers.push({ n, fraction, constant });
          }
        }
        report.table(`HNSW crossover at K = ${n}, d = ${DIM} (M ${entry.spec.M}, efConstruction ${entry.spec.efConstruction}, efSearch ${entry.spec.efSearch}, k ${K}: beam ${beam}): graph search forced vs exact scan of the eligible items`,
          ['eligible', 'items', 'graph ms', 'scan ms', 'graph / scan', 'graph recall@10', 'graph inner products', 'graph in scan rows per beam / f', 'scan rows x f / beam'],
          grid.map((g) => [`${(g.allowed / 10).toString()}%`, g.m, g.graph, g.scan, g.graphOverScan, g.recall, Math.round(g.products),
            g.graphRows / (beam / g.fraction), (scanRows(g.m) * g.fraction) / beam]));
        report.note(constant === null
          ? 'No crossing in this grid.'
          : `Measured crossover at K = ${n}: the graph and the scan cost the same at ${(100 * crossovers.at(-1).fraction).toPrecision(3)}% eligible, where scan rows x f / beam = ${constant.toPrecision(3)} (the filterCrossover that would switch there).`);
        graphOnly.dispose();
      }
      if (index !== exact) index.dispose();
      report.progress(1, `${entry.label} at ${n}`);
    }
    report.table(`Filtered search at K = ${n}, d = ${DIM}, top ${K}, ${config.queries} queries (medians of ${config.repeats} interleaved rounds; x: ratio of this index's filtered search to the named search, median of per-round ratios); labels uniform over ${LABELS}`,
      ['K', 'index', 'eligible', 'items', 'recall@10', 'ms/query', 'exact eligible ms', 'x eligible scan', 'unfiltered ms', 'x unfiltered', 'exact whole ms', 'x whole scan', 'build s'],
      rows);
    exact.dispose();
  }
  const defaults = sb.optionTable('index', 'hnsw').find((option) => option.name === 'filterCrossover');
  report.note(`HnswIndex's filterCrossover default: ${defaults?.default}. Measured constants: ${crossovers.map((c) => `${c.constant.toPrecision(3)} at K = ${c.n}`).join(', ') || 'none'}.`);
  report.data('crossovers', crossovers);
}
