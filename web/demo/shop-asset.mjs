// The shop's catalogue assets (Node only: the demo's Vite plugin serves them in development and writes
// them into the static build), made from Debian's dataset-fashion-mnist (MIT licence): the 60,000
// images of the training set, and two bases of BASIS = 9 rows fitted to a sample of them:
//   - the features' (a regularised linear discriminant, Fisher 1936): an item's features are the
//     dot products of its centred unit-norm pixels with these rows (and a constant). They tell the
//     kinds apart where the images' main directions and their mean images mix them
//     (bench/results/shop.md);
//   - the picture's: each feature row projected on the span of the kinds' mean images, so that a model
//     theta drawn as sum_b theta_b picture_b is its preference seen through the kinds' mean images (a
//     discriminant direction itself looks like noise: it weighs most the pixels that vary least).
// Three kinds of file, so that the page fetches what it needs when it needs it:
//   - the main asset, fetched when the shop opens. Layout (little-endian): 'FMS3', u32 count, u32 basis
//     size B, u32 side (28), u32 chunk size; count labels (u8), zero padding to a multiple of 4; the
//     mean image (side^2 f32); the features' basis (B x side^2 f32); the picture's basis (B x side^2
//     f32); the kinds' mean grey levels (10 x side^2 f32); the features' scales (B f32); the features
//     (count x B i16 codes: feature = code x scale);
//   - the catalogue's snapshot with its HNSW graph built (buildShopSnapshot), fetched with it;
//   - the thumbnails, CHUNK items a file (CHUNK x side^2 u8, the dataset's grey levels): 47 MB in all,
//     so the page fetches a chunk only when it draws one of its items.
// Items are numbered in the shop's order (by kind, then by the norm of their features, largest first),
// not the dataset's.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const DATASET = '/usr/share/datasets/fashion-mnist';
// The images of each kind the bases are fitted to.
const FIT_PER_CLASS = 500;
const BASIS = 9;
// The within-kind scatter's shrinkage towards its mean variance (the discriminant's regularisation):
// 0.1 held a turned taste's new kind slightly more than 0.3 and 1 did (bench/results/shop.md).
const SHRINKAGE = 0.1;
const FEATURE_NORM = 2;
const SIDE = 28;
const PIXELS = SIDE * SIDE;
// Thumbnails a chunk file: 78 KB raw. The items a visitor is shown are spread over the catalogue (a
// first slate shows ten kinds, later slates explore), so small chunks waste fewer bytes: three
// simulated visitors of 30 slates were shown 477 items, which lay in 106 chunks of 100 (8.1 MB),
// 69 of 250 (13.2 MB), 147 of 50 (5.6 MB, in twice as many requests).
export const CHUNK = 100;
// The catalogue's index, for d = 10 (measured with a kind's queries, top 10 from a shortlist of 30):
// M 8, whose recall@10 was 0.86 against 0.84, 0.82 and 0.80 at M 6, 5 and 4 (a smaller M did not make
// the snapshot smaller: 8.45 MB at M 4 against 8.31 at M 8); efConstruction 64 (32 lost recall); the
// inner-product space (the 'auto' trial chose the Euclidean reduction, which recalled less here); int8
// rows, whose recall is the float rows' (tests/js/shop-snapshot.test.js; the ten found score 0.995 of
// the best ten, either storage). The snapshot is 8.1 MB, 3.8 MB gzipped.
export const SHOP_INDEX = { type: 'hnsw', M: 8, efConstruction: 64, storage: 'int8', space: 'inner-product' };
const FOLDER = fileURLToPath(new URL('../../build/shop/', import.meta.url));
const VERSION = `fms3-${FIT_PER_CLASS}-norm-${CHUNK}`;
const MAIN = `${FOLDER}${VERSION}/fashion-shop.bin`;
// The snapshot is the package's state format: one made by another version of the package is made again.
const PACKAGE_VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const SNAPSHOT = `${FOLDER}${VERSION}/fashion-shop-${Object.values(SHOP_INDEX).join('-')}-shuffled-${PACKAGE_VERSION}.sbst`;
const chunkPath = (chunk) => `${FOLDER}${VERSION}/thumbnails-${String(chunk).padStart(3, '0')}.bin`;

