// Attributes (issue 53, API.md v3): several labels per item and named values given at add, changed by
// setLabels and setValues with no change to any index structure, and the filters { exclude, labels,
// allLabels, noLabels, where } in every index type's search and in every linear policy's select,
// selectSlate, decide and decideSlate, over a catalogue and over its own arms. Every answer holds only
// eligible items; HnswIndex's recall against brute force over the eligible items is at least 0.95 at
// selectivities 0.5, 0.1 and 0.01, combined conditions included; hostile attributes and filters are
// coded errors that change nothing; snapshots keep the attributes.
import { describe, expect, test } from 'vitest';
import { bruteForce, expectBanditError, gaussian, loadModule, recallFloor, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 8;
const items = 4000;
const n = items;

// Every registered index type: its options and the least recall@10 it must reach under a filter (a
// type without a row: its own unfiltered recall less 0.1, recallFloor).
const indexTypes = registeredClasses(sb, 'index', {
  exact: [{}, 1.0],
  hnsw: [{ M: 12, efConstruction: 100, build: 'immediate' }, 0.95],
  lsh: [{}, 0.2],
  'bounded-me': [{}, 0.4],
  greedy: [{}, 0.4],
  'pca-tree': [{ depth: 3 }, 0.2],
  adaptive: [{ copies: 2, base: { type: 'hnsw', M: 12, efConstruction: 100, build: 'immediate' } }, 0.9],
}, { missingRow: [{}, -0.1] }).map(([name, [options, minimumRecall]]) => [name, options, minimumRecall]);

// Items with one to three labels of 0..99 (item i always carries i % 100), a price in [0, 1000) and a
// stock of 0..4.
function shop(seed, n = items) {
  const random = seededRandom(seed);
  const ids = Uint32Array.from({ length: n }, (_, i) => 3 * i + 1);
  const vectors = gaussian(random, n * dim);
  const labels = Array.from({ length: n }, (_, i) => {
    const own = [i % 100];
    const extra = Math.floor(random() * 3);
    for (let j = 0; j < extra; j++) own.push(Math.floor(random() * 100));
    return own;
  });
  const price = Float64Array.from({ length: n }, () => Math.floor(random() * 1000));
  const stock = Float64Array.from({ length: n }, () => Math.floor(random() * 5));
  const queries = Array.from({ length: 15 }, () => gaussian(random, dim));
  return { ids, vectors, labels, values: { price, stock }, queries };
}

function passes(data, i, { exclude = [], labels, allLabels, noLabels, where } = {}) {
  const own = new Set(data.labels[i]);
  if (Array.from(exclude).includes(data.ids[i])) return false;
  if (labels && labels.length > 0 && !Array.from(labels).some((l) => own.has(l))) return false;
  if (allLabels && !Array.from(allLabels).every((l) => own.has(l))) return false;
  if (noLabels && Array.from(noLabels).some((l) => own.has(l))) return false;
  for (const [name, [low, high]] of Object.entries(where ?? {})) {
    const value = data.values[name][i];
    if (!(value >= low && value <= high)) return false;
  }
  return true;
}

function eligibleItems(data, filter) {
  const items = new Map();
  for (let i = 0; i < n; i++) {
    if (passes(data, i, filter)) items.set(data.ids[i], data.vectors.subarray(i * dim, (i + 1) * dim));
  }
  return items;
}

const range = (count, from = 0) => Array.from({ length: count }, (_, i) => from + i);

// Every filter form, with the share of items it admits (measured in the test).
const filters = [
  ['labels (any of), about 0.5', { labels: range(40) }],
  ['allLabels', { allLabels: [3] }],
  ['noLabels, about 0.5', { noLabels: range(30) }],
  ['where price, about 0.5', { where: { price: [0, 499] } }],
  ['where price, about 0.1', { where: { price: [100, 199] } }],
  ['where price, about 0.01', { where: { price: [0, 9] } }],
  ['where stock to Infinity', { where: { stock: [1, Infinity] } }],
  ['labels and where, about 0.1', { labels: range(25), where: { price: [0, 399] } }],
  ['labels, noLabels and where, about 0.01', { labels: range(10, 50), noLabels: [55], where: { price: [500, 599], stock: [1, 4] } }],
  ['everything with exclusions', { labels: range(50), allLabels: [], noLabels: [99], where: { stock: [2, Infinity] }, exclude: [1, 4, 7, 10] }],
];

describe.each(indexTypes)('%s with attributes', (name, options, minimumRecall) => {
  const data = shop(21);
  const index = new sb[name]({ dim, seed: 4, ...options });
  index.add(data.ids, data.vectors, { labels: data.labels, values: data.values });

  test.each(filters)('%s: only eligible items, min(k, eligible) of them, recall against brute force', (_label, filter) => {
    const eligible = eligibleItems(data, filter);
    let hits = 0;
    let wanted = 0;
    for (const query of data.queries) {
      const { ids } = index.search(query, 10, filter);
      expect(ids.length).toBe(Math.min(10, eligible.size));
      for (const id of ids) expect(eligible.has(id), `id ${id} is not eligible`).toBe(true);
      const truth = bruteForce(eligible, query, 10).map(([, id]) => id);
      const found = new Set(ids);
      hits += truth.filter((id) => found.has(id)).length;
      wanted += truth.length;
    }
    expect(hits / wanted).toBeGreaterThanOrEqual(recallFloor(minimumRecall, index, eligibleItems(data, {}), data.queries));
  });

  test('setLabels and setValues change no structure: the bytes of an index given the new attributes at add', () => {
    const changedLabels = data.labels.map((own, i) => (i % 2 === 0 ? [own[0], 200] : [201]));
    const changedPrice = data.values.price.map((price) => 1000 - price);
    const given = new sb[name]({ dim, seed: 4, ...options });
    given.add(data.ids, data.vectors, { labels: changedLabels, values: { price: changedPrice, stock: data.values.stock } });
    const changed = new sb[name]({ dim, seed: 4, ...options });
    changed.add(data.ids, data.vectors, { labels: data.labels, values: data.values });
    changed.setLabels(data.ids, changedLabels);
    changed.setValues(data.ids, { price: changedPrice });
    expect(changed.toBytes()).toEqual(given.toBytes());
    const { ids } = changed.search(data.queries[0], 10, { labels: [201], where: { price: [0, 500] } });
    for (const id of ids) {
      const i = (id - 1) / 3;
      expect(i % 2).toBe(1);
      expect(changedPrice[i]).toBeLessThanOrEqual(500);
    }
    given.dispose();
    changed.dispose();
  });

  test('a snapshot keeps the attributes', () => {
    const restored = sb[name].fromBytes(index.toBytes());
    const filter = filters[8][1];
    expect(restored.search(data.queries[2], 10, filter)).toEqual(index.search(data.queries[2], 10, filter));
    restored.dispose();
  });
});

test('HnswIndex: the selectivities of the recall cases are what they say', () => {
  const data = shop(21);
  const share = (filter) => eligibleItems(data, filter).size / n;
  expect(share(filters[0][1])).toBeGreaterThan(0.4);
  expect(share(filters[4][1])).toBeGreaterThan(0.07);
  expect(share(filters[4][1])).toBeLessThan(0.13);
  expect(share(filters[5][1])).toBeLessThan(0.02);
  expect(share(filters[7][1])).toBeGreaterThan(0.07);
  expect(share(filters[7][1])).toBeLessThan(0.2);
  expect(share(filters[8][1])).toBeLessThan(0.03);
});

describe('hostile attributes and filters: coded errors, nothing changed', () => {
  const data = shop(5, 500);
  const index = new sb.HnswIndex({ dim, seed: 1 });
  index.add(data.ids, data.vectors, { labels: data.labels, values: data.values });
  const catalogue = new sb.Catalogue({ dim, seed: 1 });
  catalogue.add(data.ids, data.vectors, { labels: data.labels, values: data.values });
  const indexBytes = index.toBytes();
  const catalogueBytes = catalogue.toBytes();
  const query = data.queries[0];
  const cases = [
    ['a huge value name', 'INVALID_ARGUMENT', (target) => target.setValues([1], { ['x'.repeat(100000)]: [1] })],
    ['a value name at add that is too long', 'INVALID_ARGUMENT', (target) => target.add([999999], new Float64Array(dim), { values: { ['y'.repeat(200)]: [1] } })],
    ['10^6 labels on one item', 'INVALID_ARGUMENT', (target) => target.setLabels([1], [new Uint32Array(1000000)])],
    ['10^6 labels at add', 'INVALID_ARGUMENT', (target) => target.add([999999], new Float64Array(dim), { labels: [new Uint32Array(1000000)] })],
    ['labels of another count', 'INVALID_ARGUMENT', (target) => target.setLabels([1, 4], [3])],
    ['values of another count', 'DIMENSION_MISMATCH', (target) => target.setValues([1, 4], { stock: [1] })],
    ['an unknown id', 'UNKNOWN_ID', (target) => target.setValues([1, 2], { stock: [1, 1] })],
    ['an id twice', 'DUPLICATE_ID', (target) => target.setLabels([1, 1], [1, 2])],
    ['a NaN value', 'NON_FINITE', (target) => target.setValues([1], { stock: [NaN] })],
    ['a label that is not an integer', 'INVALID_ARGUMENT', (target) => target.setLabels([1], [[1.5]])],
    ['more than 64 value names', 'INVALID_ARGUMENT', (target) => target.setValues([1], Object.fromEntries(range(65).map((i) => [`v${i}`, [i]])))],
  ];
  test.each(cases)('%s (index and catalogue)', (_label, code, change) => {
    expectBanditError(sb, () => change(index), code);
    expectBanditError(sb, () => change(catalogue), code);
    expect(index.toBytes()).toEqual(indexBytes);
    expect(catalogue.toBytes()).toEqual(catalogueBytes);
  });
  const badFilters = [
    ['a NaN bound', { where: { price: [NaN, 3] } }, 'INVALID_ARGUMENT'],
    ['an inverted range', { where: { price: [5, 3] } }, 'INVALID_ARGUMENT'],
    ['a range that is not a pair', { where: { price: [1] } }, 'INVALID_ARGUMENT'],
    ['an unknown value name', { where: { colour: [0, 1] } }, 'INVALID_ARGUMENT'],
    ['a huge value name', { where: { ['z'.repeat(1 << 20)]: [0, 1] } }, 'INVALID_ARGUMENT'],
    ['an unknown filter key', { label: [1] }, 'INVALID_ARGUMENT'],
    ['a negative label', { allLabels: [-1] }, 'INVALID_ARGUMENT'],
    ['nothing eligible', { allLabels: [500] }, 'EMPTY'],
  ];
  test.each(badFilters)('%s in search and select', (_label, filter, code) => {
    const error = expectBanditError(sb, () => index.search(query, 5, filter), code);
    if (_label === 'an unknown value name') expect(error.message).toContain('colour');
    const user = new sb.LinUCB({ catalogue, seed: 2 });
    expectBanditError(sb, () => user.select(filter), code);
    expectBanditError(sb, () => user.decideSlate(3, filter), code);
    user.dispose();
    expect(index.toBytes()).toEqual(indexBytes);
  });
});

// Linear policies: over a catalogue (a shop's day) and over their own arms.
const policies = registeredClasses(sb, 'linear-policy', { 'sub-elim': { index: { type: 'hnsw', M: 8 } } });

describe.each(policies)('%s with attribute filters', (name, options) => {
  const data = shop(9);
  const choices = (user, filter) => [
    user.select(filter),
    ...user.selectSlate(5, filter),
    user.decide(filter).arm,
    ...user.decideSlate(4, filter).arms,
  ];
  const eligibleIds = (filter) => new Set(eligibleItems(data, filter).keys());

  test('over a catalogue: a shop day of stock flips, price filters and new arrivals', () => {
    const catalogue = new sb.Catalogue({ dim, seed: 3 });
    const half = n / 2;
    catalogue.add(data.ids.subarray(0, half), data.vectors.subarray(0, half * dim),
      { labels: data.labels.slice(0, half), values: { price: data.values.price.subarray(0, half), stock: data.values.stock.subarray(0, half) } });
    // Over a catalogue the elimination policies search no index: no index option.
    const user = new sb[name]({ catalogue, seed: 5 });
    const random = seededRandom(4);
    for (let hour = 0; hour < 4; hour++) {
      // Stock flips: 50 items sell out or come back.
      const flipped = Uint32Array.from({ length: 50 }, () => Math.floor(random() * half));
      const unique = [...new Set(flipped)];
      const stock = unique.map((i) => (data.values.stock[i] = data.values.stock[i] > 0 ? 0 : 3));
      catalogue.setValues(unique.map((i) => data.ids[i]), { stock });
      for (const [, filter] of filters.slice(0, 9)) {
        const allowed = eligibleIds({ ...filter });
        const present = new Set(Array.from(data.ids).filter((id) => catalogue.has(id)));
        const eligible = [...allowed].filter((id) => present.has(id));
        if (eligible.length < 5) continue;
        for (const arm of choices(user, { ...filter, where: { ...filter.where } })) {
          expect(allowed.has(arm) && present.has(arm), `arm ${arm} is not eligible under ${JSON.stringify(filter)}`).toBe(true);
        }
        user.update(user.select(filter), random());
      }
      // New arrivals: the next 250 items, labelled and priced.
      const from = half + hour * 250;
      catalogue.add(data.ids.subarray(from, from + 250), data.vectors.subarray(from * dim, (from + 250) * dim),
        { labels: data.labels.slice(from, from + 250), values: { price: data.values.price.subarray(from, from + 250), stock: data.values.stock.subarray(from, from + 250) } });
    }
    // Relabelling: items move to a promotion label and a price filter picks them.
    const promoted = Array.from(data.ids.subarray(0, 40));
    catalogue.setLabels(promoted, promoted.map(() => [500, 501]));
    for (const arm of choices(user, { allLabels: [500, 501], where: { price: [0, 1000] } })) expect(promoted).toContain(arm);
    user.dispose();
    catalogue.dispose();
  });

  test('over its own arms', () => {
    const policy = new sb[name]({ dim, seed: 5, ...options });
    policy.addArms(data.ids, data.vectors, { labels: data.labels, values: data.values });
    for (const [, filter] of filters) {
      const allowed = eligibleIds(filter);
      if (allowed.size < 5) continue;
      for (const arm of choices(policy, filter)) expect(allowed.has(arm), `arm ${arm} under ${JSON.stringify(filter)}`).toBe(true);
    }
    const restored = sb[name].fromBytes(policy.toBytes());
    expect(restored.selectSlate(5, filters[8][1])).toEqual(policy.selectSlate(5, filters[8][1]));
    restored.dispose();
    policy.dispose();
  });
});

test('a catalogue snapshot keeps several labels and values exactly', () => {
  const data = shop(2);
  const catalogue = new sb.Catalogue({ dim, seed: 3 });
  catalogue.add(data.ids, data.vectors, { labels: data.labels, values: data.values });
  catalogue.setValues([data.ids[0]], { stock: [42] });
  const restored = sb.Catalogue.fromBytes(catalogue.toBytes());
  expect(restored.toBytes()).toEqual(catalogue.toBytes());
  const user = new sb.LinTS({ catalogue: restored, seed: 1 });
  expect(user.select({ where: { stock: [42, 42] } })).toBe(data.ids[0]);
  user.dispose();
  restored.dispose();
  catalogue.dispose();
});

test('evaluation logs take the new filter keys', () => {
  const data = shop(3);
  const policy = new sb.LinUCB({ dim, seed: 1 });
  policy.addArms(data.ids, data.vectors, { labels: data.labels, values: data.values });
  const records = 30;
  const filter = { where: { price: [0, 499] }, noLabels: [1] };
  const arms = Uint32Array.from({ length: records }, (_, i) => data.ids[2 * i]);
  const report = sb.evaluate({
    policy,
    log: { arms, rewards: new Float64Array(records).fill(1), propensities: new Float64Array(records).fill(0.5), filters: Array.from(arms, () => filter) },
    estimators: ['ips'],
  });
  expect(report.ips.n).toBe(records);
  expectBanditError(sb, () => sb.evaluate({
    policy,
    log: { arms, rewards: new Float64Array(records), propensities: new Float64Array(records).fill(0.5), filters: Array.from(arms, () => ({ where: { price: [NaN, 1] } })) },
    estimators: ['ips'],
  }), 'INVALID_ARGUMENT');
  policy.dispose();
});

test('decision logs write and read the new filter keys (an open side of a range as null)', () => {
  const line = sb.formatDecision({ arm: 4, reward: 1, propensity: 0.25, labels: [1], allLabels: [2], noLabels: new Uint32Array([3]), where: { price: [0, Infinity] } });
  expect(JSON.parse(line)).toEqual({ arm: 4, reward: 1, propensity: 0.25, labels: [1], allLabels: [2], noLabels: [3], where: { price: [0, null] } });
  const log = sb.parseDecisionLog(`${line}\n${sb.formatDecision({ arm: 5, reward: 0, propensity: 0.5 })}\n`);
  expect(Array.from(log.filters[0].allLabels)).toEqual([2]);
  expect(Array.from(log.filters[0].noLabels)).toEqual([3]);
  expect(log.filters[0].where).toEqual({ price: [0, Infinity] });
  expect(log.filters[1]).toBe(null);
  expectBanditError(sb, () => sb.parseDecisionLog('arm,reward,propensity,where\n1,1,0.5,x\n'), 'INVALID_ARGUMENT');
});

test('evaluation tells records apart by every filter key (a where range is part of a record\'s context)', () => {
  const data = shop(6);
  const policy = new sb.LinUCB({ dim, seed: 1 });
  policy.addArms(data.ids, data.vectors, { labels: data.labels, values: data.values });
  // Records alternate between two disjoint price ranges; each logs the arm the policy picks under
  // its own filter, with reward 1 and propensity 1: IPS is exactly 1 only when every record's choice
  // is computed under its own range.
  const ranges = [{ where: { price: [0, 499] } }, { where: { price: [500, 999] } }, { where: { price: [500, 999] }, noLabels: [7] }];
  const filters = Array.from({ length: 12 }, (_, i) => ranges[i % ranges.length]);
  const arms = Uint32Array.from(filters, (filter) => policy.select(filter));
  expect(new Set(arms).size).toBeGreaterThan(1);
  const report = sb.evaluate({
    policy,
    log: { arms, rewards: new Float64Array(arms.length).fill(1), propensities: new Float64Array(arms.length).fill(1), filters },
    estimators: ['ips'],
  });
  expect(report.ips.value).toBe(1);
  policy.dispose();
});
