// The demo shop's visitor (issues 38 and 51): how fast a Sub-TS visitor over the Fashion-MNIST
// catalogue (web/demo/shop-asset.mjs: Fashion-MNIST's 60,000 training images) learns a hidden taste and
// follows it when it turns, for the page's features (a regularised linear discriminant of the kinds,
// web/demo/shop-asset.mjs, and 1) against coordinates in the span of the kinds' mean images and the
// raw unit-norm pixels (784, and 1), for the page's feedback (the cascade: the items after a click
// teach nothing, shop-visitor.js slateFeedback) against a 0 for every item not clicked, and for the
// default forgetting against 'none'. The slates and the simulated visitor are the page's (shop-visitor.js): a
// liked item is clicked with probability 0.8, another 0.05, the first click counts; the first slate
// shows each kind; the last two slates' items are excluded.
//   - still: one taste for 60 slates of 10; the liked share of the last 10 slates;
//   - turned: a taste for 30 slates, then another (every kind to a kind 3 + seed further on) for 30:
//     the clicks after the turn until a slate held the new kind half, the share of the last 10 slates,
//     and the runs in which the model noticed the change (stats().forgetting.changes).
// Defaults everywhere but where a row says; seeds 1..S for the visitor's model and its clicks.
//   npm run bench -- shop [--seeds=S]
import init from '../dist/index.js';
import { buildShopAsset, shopThumbnails } from '../web/demo/shop-asset.mjs';
import { parseShopAsset } from '../web/demo/shop-catalogue.js';
import { clicksToHalf, simulateVisitor, SLATE, slateFeedback } from '../web/demo/shop-visitor.js';
import { seededRandom } from './lib/seeded-random.mjs';
import { numberArg } from './lib/args.mjs';

const SLATES = 60;
const TURN = 30;
// A visitor of a fresh Sub-TS user over the catalogue: its liked share per slate, clicks so far and
// the changes its model noticed.
function visit(sb, catalogue, labels, tastes, feedback, seed, options) {
  const user = new sb.SubTS({ catalogue, seed, ...options });
  try {
    const run = simulateVisitor(user, labels, tastes.map((kind) => [kind]), seededRandom(1000 + seed), { feedback });
    return { ...run, changes: user.stats().forgetting.changes };
  } finally {
    user.dispose();
  }
}
const everyItem = (arms, clicked) => Array.from(arms, (arm) => [arm, arm === clicked ? 1 : 0]);

// Features through other rows than the asset's discriminant: each item's centred unit-norm pixels'
// dot products with `rows` (B x side^2), scaled to the page's RMS norm of 2, and a constant.
function coordinates(asset, rows) {
  const pixels = asset.side * asset.side;
  const size = rows.length / pixels;
  const out = new Float64Array(asset.count * (size + 1));
  const unit = new Float64Array(pixels);
  let squares = 0;
  for (let n = 0; n < asset.count; n++) {
    let norm = 0;
    for (let p = 0; p < pixels; p++) norm += asset.thumbnails[n * pixels + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < pixels; p++) unit[p] = asset.thumbnails[n * pixels + p] / norm - asset.mean[p];
    for (let b = 0; b < size; b++) {
      let dot = 0;
      for (let p = 0; p < pixels; p++) dot += rows[b * pixels + p] * unit[p];
      out[n * (size + 1) + b] = dot;
      squares += dot * dot;
    }
    out[n * (size + 1) + size] = 1;
  }
  const scale = 2 / Math.sqrt(squares / asset.count);
  for (let n = 0; n < asset.count; n++) for (let b = 0; b < size; b++) out[n * (size + 1) + b] *= scale;
  return [size + 1, out];
}

function rawPixels(asset) {
  const pixels = asset.side * asset.side;
  const out = new Float64Array(asset.count * (pixels + 1));
  for (let n = 0; n < asset.count; n++) {
    let norm = 0;
    for (let p = 0; p < pixels; p++) norm += asset.thumbnails[n * pixels + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    // Unit-norm pixels scaled to norm 2, the RMS norm of the page's coordinates.
    for (let p = 0; p < pixels; p++) out[n * (pixels + 1) + p] = (2 * asset.thumbnails[n * pixels + p]) / norm;
    out[n * (pixels + 1) + pixels] = 1;
  }
  return [pixels + 1, out];
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function shop(args, report) {
  const seeds = numberArg(args, 'seeds', 6);
  const sb = await init();
  const bytes = buildShopAsset();
  // The other representations are made from the pixels, which the page's asset leaves to its chunks.
  const asset = { ...parseShopAsset(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), thumbnails: shopThumbnails() };
  const variants = [
    ["a discriminant of the kinds (the page), cascade feedback (the page)", () => [asset.dim, asset.features], slateFeedback],
    ["the page's, with forgetting: 'none'", () => [asset.dim, asset.features], slateFeedback, { forgetting: 'none' }],
    ['a discriminant of the kinds, 0 for every item not clicked', () => [asset.dim, asset.features], everyItem],
    ["the span of the kinds' mean images, cascade feedback", () => coordinates(asset, asset.picture), slateFeedback],
    ['raw pixels (784), cascade feedback', () => rawPixels(asset), slateFeedback],
  ];
  const rows = [];
  for (const [name, make, feedback, options = {}] of variants) {
    const [dim, features] = make();
    const catalogue = new sb.Catalogue({ dim, index: { type: 'hnsw' }, seed: 1 });
    catalogue.add(asset.ids, features, { labels: asset.labels });
    const still = [];
    const firstHalf = [];
    const afterTurn = [];
    const turnedShares = [];
    let noticed = 0;
    let runs = 0;
    const started = performance.now();
    for (let seed = 1; seed <= seeds; seed++) {
      for (let kind = 0; kind < 10; kind++) {
        const stay = visit(sb, catalogue, asset.labels, new Array(SLATES).fill(kind), feedback, seed, options);
        still.push(mean(stay.shares.slice(-10)));
        firstHalf.push(clicksToHalf(stay));
        const later = (kind + 3 + seed) % 10 === kind ? (kind + 1) % 10 : (kind + 3 + seed) % 10;
        const turned = visit(sb, catalogue, asset.labels, Array.from({ length: SLATES }, (_, s) => (s < TURN ? kind : later)), feedback, seed, options);
        afterTurn.push(clicksToHalf(turned, TURN));
        turnedShares.push(mean(turned.shares.slice(-10)));
        if (turned.changes > 0) noticed += 1;
        runs += 1;
      }
    }
    const within15 = (values) => `${(100 * values.filter((v) => v <= 15).length / values.length).toFixed(0)}%`;
    rows.push([name, dim, mean(still).toFixed(2), median(firstHalf), within15(firstHalf), median(afterTurn), within15(afterTurn),
      mean(turnedShares).toFixed(2), `${noticed} of ${runs}`, ((performance.now() - started) / (2 * runs * SLATES)).toFixed(3)]);
    catalogue.dispose();
    report.progress(rows.length / variants.length, name);
  }
  report.table(`A Sub-TS visitor over 60,000 Fashion-MNIST items, slates of ${SLATE}, defaults (wasm in Node): every kind as the taste, seeds 1-${seeds}`,
    ['features and feedback', 'd', 'still: liked share, last 10 of 60', 'clicks to a half-liked slate (median)', 'within 15 clicks',
      'turned at slate 30: clicks to a half-liked slate (median)', 'within 15 clicks', 'liked share, last 10', 'change noticed', 'ms a slate'], rows);
  report.note(`Asset: ${bytes.length} bytes (${asset.count} items, their labels and features, ${asset.dim - 1} basis images; the grey levels in chunk files).`);
}
