// The shop's main asset (shop-asset.mjs writes it) read in the page: the items' labels and features,
// the bases that turn a model back into an image, and the kinds' mean images. No DOM: Node reads it
// too. The thumbnails are in chunk files of `chunk` items, fetched when an item is drawn.
export function parseShopAsset(buffer) {
  const view = new DataView(buffer);
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
  if (magic !== 'FMS3') throw new Error('not the shop asset');
  const [count, basisSize, side, chunk] = [4, 8, 12, 16].map((at) => view.getUint32(at, true));
  const pixels = side * side;
  const labels = new Uint32Array(new Uint8Array(buffer, 20, count));
  let at = 20 + Math.ceil(count / 4) * 4;
  const floats = (length) => {
    const values = new Float32Array(buffer.slice(at, at + 4 * length));
    at += 4 * length;
    return values;
  };
  const mean = floats(pixels);
  const basis = floats(basisSize * pixels);
  const picture = floats(basisSize * pixels);
  const kindImages = floats(10 * pixels);
  const scales = floats(basisSize);
  const codes = new Int16Array(buffer.slice(at, at + 2 * count * basisSize));
  // An item's features: its basis coordinates and a constant 1 (the catalogue's rows, as the
  // snapshot was built from them).
  const dim = basisSize + 1;
  const features = new Float32Array(count * dim);
  for (let n = 0; n < count; n++) {
    for (let b = 0; b < basisSize; b++) features[n * dim + b] = codes[n * basisSize + b] * scales[b];
    features[n * dim + basisSize] = 1;
  }
  return { count, dim, side, chunk, labels, mean, basis, picture, kindImages, features, ids: Uint32Array.from({ length: count }, (_, i) => i) };
}