// Modified Gram-Schmidt on the rows of `rows` (count x PIXELS), in place.
function orthonormalise(rows, count) {
  for (let i = 0; i < count; i++) {
    const row = rows.subarray(i * PIXELS, (i + 1) * PIXELS);
    for (let j = 0; j < i; j++) {
      const other = rows.subarray(j * PIXELS, (j + 1) * PIXELS);
      let dot = 0;
      for (let p = 0; p < PIXELS; p++) dot += row[p] * other[p];
      for (let p = 0; p < PIXELS; p++) row[p] -= dot * other[p];
    }
    let norm = 0;
    for (let p = 0; p < PIXELS; p++) norm += row[p] * row[p];
    norm = Math.sqrt(norm);
    for (let p = 0; p < PIXELS; p++) row[p] /= norm;
  }
}

// The within-kind scatter of the centred rows (count x PIXELS) about their kinds' means, shrunk
// towards its mean variance, as its Cholesky factor L (the lower triangle of a PIXELS^2 array).
function whitening(unit, kindOf, kindMeans) {
  const scatter = new Float64Array(PIXELS * PIXELS);
  const residual = new Float64Array(PIXELS);
  kindOf.forEach((kind, n) => {
    for (let p = 0; p < PIXELS; p++) residual[p] = unit[n * PIXELS + p] - kindMeans[kind * PIXELS + p];
    for (let i = 0; i < PIXELS; i++) {
      if (residual[i] === 0) continue;
      for (let j = 0; j <= i; j++) scatter[i * PIXELS + j] += residual[i] * residual[j];
    }
  });
  let trace = 0;
  for (let i = 0; i < PIXELS; i++) trace += scatter[i * PIXELS + i];
  // The corners' pixels never vary: without the shrinkage the scatter is singular.
  for (let i = 0; i < PIXELS; i++) scatter[i * PIXELS + i] += (SHRINKAGE * trace) / PIXELS;
  for (let j = 0; j < PIXELS; j++) {
    let diagonal = scatter[j * PIXELS + j];
    for (let k = 0; k < j; k++) diagonal -= scatter[j * PIXELS + k] ** 2;
    diagonal = Math.sqrt(diagonal);
    scatter[j * PIXELS + j] = diagonal;
    for (let i = j + 1; i < PIXELS; i++) {
      let value = scatter[i * PIXELS + j];
      for (let k = 0; k < j; k++) value -= scatter[i * PIXELS + k] * scatter[j * PIXELS + k];
      scatter[i * PIXELS + j] = value / diagonal;
    }
  }
  return scatter;
}

// The discriminant's rows: the kinds' means whitened (L^-1 m), orthonormalised, and taken back to
// pixels (L^-T q), so that a row's dot product with an image is one of its whitened coordinates.
function discriminant(lower, kindMeans) {
  const whitened = new Float64Array(BASIS * PIXELS);
  for (let c = 0; c < BASIS; c++) {
    for (let i = 0; i < PIXELS; i++) {
      let value = kindMeans[c * PIXELS + i];
      for (let k = 0; k < i; k++) value -= lower[i * PIXELS + k] * whitened[c * PIXELS + k];
      whitened[c * PIXELS + i] = value / lower[i * PIXELS + i];
    }
  }
  orthonormalise(whitened, BASIS);
  const rows = new Float64Array(BASIS * PIXELS);
  for (let c = 0; c < BASIS; c++) {
    for (let i = PIXELS - 1; i >= 0; i--) {
      let value = whitened[c * PIXELS + i];
      for (let k = i + 1; k < PIXELS; k++) value -= lower[k * PIXELS + i] * rows[c * PIXELS + k];
      rows[c * PIXELS + i] = value / lower[i * PIXELS + i];
    }
  }
  return rows;
}

// Each row of `rows` projected on the span of the orthonormal rows of `span`.
function projected(rows, span) {
  const out = new Float64Array(rows.length);
  for (let r = 0; r < BASIS; r++) {
    for (let c = 0; c < BASIS; c++) {
      let dot = 0;
      for (let p = 0; p < PIXELS; p++) dot += rows[r * PIXELS + p] * span[c * PIXELS + p];
      for (let p = 0; p < PIXELS; p++) out[r * PIXELS + p] += dot * span[c * PIXELS + p];
    }
  }
  return out;
}

