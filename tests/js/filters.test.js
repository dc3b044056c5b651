// Labels and filters through the package (issue 32): index.add(ids, vectors, { labels }) and
// index.search(query, k, { shortlist, exclude, labels }) for every index type: only eligible items,
// min(k, eligible) of them, exactly brute force over the eligible items for ExactIndex and close to
// it for the approximate types; nothing eligible is EMPTY; bad labels and filters are coded errors
// that change nothing; labels survive toBytes/fromBytes.
import { describe, expect, test } from 'vitest';
import { bruteForce, expectBanditError, gaussian, loadModule, recallFloor, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 8;
const n = 3000;
const labelCount = 100;   // allowing L labels admits about L percent of the items

// Every registered index type: [its options, the least recall of the filtered top-k it must reach]
// (a type without a row: its own unfiltered recall less 0.1, recallFloor).
const types = registeredClasses(sb, 'index', {
  exact: [{}, 1.0],
  hnsw: [{ M: 12, efConstruction: 100, build: 'immediate' }, 0.95],
  lsh: [{}, 0.3],
  'bounded-me': [{}, 0.5],
  greedy: [{}, 0.5],
  'pca-tree': [{ depth: 3 }, 0.3],
  adaptive: [{ copies: 2, base: { type: 'hnsw', M: 12, efConstruction: 100, build: 'immediate' } }, 0.9],
}, { missingRow: [{}, -0.1] }).map(([name, [options, minimumRecall]]) => [name, options, minimumRecall]);

function catalogue(seed) {
  const random = seededRandom(seed);
  const ids = Uint32Array.from({ length: n }, (_, i) => 5 * i + 2);
  const vectors = gaussian(random, n * dim);
  const labels = Uint32Array.from({ length: n }, () => Math.floor(random() * labelCount));
  const items = new Map();
  ids.forEach((id, i) => items.set(id, vectors.subarray(i * dim, (i + 1) * dim)));
  const labelOf = new Map(Array.from(ids, (id, i) => [id, labels[i]]));
  const queries = Array.from({ length: 12 }, () => gaussian(random, dim));
  return { ids, vectors, labels, items, labelOf, queries };
}

function eligibleItems(data, { exclude = [], labels } = {}) {
  const excluded = new Set(exclude);
  const allowed = labels && labels.length > 0 ? new Set(labels) : null;
  return new Map([...data.items].filter(([id]) => !excluded.has(id) && (!allowed || allowed.has(data.labelOf.get(id)))));
}

describe.each(types)('%s with labels and filters', (name, options, minimumRecall) => {
  const data = catalogue(17);
  const index = new sb[name]({ dim, seed: 4, ...options });
  index.add(data.ids, data.vectors, { labels: data.labels });

  // The filters: 50%, 10%, 1% of the labels, exclusions alone and with labels, a shortlist.
  const top = Array.from(bruteForce(data.items, data.queries[0], 25), ([, id]) => id);
  const filters = [
    ['50% eligible', { labels: Array.from({ length: 50 }, (_, i) => i) }],
    ['10% eligible', { labels: Uint32Array.from({ length: 10 }, (_, i) => 2 * i) }],
    ['1% eligible', { labels: [7] }],
    ['exclusions only', { exclude: top }],
    ['labels and exclusions', { labels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], exclude: Uint32Array.from(top) }],
    ['a shortlist under a filter', { labels: [3, 4], shortlist: 30 }],
  ];

  test.each(filters)('%s: only eligible items, min(k, eligible) of them, close to brute force', (_label, filter) => {
    const eligible = eligibleItems(data, filter);
    let hits = 0;
    let wanted = 0;
    for (const query of data.queries) {
      const { ids, scores } = index.search(query, 10, filter);
      expect(ids.length).toBe(Math.min(10, eligible.size));
      for (const id of ids) expect(eligible.has(id), `id ${id} is not eligible`).toBe(true);
      for (let i = 1; i < scores.length; i++) expect(scores[i - 1]).toBeGreaterThanOrEqual(scores[i]);
      const truth = bruteForce(eligible, query, 10).map(([, id]) => id);
      if (minimumRecall === 1) expect(Array.from(ids)).toEqual(truth);
      const found = new Set(ids);
      hits += truth.filter((id) => found.has(id)).length;
      wanted += truth.length;
    }
    expect(hits / wanted).toBeGreaterThanOrEqual(recallFloor(minimumRecall, index, data.items, data.queries));
  });

  test('k above the eligible count returns fewer; nothing eligible is EMPTY', () => {
    const filter = { labels: [11], exclude: Array.from(data.ids).filter((id) => data.labelOf.get(id) === 11).slice(0, -3) };
    expect(index.search(data.queries[1], 10, filter).ids.length).toBe(3);
    expectBanditError(sb, () => index.search(data.queries[1], 10, { labels: [labelCount + 1] }), 'EMPTY');
    const everyOne = Array.from(data.ids).filter((id) => data.labelOf.get(id) === 12);
    expectBanditError(sb, () => index.search(data.queries[1], 10, { labels: [12], exclude: everyOne }), 'EMPTY');
    // Excluding ids the index does not hold filters nothing.
    expect(Array.from(index.search(data.queries[1], 5, { exclude: [1, 3] }).ids)).toEqual(Array.from(index.search(data.queries[1], 5).ids));
  });

  test('labels survive toBytes/fromBytes, removals and a later add', () => {
    const copy = sb[name].fromBytes(index.toBytes());
    const filter = { labels: [5, 6] };
    for (const query of data.queries.slice(0, 4)) {
      expect(Array.from(copy.search(query, 10, filter).ids)).toEqual(Array.from(index.search(query, 10, filter).ids));
    }
    // Remove every item of label 5 but two; add three new items under label 5.
    const ofFive = Array.from(data.ids).filter((id) => data.labelOf.get(id) === 5);
    copy.remove(ofFive.slice(2));
    copy.add([900001, 900002, 900003], gaussian(seededRandom(3), 3 * dim), { labels: [5, 5, 5] });
    const found = Array.from(copy.search(data.queries[0], 10, { labels: [5] }).ids).sort((a, b) => a - b);
    expect(found).toEqual([...ofFive.slice(0, 2), 900001, 900002, 900003].sort((a, b) => a - b));
    copy.dispose();
  });
});

