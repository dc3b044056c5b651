// The shop's catalogue snapshot (web/demo/shop-asset.mjs): the page loads it instead of building, so
// it must hold every item with its graph built, and the graph's answers to the shop's kind of query
// (a model that learned a kind: the kind's mean features and noise) must be close to an exact scan's,
// with int8 rows as with float rows.
import { describe, expect, test } from 'vitest';
import { loadModule, seededRandom } from './helpers.js';
import { standardNormal } from '../../bench/lib/seeded-random.mjs';
import { buildShopAsset, buildShopSnapshot, insertionOrder, SHOP_INDEX } from '../../web/demo/shop-asset.mjs';
import { parseShopAsset } from '../../web/demo/shop-catalogue.js';

const sb = await loadModule();
const bytes = buildShopAsset();
const shop = parseShopAsset(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const d = shop.dim;

// Queries like a Sub-TS draw of a visitor who likes kind k: the kind's mean features and noise.
function kindQueries(count, seed) {
  const random = seededRandom(seed);
  const means = Array.from({ length: 10 }, () => new Float64Array(d));
  const perKind = new Array(10).fill(0);
  for (let n = 0; n < shop.count; n++) perKind[shop.labels[n]] += 1;
  for (let n = 0; n < shop.count; n++) for (let j = 0; j < d - 1; j++) means[shop.labels[n]][j] += shop.features[n * d + j] / perKind[shop.labels[n]];
  return Array.from({ length: count }, (_, i) => Float32Array.from({ length: d }, (__, j) => means[i % 10][j] + 0.5 * standardNormal(random)));
}

describe('the shop\'s catalogue snapshot', () => {
  test('holds the 60,000 items and their labels, its graph built', async () => {
    const catalogue = sb.Catalogue.fromBytes(await buildShopSnapshot(parseShopAsset));
    try {
      const stats = catalogue.stats();
      expect(catalogue.size).toBe(60_000);
      expect(catalogue.dim).toBe(d);
      expect(stats.index.built).toBe(60_000);
      expect(stats.index.pending).toBe(0);
      expect(stats.index.storage).toBe(SHOP_INDEX.storage);
      // Kind 0 is labelled 0; the other 54,000 are labelled.
      expect(stats.labelled).toBe(54_000);
      // A Sub-TS user's slate searches the graph: it scores far fewer than all the items.
      const user = new sb.SubTS({ catalogue, seed: 1, auditBudget: 0 });
      const before = catalogue.stats().innerProducts;
      user.selectSlate(10, { exclude: [1, 2, 3] });
      expect(catalogue.stats().innerProducts - before).toBeLessThan(60_000 / 10);
      user.dispose();
    } finally {
      catalogue.dispose();
    }
  }, 120_000);

  test('its graph answers a kind\'s queries nearly as an exact scan does, with int8 rows as with floats', () => {
    const queries = kindQueries(200, 7);
    const exact = new sb.ExactIndex({ dim: d });
    exact.add(shop.ids, shop.features);
    const truth = queries.map((query) => Array.from(exact.search(query, 10).ids));
    const score = (id, query) => query.reduce((sum, q, j) => sum + q * shop.features[id * d + j], 0);
    const measured = {};
    for (const storage of ['f32', 'int8']) {
      const { type, ...options } = SHOP_INDEX;
      expect(type).toBe('hnsw');
      const index = new sb.HnswIndex({ ...options, dim: d, storage, seed: 1 });
      // In the snapshot's order.
      const order = insertionOrder(shop.count);
      index.add(order, Float32Array.from({ length: shop.features.length }, (_, i) => shop.features[order[Math.floor(i / d)] * d + (i % d)]));
      index.build();
      let found = 0;
      let scoreRatio = 0;
      queries.forEach((query, q) => {
        // As Sub-TS searches: a shortlist of 30 ranked exactly.
        const ids = Array.from(index.search(query, 10, { shortlist: 30 }).ids);
        found += ids.filter((id) => truth[q].includes(id)).length;
        scoreRatio += ids.reduce((sum, id) => sum + score(id, query), 0) / truth[q].reduce((sum, id) => sum + score(id, query), 0);
      });
      measured[storage] = { recall: found / (10 * queries.length), scoreRatio: scoreRatio / queries.length };
      index.dispose();
    }
    exact.dispose();
    // Measured: recall@10 0.84 (f32) and 0.84 (int8); the ten found score 0.995 of the best ten.
    expect(measured.int8.recall).toBeGreaterThan(0.75);
    expect(measured.int8.recall).toBeGreaterThan(measured.f32.recall - 0.03);
    expect(measured.int8.scoreRatio).toBeGreaterThan(0.99);
  }, 120_000);
});