// The items' features: the centred unit-norm image's coordinates in the features' basis, scaled so
// that their root-mean-square norm over the items is FEATURE_NORM (few coordinates that tell the kinds
// apart are learned from a few clicks; raw pixels far more slowly: bench/results/shop.md). The page
// and the catalogue add a constant 1.
function featuresOf(images, count, mean, basis) {
  const features = new Float64Array(count * BASIS);
  const unit = new Float64Array(PIXELS);
  for (let n = 0; n < count; n++) {
    let norm = 0;
    for (let p = 0; p < PIXELS; p++) norm += images[n * PIXELS + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < PIXELS; p++) unit[p] = images[n * PIXELS + p] / norm - mean[p];
    for (let b = 0; b < BASIS; b++) {
      let dot = 0;
      for (let p = 0; p < PIXELS; p++) dot += basis[b * PIXELS + p] * unit[p];
      features[n * BASIS + b] = dot;
    }
  }
  let squares = 0;
  for (const value of features) squares += value * value;
  const scale = FEATURE_NORM / Math.sqrt(squares / count);
  for (let i = 0; i < features.length; i++) features[i] *= scale;
  return features;
}

// Written aside and renamed: test files running at once may build it together, and none may read a
// half-written file.
function writeAtomically(path, bytes) {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
}

// The training set in the shop's order: by kind, and within a kind by the norm of the features, largest
// first. A linear model's best items are the extreme ones, so the items a visitor is shown gather in
// the first chunks of each kind (in a simulation, half of them among the 60 largest of their kind; in
// the order of the first feature they were spread over three times as many chunks). Returns the main
// asset's bytes and writes the chunks beside it.
function buildMainAsset() {
  const images = gunzipSync(readFileSync(`${DATASET}/train-images-idx3-ubyte.gz`)).subarray(16);
  const labels = gunzipSync(readFileSync(`${DATASET}/train-labels-idx1-ubyte.gz`)).subarray(8);
  const count = labels.length;
  // The bases are fitted to the first FIT_PER_CLASS images of each kind: the within-kind scatter of
  // all 60,000 would cost 30 times as long for the same nine directions.
  const fitted = [];
  const taken = new Array(10).fill(0);
  for (let i = 0; i < count && fitted.length < 10 * FIT_PER_CLASS; i++) {
    if (taken[labels[i]] < FIT_PER_CLASS) {
      taken[labels[i]] += 1;
      fitted.push(i);
    }
  }
  const unit = new Float64Array(fitted.length * PIXELS);
  fitted.forEach((image, n) => {
    let norm = 0;
    for (let p = 0; p < PIXELS; p++) norm += images[image * PIXELS + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < PIXELS; p++) unit[n * PIXELS + p] = images[image * PIXELS + p] / norm;
  });
  const mean = new Float64Array(PIXELS);
  for (let n = 0; n < fitted.length; n++) for (let p = 0; p < PIXELS; p++) mean[p] += unit[n * PIXELS + p] / fitted.length;
  for (let n = 0; n < fitted.length; n++) for (let p = 0; p < PIXELS; p++) unit[n * PIXELS + p] -= mean[p];
  const kindOf = fitted.map((image) => labels[image]);
  const kindMeans = new Float64Array(10 * PIXELS);
  kindOf.forEach((kind, n) => {
    for (let p = 0; p < PIXELS; p++) kindMeans[kind * PIXELS + p] += unit[n * PIXELS + p] / FIT_PER_CLASS;
  });
  const basis = discriminant(whitening(unit, kindOf, kindMeans), kindMeans);
  const meansSpan = kindMeans.slice(0, BASIS * PIXELS);
  orthonormalise(meansSpan, BASIS);
  const picture = projected(basis, meansSpan);

  const features = featuresOf(images, count, mean, basis);
  const norms = new Float64Array(count);
  for (let i = 0; i < count; i++) for (let b = 0; b < BASIS; b++) norms[i] += features[i * BASIS + b] ** 2;
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => labels[a] - labels[b] || norms[b] - norms[a] || a - b);
  // The kinds' mean grey levels over every image (what a test compares the estimate with).
  const kindImages = new Float64Array(10 * PIXELS);
  const perKind = new Array(10).fill(0);
  for (let i = 0; i < count; i++) {
    perKind[labels[i]] += 1;
    for (let p = 0; p < PIXELS; p++) kindImages[labels[i] * PIXELS + p] += images[i * PIXELS + p];
  }
  for (let k = 0; k < 10; k++) for (let p = 0; p < PIXELS; p++) kindImages[k * PIXELS + p] /= perKind[k];
  // Features as 16-bit codes, a scale per coordinate: half the bytes of floats, and 1/32767 of a
  // coordinate's largest value is far below any difference a slate or a shelf can show.
  const scales = new Float32Array(BASIS);
  for (let b = 0; b < BASIS; b++) {
    let largest = 0;
    for (let i = 0; i < count; i++) largest = Math.max(largest, Math.abs(features[i * BASIS + b]));
    scales[b] = largest / 32767;
  }
  const labelBytes = Math.ceil(count / 4) * 4;
  const floats = PIXELS + 2 * BASIS * PIXELS + 10 * PIXELS + BASIS;
  const bytes = new Uint8Array(20 + labelBytes + 4 * floats + 2 * count * BASIS);
  const view = new DataView(bytes.buffer);
  bytes.set([0x46, 0x4d, 0x53, 0x33]);
  [count, BASIS, SIDE, CHUNK].forEach((value, i) => view.setUint32(4 + 4 * i, value, true));
  order.forEach((image, n) => { bytes[20 + n] = labels[image]; });
  let at = 20 + labelBytes;
  for (const value of [...mean, ...basis, ...picture, ...kindImages, ...scales]) {
    view.setFloat32(at, value, true);
    at += 4;
  }
  order.forEach((image) => {
    for (let b = 0; b < BASIS; b++) {
      view.setInt16(at, Math.round(features[image * BASIS + b] / scales[b]), true);
      at += 2;
    }
  });
  for (let chunk = 0; chunk * CHUNK < count; chunk++) {
    const items = order.slice(chunk * CHUNK, (chunk + 1) * CHUNK);
    const pixels = new Uint8Array(items.length * PIXELS);
    items.forEach((image, n) => pixels.set(images.subarray(image * PIXELS, (image + 1) * PIXELS), n * PIXELS));
    writeAtomically(chunkPath(chunk), pixels);
  }
  writeAtomically(MAIN, bytes);
  return bytes;
}