describe('labels and filters are checked', () => {
  const index = new sb.ExactIndex({ dim: 2 });
  index.add([1, 2], [1, 0, 0, 1], { labels: [4, 5] });

  test('bad labels at add are coded errors and add nothing', () => {
    expectBanditError(sb, () => index.add([3, 4], [1, 1, 2, 2], { labels: [1] }), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => index.add([3], [1, 1], { labels: [-1] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.add([3], [1, 1], { labels: [2 ** 32] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.add([3], [1, 1], { labels: [0.5] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.add([3], [1, 1], { labels: 'a' }), 'INVALID_ARGUMENT');
    const error = expectBanditError(sb, () => index.add([3], [1, 1], { label: [1] }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('labels');
    expect(index.size).toBe(2);
    expect(index.has(3)).toBe(false);
  });

  // withHeap gives empty arrays address 0, which the bindings read as "no labels": labels given
  // empty must still reach the core as given, which refuses them beside ids.
  test('labels given empty beside ids are refused by the index, a policy and a catalogue, which add nothing', () => {
    expectBanditError(sb, () => index.add([3], [1, 1], { labels: [] }), 'DIMENSION_MISMATCH');
    expect(index.has(3)).toBe(false);
    index.add([], [], { labels: [] });
    expect(index.size).toBe(2);
    const policy = new sb.LinUCB({ dim: 2 });
    expectBanditError(sb, () => policy.addArms([3], [1, 1], { labels: [] }), 'INVALID_ARGUMENT');
    expect(policy.armCount).toBe(0);
    policy.dispose();
    const shared = new sb.Catalogue({ dim: 2 });
    expectBanditError(sb, () => shared.add([3], [1, 1], { labels: new Uint32Array(0) }), 'INVALID_ARGUMENT');
    expect(shared.size).toBe(0);
    shared.dispose();
  });

  test('bad filters at search are coded errors naming the option', () => {
    expect(expectBanditError(sb, () => index.search([1, 0], 1, { excluded: [1] }), 'INVALID_ARGUMENT').message).toContain('exclude');
    expectBanditError(sb, () => index.search([1, 0], 1, { exclude: [-1] }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.search([1, 0], 1, { labels: ['4'] }), 'INVALID_ARGUMENT');
    expect(Array.from(index.search([1, 0], 2, { labels: [5] }).ids)).toEqual([2]);
    expect(Array.from(index.search([1, 0], 2, { exclude: [1] }).ids)).toEqual([2]);
  });
});
