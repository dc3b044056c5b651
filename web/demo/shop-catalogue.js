// The shop's catalogue asset (shop-asset.mjs writes it) read in the page: the items' labels, grey
// levels and features, and the picture basis that turns a model back into an image. No DOM: Node reads it too.
// The asset's catalogue and the items' features: the coordinates of the centred unit-norm image in
// the asset's basis, scaled so that their root-mean-square norm over the items is FEATURE_NORM, and
// a constant 1. Few coordinates that tell the kinds apart are learned from a few clicks; raw pixels
// are learned far more slowly (`npm run bench -- shop`, bench/results/shop.md).
const FEATURE_NORM = 2;
export function parseShopAsset(buffer) {
  const view = new DataView(buffer);
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
  if (magic !== 'FMS2') throw new Error('not the shop asset');
  const count = view.getUint32(4, true);
  const basisSize = view.getUint32(8, true);
  const side = view.getUint32(12, true);
  const pixels = side * side;
  const labels = new Uint32Array(new Uint8Array(buffer, 16, count));
  let at = 16 + Math.ceil(count / 4) * 4;
  const mean = new Float32Array(buffer.slice(at, at + 4 * pixels));
  at += 4 * pixels;
  const basis = new Float32Array(buffer.slice(at, at + 4 * basisSize * pixels));
  at += 4 * basisSize * pixels;
  const picture = new Float32Array(buffer.slice(at, at + 4 * basisSize * pixels));
  at += 4 * basisSize * pixels;
  const thumbnails = new Uint8Array(buffer, at, count * pixels);
  const dim = basisSize + 1;
  const features = new Float64Array(count * dim);
  const unit = new Float64Array(pixels);
  for (let n = 0; n < count; n++) {
    let norm = 0;
    for (let p = 0; p < pixels; p++) norm += thumbnails[n * pixels + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < pixels; p++) unit[p] = thumbnails[n * pixels + p] / norm - mean[p];
    for (let b = 0; b < basisSize; b++) {
      let dot = 0;
      for (let p = 0; p < pixels; p++) dot += basis[b * pixels + p] * unit[p];
      features[n * dim + b] = dot;
    }
    features[n * dim + basisSize] = 1;
  }
  let squares = 0;
  for (let n = 0; n < count; n++) for (let b = 0; b < basisSize; b++) squares += features[n * dim + b] ** 2;
  const scale = FEATURE_NORM / Math.sqrt(squares / count);
  for (let n = 0; n < count; n++) for (let b = 0; b < basisSize; b++) features[n * dim + b] *= scale;
  return { count, dim, side, labels, mean, basis, picture, thumbnails, features, ids: Uint32Array.from({ length: count }, (_, i) => i) };
}