// The main asset: the items' labels and features, and the bases that draw a model as an image.
export function buildShopAsset() {
  if (existsSync(MAIN) && existsSync(chunkPath(0))) return new Uint8Array(readFileSync(MAIN));
  return buildMainAsset();
}

// The thumbnails' chunk files, by number: chunk c holds items c * CHUNK onwards (CHUNK x 784 grey levels).
export function shopChunkCount() {
  const bytes = buildShopAsset();
  return Math.ceil(new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true) / CHUNK);
}
export function shopChunk(chunk) {
  buildShopAsset();
  return new Uint8Array(readFileSync(chunkPath(chunk)));
}

// Every thumbnail in the shop's order (Node's tests and benchmark).
export function shopThumbnails() {
  const chunks = Array.from({ length: shopChunkCount() }, (_, c) => shopChunk(c));
  const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

// The order the items enter the graph: shuffled (a fixed seed). In the shop's order (kind after kind)
// the graph's links between kinds were few, and a model whose taste turned to another kind often
// found no item of it (tests/js/shop-visitor.test.js: 17 of 180 turned visitors not followed within
// 40 slates).
export function insertionOrder(count) {
  const order = Uint32Array.from({ length: count }, (_, i) => i);
  let state = 56;
  for (let i = count - 1; i > 0; i--) {
    // A 32-bit linear congruential step: enough to mix an order, and the same everywhere.
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

// The catalogue's snapshot (Catalogue.toBytes()) with its graph built, made with the package itself
// (dist/, which must be built): the page loads it instead of adding 60,000 rows and building the
// graph, which takes about 12 s in Node. `parse` is shop-catalogue.js's parseShopAsset (passed in: this file is
// the asset's writer, that one its reader).
export async function buildShopSnapshot(parse) {
  if (existsSync(SNAPSHOT)) return new Uint8Array(readFileSync(SNAPSHOT));
  const { default: init } = await import('../../dist/index.js');
  const sb = await init({ threads: 1 });
  const bytes = buildShopAsset();
  const shop = parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const catalogue = new sb.Catalogue({ dim: shop.dim, index: SHOP_INDEX, seed: 1 });
  try {
    const order = insertionOrder(shop.count);
    const features = new Float32Array(shop.features.length);
    order.forEach((item, n) => features.set(shop.features.subarray(item * shop.dim, (item + 1) * shop.dim), n * shop.dim));
    catalogue.add(order, features, { labels: Array.from(order, (item) => shop.labels[item]) });
    catalogue.build();
    const snapshot = catalogue.toBytes();
    writeAtomically(SNAPSHOT, snapshot);
    return snapshot;
  } finally {
    catalogue.dispose();
  }
}
