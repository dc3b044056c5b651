// MIPS indexes on real vectors: Fashion-MNIST (Debian's dataset-fashion-mnist, installed by
// scripts/bootstrap.sh), the 60,000 training images as items (784 pixels in [0, 1]) and test images
// as queries, raw inner product, top 10. Recall@10 against the exact scan and time per query, in
// wasm (Node), one index at a time, with HnswIndex in each space and in 'auto' (the default).
//   npm run bench -- mips-real [--items N] [--queries Q] [--efConstruction e] [--only hnsw-auto]
// --only hnsw-auto runs the default HnswIndex alone (options as a user gives them: none but dim and
// seed), the exact scan beside it.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import init from '../dist/index.js';
import { spacedNumberArg, spacedTextArg } from './lib/args.mjs';

const K = 10;
const folder = '/usr/share/datasets/fashion-mnist';

// IDX image files: a 16-byte header (magic, count, rows, columns), then one byte per pixel.
export function readImages(file, limit) {
  const bytes = gunzipSync(readFileSync(`${folder}/${file}`));
  const count = Math.min(limit, bytes.readUInt32BE(4));
  const dim = bytes.readUInt32BE(8) * bytes.readUInt32BE(12);
  const vectors = new Float32Array(count * dim);
  for (let i = 0; i < count * dim; i++) vectors[i] = bytes[16 + i] / 255;
  return { count, dim, vectors };
}

// Milliseconds a query: the median of three timed passes over the queries, after the pass that
// computed the recall has warmed the code and the memory the search touches (a single cold pass of
// 200 queries measured the first page faults and tier-up as much as the search).
function msPerQuery(count, search) {
  const passes = [];
  for (let pass = 0; pass < 3; pass++) {
    const start = performance.now();
    for (let q = 0; q < count; q++) search(q);
    passes.push((performance.now() - start) / count);
  }
  return passes.sort((a, b) => a - b)[1];
}

export default async function mipsReal(args, report) {
  const config = { items: spacedNumberArg(args, 'items', 60000), queries: spacedNumberArg(args, 'queries', 200), efConstruction: spacedNumberArg(args, 'efConstruction', 200) };
  let items;
  let queries;
  try {
    items = readImages('train-images-idx3-ubyte.gz', config.items);
    queries = readImages('t10k-images-idx3-ubyte.gz', config.queries);
  } catch (error) {
    throw new Error(`Fashion-MNIST not found in ${folder} (apt-get install dataset-fashion-mnist): ${error.message}`);
  }
  const { dim } = items;
  report.note(`Configuration: Fashion-MNIST, ${items.count} training images as items, ${queries.count} test images as queries, d = ${dim}, ` +
    `raw inner product, top ${K}, wasm in Node; HNSW with M 16, efConstruction ${config.efConstruction}; other indexes at their defaults. ` +
    'Speed-up is against the exact scan measured in the same run; each time is the median of three passes over the queries after a warm-up pass.');
  const sb = await init();
  const ids = Uint32Array.from({ length: items.count }, (_, i) => i);
  const query = (q) => queries.vectors.subarray(q * dim, (q + 1) * dim);
  const exact = new sb.ExactIndex({ dim });
  exact.add(ids, items.vectors);
  const truth = Array.from({ length: queries.count }, (_, q) => new Set(exact.search(query(q), K).ids));
  const exactMs = msPerQuery(queries.count, (q) => exact.search(query(q), K));
  exact.dispose();
  const rows = [['exact', '—', 1, exactMs, 1]];
  const only = spacedTextArg(args, 'only', null);
  const configs = only === 'hnsw-auto' ? [{ label: 'hnsw defaults', spec: { type: 'hnsw' }, shortlists: [0, 64] }] : [
    ...['auto', 'inner-product', 'euclidean'].map((space) => ({ label: `hnsw ${space}`, spec: { type: 'hnsw', space, efConstruction: config.efConstruction }, shortlists: [0, 64, 192] })),
    { label: 'lsh', spec: { type: 'lsh' }, shortlists: [0] },
    { label: 'greedy', spec: { type: 'greedy' }, shortlists: [0] },
    { label: 'pca-tree', spec: { type: 'pca-tree' }, shortlists: [0] },
  ];
  for (const [n, entry] of configs.entries()) {
    report.progress(n / configs.length, entry.label);
    const className = { hnsw: 'HnswIndex', lsh: 'LshIndex', greedy: 'GreedyMipsIndex', 'pca-tree': 'PcaTreeIndex' }[entry.spec.type];
    const start = performance.now();
    const index = new sb[className]({ dim, seed: 1, ...entry.spec });
    index.add(ids, items.vectors);
    // The default build is incremental: build() finishes the graph, as a user's setup would.
    index.build();
    const build = (performance.now() - start) / 1000;
    const stats = index.stats();
    for (const shortlist of entry.shortlists) {
      const options = shortlist ? { shortlist } : undefined;
      let found = 0;
      for (let q = 0; q < queries.count; q++) {
        for (const id of index.search(query(q), K, options).ids) found += truth[q].has(id) ? 1 : 0;
      }
      const ms = msPerQuery(queries.count, (q) => index.search(query(q), K, options));
      const label = `${entry.label}${shortlist ? ` shortlist ${shortlist}` : ''}${stats.space ? ` (${stats.space}, efSearch ${stats.efSearch})` : ''}`;
      rows.push([label, shortlist ? '' : build, found / (K * queries.count), ms, exactMs / ms]);
    }
    if (stats.spaceTrial) {
      report.note(`${entry.label}: space trial on a sample, recall@10 inner product ${stats.spaceTrial.innerProductRecall.toFixed(3)}, ` +
        `euclidean ${stats.spaceTrial.euclideanRecall.toFixed(3)}: chose ${stats.space}.`);
    }
    index.dispose();
  }
  report.progress(1);
  report.table(`Fashion-MNIST (${items.count} x ${dim}), top ${K}`, ['index', 'build s', 'recall@10', 'ms / query', 'speed-up vs exact'],
    rows);
  report.data('rows', rows);
}
