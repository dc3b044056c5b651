// The demo shop's representation (issue 38): how fast a Sub-TS visitor over the Fashion-MNIST
// catalogue (web/demo/shop-asset.mjs: 2,000 test images, 200 of each kind) learns a hidden taste,
// for the features the page uses (10 basis coordinates scaled to RMS norm 2, and 1) against fewer
// coordinates, unscaled ones, and the raw unit-norm pixels (784, and 1). Each taste (one kind, or
// two) clicks 60 slates of 8 as the page's simulated visitor does (a liked item with probability
// 0.8, another 0.05, the first click counts; the last two slates excluded): the share of liked
// items in the last 10 slates, and ms a slate (selectSlate + 8 updates).
//   npm run bench -- shop [--slates=S]
import init from '../dist/index.js';
import { buildShopAsset } from '../web/demo/shop-asset.mjs';
import { parseShopAsset } from '../web/demo/shop-catalogue.js';
import { seededRandom } from './lib/seeded-random.mjs';

const TASTES = [[7], [1], [8], [3], [5, 9], [0], [2]];

export default async function shop(args, report) {
  const found = args.find((a) => a.startsWith('--slates='));
  const slates = found ? Number(found.slice(9)) : 60;
  const sb = await init();
  const bytes = buildShopAsset();
  const asset = parseShopAsset(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const basis = asset.dim - 1;
  const pixels = asset.side * asset.side;
  // Features of each variant: [name, dim, Float64Array].
  const coordinates = (k, scale) => {
    const out = new Float64Array(asset.count * (k + 1));
    for (let n = 0; n < asset.count; n++) {
      for (let j = 0; j < k; j++) out[n * (k + 1) + j] = scale * asset.features[n * asset.dim + j];
      out[n * (k + 1) + k] = 1;
    }
    return [k + 1, out];
  };
  const rawPixels = () => {
    const out = new Float64Array(asset.count * (pixels + 1));
    for (let n = 0; n < asset.count; n++) {
      let norm = 0;
      for (let p = 0; p < pixels; p++) norm += asset.thumbnails[n * pixels + p] ** 2;
      norm = Math.sqrt(norm) || 1;
      // Unit-norm pixels scaled to norm 2 as the page's coordinates are.
      for (let p = 0; p < pixels; p++) out[n * (pixels + 1) + p] = (2 * asset.thumbnails[n * pixels + p]) / norm;
      out[n * (pixels + 1) + pixels] = 1;
    }
    return [pixels + 1, out];
  };
  const variants = [
    [`${basis} coordinates, RMS norm 2 (the page)`, () => coordinates(basis, 1)],
    [`${basis} coordinates, unscaled (RMS norm 0.5)`, () => coordinates(basis, 0.25)],
    ['4 coordinates, RMS norm 2', () => coordinates(4, 1)],
    ['raw pixels (784), norm 2', rawPixels],
  ];
  const rows = [];
  for (const [name, make] of variants) {
    const [dim, features] = make();
    const shares = [];
    const times = [];
    for (const liked of TASTES) {
      const catalogue = new sb.Catalogue({ dim, index: { type: 'hnsw' }, seed: 1 });
      catalogue.add(asset.ids, features, { labels: asset.labels });
      const user = new sb.SubTS({ catalogue, seed: 1 });
      const random = seededRandom(11);
      const likes = (arm) => (liked.includes(asset.labels[arm]) ? 0.8 : 0.05);
      let recent = [];
      let shown = 0;
      let hits = 0;
      const started = performance.now();
      for (let s = 0; s < slates; s++) {
        const arms = user.selectSlate(8, { exclude: recent.flat() });
        recent = [...recent.slice(-1), Array.from(arms)];
        const click = Array.from(arms).find((arm) => random() < likes(arm)) ?? -1;
        for (const arm of arms) user.update(arm, arm === click ? 1 : 0);
        if (s >= slates - 10) {
          shown += arms.length;
          hits += Array.from(arms).filter((arm) => liked.includes(asset.labels[arm])).length;
        }
      }
      times.push((performance.now() - started) / slates);
      shares.push(hits / shown);
      user.dispose();
      catalogue.dispose();
    }
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    rows.push([name, dim, ...shares.map((x) => x.toFixed(2)), mean(shares).toFixed(2), mean(times)]);
    report.progress(rows.length / variants.length, name);
  }
  report.table(`Liked share of the last 10 of ${slates} slates of 8, per hidden taste, Sub-TS over 2,000 Fashion-MNIST items (wasm in Node)`,
    ['features', 'd', 'sneaker', 'trouser', 'bag', 'dress', 'sandal or boot', 'T-shirt', 'pullover', 'mean', 'ms a slate'], rows);
  report.note(`Asset: ${bytes.length} bytes (${asset.count} items, ${basis} basis images, the grey levels).`);
}
