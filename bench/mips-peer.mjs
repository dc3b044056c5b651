// Ours against a peer, in the browser where both run: our HnswIndex (hnswlib 0.6.2 compiled with
// this package's flags) against the npm package hnswlib-wasm (hnswlib compiled by its authors; it
// runs only in browsers), same data, same M / efConstruction / efSearch, in one Chromium page.
// Reports build time, query time and recall@10 against our exact scan, side by side.
//
//   npm run bench -- mips-peer            100,000 x 32 Gaussian items, 200 queries (about a minute)
//   options: --items N, --dim d, --queries Q, --M m, --efConstruction e, --efSearch s
import { launchChromium } from '../tests/e2e/chromium.js';
import { serveRepository } from './lib/repository-server.mjs';

function option(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

// Runs in the page: both indexes on the same data, timed with performance.now().
async function compareInPage({ items, dim, queries, M, efConstruction, efSearch }) {
  const { default: init } = await import('/dist/index.js');
  const { loadHnswlib } = await import('/node_modules/hnswlib-wasm/dist/hnswlib.js');
  const sb = await init();
  const peer = await loadHnswlib();
  const { seededRandom, standardNormal } = await import('/bench/lib/seeded-random.mjs');
  const random = seededRandom(12345);
  const gaussian = (count) => Float32Array.from({ length: count }, () => standardNormal(random));
  const data = gaussian(items * dim);
  const ids = Uint32Array.from({ length: items }, (_, i) => i);
  const queryData = Array.from({ length: queries }, () => gaussian(dim));

  const exact = new sb.ExactIndex({ dim });
  exact.add(ids, data);
  const truth = queryData.map((query) => new Set(exact.search(query, 10).ids));
  const recall = (found) => found.reduce((sum, list, q) => sum + list.filter((id) => truth[q].has(id)).length / 10, 0) / queries;

  let start = performance.now();
  const ours = new sb.HnswIndex({ dim, M, efConstruction, efSearch, seed: 1 });
  ours.add(ids, data);
  const oursBuild = performance.now() - start;
  start = performance.now();
  const oursFound = queryData.map((query) => Array.from(ours.search(query, 10).ids));
  const oursQuery = (performance.now() - start) / queries;

  start = performance.now();
  const theirs = new peer.HierarchicalNSW('ip', dim, '');
  theirs.initIndex(items, M, efConstruction, 1);
  for (let i = 0; i < items; i++) theirs.addPoint(data.subarray(i * dim, (i + 1) * dim), i, false);
  const theirsBuild = performance.now() - start;
  theirs.setEfSearch(efSearch);
  start = performance.now();
  const theirsFound = queryData.map((query) => Array.from(theirs.searchKnn(query, 10, undefined).neighbors));
  const theirsQuery = (performance.now() - start) / queries;

  return {
    userAgent: navigator.userAgent,
    ours: { build: oursBuild, query: oursQuery, recall: recall(oursFound) },
    theirs: { build: theirsBuild, query: theirsQuery, recall: recall(theirsFound) },
  };
}

export default async function mipsPeer(args, report) {
  const config = {
    items: option(args, 'items', 100000), dim: option(args, 'dim', 32), queries: option(args, 'queries', 200),
    M: option(args, 'M', 16), efConstruction: option(args, 'efConstruction', 200), efSearch: option(args, 'efSearch', 64),
  };
  report.note(`Configuration: ${config.items} x ${config.dim} Gaussian items, ${config.queries} Gaussian queries, top 10, inner product; ` +
    `M ${config.M}, efConstruction ${config.efConstruction}, efSearch ${config.efSearch}; both in one Chromium page (Debian's), ` +
    'recall@10 against our exact scan. hnswlib-wasm adds points one call at a time (its API); ours takes the batch in one call.');
  const server = await serveRepository('mips-peer');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const result = await page.evaluate(compareInPage, config);
    report.note(`Browser: ${result.userAgent}`);
    const row = (name, entry) => [name, entry.build / 1000, entry.query, entry.recall];
    report.table('HNSW in the browser: ours against hnswlib-wasm', ['index', 'build s', 'ms / query', 'recall@10'],
      [row('sublinear-bandits HnswIndex', result.ours), row('hnswlib-wasm 0.8.2', result.theirs)]);
    report.note(`Ratios (ours / theirs): build ×${(result.ours.build / result.theirs.build).toFixed(2)}, ` +
      `query ×${(result.ours.query / result.theirs.query).toFixed(2)}, recall ${result.ours.recall.toFixed(3)} against ${result.theirs.recall.toFixed(3)}.`);
    report.data('peer', { config, ...result });
  } finally {
    await browser.close();
    server.close();
  }
}
