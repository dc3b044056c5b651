// The demo shop's rules (web/demo/shop-visitor.js) over its real catalogue, with default options: the
// visitor the e2e test plays in Chromium (the first item of the liked kind on each slate, or "None of
// these") is followed within 15 clicks, from the first slate and again after the taste turns, for
// every pair of kinds and several seeds of the visitor's model; and the simulated visitor's turned
// runs are followed at least as often as bench/results/shop.md reports. Also what a click teaches.
import { describe, expect, test } from 'vitest';
import { loadModule } from './helpers.js';
import { buildShopAsset, buildShopSnapshot } from '../../web/demo/shop-asset.mjs';
import { parseShopAsset } from '../../web/demo/shop-catalogue.js';
import { chooseSlate, clicksToHalf, firstSlate, NOT_AGAIN, SLATE, simulateVisitor, slateFeedback } from '../../web/demo/shop-visitor.js';
import { seededRandom } from '../../bench/lib/seeded-random.mjs';

const sb = await loadModule();
const bytes = buildShopAsset();
const shop = parseShopAsset(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const snapshot = await buildShopSnapshot(parseShopAsset);

// The page's catalogue: the 60,000 items with their graph built, from the site's snapshot.
function withCatalogue(body) {
  const catalogue = sb.Catalogue.fromBytes(snapshot);
  try {
    return body(catalogue);
  } finally {
    catalogue.dispose();
  }
}

// The e2e test's visitor: clicks until a slate is half `kind`, from the model as it stands.
function clicksUntilHalf(user, kind, recent, limit = 40) {
  let clicks = 0;
  for (let slate = 0; slate < limit; slate++) {
    const arms = chooseSlate(user, { exclude: recent.flat(), fresh: user.stats().updates === 0 });
    recent.splice(0, recent.length, ...recent.slice(1 - NOT_AGAIN), arms);
    if (arms.filter((arm) => shop.labels[arm] === kind).length >= SLATE / 2) return clicks;
    const click = arms.find((arm) => shop.labels[arm] === kind) ?? -1;
    if (click >= 0) clicks += 1;
    for (const [arm, reward] of slateFeedback(arms, click)) user.update(arm, reward);
  }
  return Infinity;
}

describe('the demo shop', () => {
  test('what a click teaches: the items before it were passed over, the items after it nothing', () => {
    expect(slateFeedback([5, 6, 7, 8], 7)).toEqual([[5, 0], [6, 0], [7, 1]]);
    expect(slateFeedback(Uint32Array.of(5, 6, 7), 5)).toEqual([[5, 1]]);
    expect(slateFeedback([5, 6, 7], -1)).toEqual([[5, 0], [6, 0], [7, 0]]);
  });

  test('a fresh model\'s first slate shows every kind; later slates are the model\'s best, with the excluded items left out', () => withCatalogue((catalogue) => {
    const user = new sb.SubTS({ catalogue, seed: 3 });
    try {
      const first = chooseSlate(user, { fresh: true });
      expect(new Set(first.map((arm) => shop.labels[arm])).size).toBe(10);
      for (const arm of first) user.update(arm, shop.labels[arm] === 7 ? 1 : 0);
      const next = chooseSlate(user, { exclude: first });
      expect(next.length).toBe(SLATE);
      expect(next.some((arm) => first.includes(arm))).toBe(false);
      // Over the 2,000 items of the shop before issue 56, one sneaker liked and nine kinds passed over
      // made the next slate half sneakers; over 60,000 a draw of so young a model finds extreme items
      // of other kinds first (bags, with an exact scan as with the graph), and the slates follow the
      // liked kind a few clicks later (the next test).
    } finally {
      user.dispose();
    }
  }));

  // The page's first slate needs the main asset alone (it is shown before the snapshot arrives): one
  // item of each kind, in kind order, each from its kind's first thumbnail file (the items a linear
  // model's slates come back to), and the same at every visit.
  test('the page\'s first slate, from the main asset: one item of each kind, from each kind\'s first chunk', () => {
    const arms = firstSlate(shop);
    expect(arms.length).toBe(SLATE);
    expect(arms.map((arm) => shop.labels[arm])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const arm of arms) expect(arm - Array.from(shop.labels).indexOf(shop.labels[arm])).toBeLessThan(shop.chunk);
    expect(firstSlate(shop)).toEqual(arms);
  });

  test('the clicking visitor is followed within 15 clicks from the first slate and after its taste turns, for nearly every pair of kinds', () => withCatalogue((catalogue) => {
    const misses = [];
    let pairs = 0;
    for (const seed of [1, 2]) {
      for (let first = 0; first < 10; first++) {
        for (let later = 0; later < 10; later++) {
          if (later === first) continue;
          const user = new sb.SubTS({ catalogue, seed });
          try {
            const recent = [];
            const toFirst = clicksUntilHalf(user, first, recent);
            // Then 15 clicks of the first kind in all, and the turn.
            for (let made = toFirst; made < 15;) {
              const arms = chooseSlate(user, { exclude: recent.flat() });
              recent.splice(0, recent.length, ...recent.slice(1 - NOT_AGAIN), arms);
              const click = arms.find((arm) => shop.labels[arm] === first) ?? -1;
              if (click >= 0) made += 1;
              for (const [arm, reward] of slateFeedback(arms, click)) user.update(arm, reward);
            }
            const toLater = clicksUntilHalf(user, later, recent);
            pairs += 1;
            if (toFirst > 15 || toLater > 15) misses.push({ seed, first, later, toFirst, toLater });
          } finally {
            user.dispose();
          }
        }
      }
    }
    // The 'auto' forgetting is what makes the turn: see the next test.
    expect(misses.length, JSON.stringify(misses)).toBeLessThanOrEqual(0.05 * pairs);
  }), 120_000);

  test('the simulated visitor (random clicks) is followed after a turn within 15 clicks in most runs, and its new kind holds the last slates; without forgetting it does not', () => withCatalogue((catalogue) => {
    const within = { auto: 0, none: 0 };
    const lastShare = { auto: 0, none: 0 };
    let runs = 0;
    for (const seed of [1, 2, 3]) {
      for (let kind = 0; kind < 10; kind++) {
        const later = (kind + 3 + seed) % 10 === kind ? (kind + 1) % 10 : (kind + 3 + seed) % 10;
        const tastes = Array.from({ length: 60 }, (_, s) => [s < 30 ? kind : later]);
        for (const forgetting of ['auto', 'none']) {
          const user = new sb.SubTS({ catalogue, seed, forgetting });
          try {
            const run = simulateVisitor(user, shop.labels, tastes, seededRandom(1000 + seed));
            if (clicksToHalf(run, 30) <= 15) within[forgetting] += 1;
            lastShare[forgetting] += run.shares.slice(-10).reduce((a, b) => a + b, 0) / 10;
          } finally {
            user.dispose();
          }
        }
        runs += 1;
      }
    }
    // bench/results/shop.md, seeds 1-6, over the 2,000 items before issue 56: 98% within 15 clicks and
    // a share of 0.90 with 'auto'; 75% and 0.48 with 'none'. Over the 60,000 items: 25 of 30 and 0.66
    // ('none': 24 and 0.42); Linear TS's exact scan over the same catalogue, 28 of 30 and 0.69, so the
    // loss is mostly the larger catalogue's, not the graph's.
    const report = JSON.stringify({ within, lastShare, runs });
    expect(within.auto / runs, report).toBeGreaterThanOrEqual(0.8);
    expect(lastShare.auto / runs, report).toBeGreaterThanOrEqual(0.6);
    expect((lastShare.auto - lastShare.none) / runs, report).toBeGreaterThanOrEqual(0.2);
  }), 120_000);
});
