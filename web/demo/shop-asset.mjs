// The shop's catalogue asset (Node only: the demo's Vite plugin serves it in development and writes
// it into the static build). Read from Debian's dataset-fashion-mnist (MIT licence): the first
// ITEMS_PER_CLASS images of each of the 10 classes of the test set, and two bases of BASIS = 9 rows:
//   - the features' (a regularised linear discriminant, Fisher 1936): an item's features are the
//     dot products of its centred unit-norm pixels with these rows (shop-catalogue.js adds a
//     constant). They tell the kinds apart where the images' main directions and their mean images
//     mix them (bench/results/shop.md: after a change of taste a Sub-TS visitor's last slates held the
//     new kind 0.90 of the time, against 0.69 with the kinds' mean images as the basis);
//   - the picture's: each feature row projected on the span of the kinds' mean images, so that a model
//     theta drawn as sum_b theta_b picture_b is its preference seen through the kinds' mean images (a
//     discriminant direction itself looks like noise: it weighs most the pixels that vary least).
// The page draws the thumbnails and the model's estimate from this one file, so the pixels are sent once.
//
// Layout (little-endian): 'FMS2', u32 count, u32 basis size B, u32 side (28); count labels (u8),
// zero padding to a multiple of 4; the mean image (side^2 f32); the features' basis (B x side^2
// f32); the picture's basis (B x side^2 f32); the thumbnails (count x side^2 u8, the dataset's grey
// levels).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const DATASET = '/usr/share/datasets/fashion-mnist';
const ITEMS_PER_CLASS = 200;
const BASIS = 9;
// The within-kind scatter's shrinkage towards its mean variance (the discriminant's regularisation):
// 0.1 held a turned taste's new kind slightly more than 0.3 and 1 did (bench/results/shop.md).
const SHRINKAGE = 0.1;
const SIDE = 28;
const PIXELS = SIDE * SIDE;
const CACHE = fileURLToPath(new URL(`../../build/shop/fashion-shop-${ITEMS_PER_CLASS}-discriminant.bin`, import.meta.url));

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

export function buildShopAsset() {
  if (existsSync(CACHE)) return new Uint8Array(readFileSync(CACHE));
  const images = gunzipSync(readFileSync(`${DATASET}/t10k-images-idx3-ubyte.gz`));
  const labels = gunzipSync(readFileSync(`${DATASET}/t10k-labels-idx1-ubyte.gz`));
  // The first ITEMS_PER_CLASS of each class, in the test set's order.
  const chosen = [];
  const taken = new Array(10).fill(0);
  for (let i = 0; i < labels.length - 8 && chosen.length < 10 * ITEMS_PER_CLASS; i++) {
    const label = labels[8 + i];
    if (taken[label] < ITEMS_PER_CLASS) {
      taken[label] += 1;
      chosen.push(i);
    }
  }
  const count = chosen.length;
  // Unit-norm pixel vectors, centred.
  const unit = new Float64Array(count * PIXELS);
  chosen.forEach((image, n) => {
    let norm = 0;
    for (let p = 0; p < PIXELS; p++) norm += images[16 + image * PIXELS + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < PIXELS; p++) unit[n * PIXELS + p] = images[16 + image * PIXELS + p] / norm;
  });
  const mean = new Float64Array(PIXELS);
  for (let n = 0; n < count; n++) for (let p = 0; p < PIXELS; p++) mean[p] += unit[n * PIXELS + p] / count;
  for (let n = 0; n < count; n++) for (let p = 0; p < PIXELS; p++) unit[n * PIXELS + p] -= mean[p];
  // The kinds' means (the ten centred means sum to zero: nine span them).
  const kindOf = chosen.map((image) => labels[8 + image]);
  const kindMeans = new Float64Array(10 * PIXELS);
  kindOf.forEach((kind, n) => {
    for (let p = 0; p < PIXELS; p++) kindMeans[kind * PIXELS + p] += unit[n * PIXELS + p] / ITEMS_PER_CLASS;
  });
  const basis = discriminant(whitening(unit, kindOf, kindMeans), kindMeans);
  const meansSpan = kindMeans.slice(0, BASIS * PIXELS);
  orthonormalise(meansSpan, BASIS);
  const picture = projected(basis, meansSpan);
  const labelBytes = Math.ceil(count / 4) * 4;
  const bytes = new Uint8Array(16 + labelBytes + 4 * PIXELS + 8 * BASIS * PIXELS + count * PIXELS);
  const view = new DataView(bytes.buffer);
  bytes.set([0x46, 0x4d, 0x53, 0x32]);
  view.setUint32(4, count, true);
  view.setUint32(8, BASIS, true);
  view.setUint32(12, SIDE, true);
  chosen.forEach((image, n) => { bytes[16 + n] = labels[8 + image]; });
  let at = 16 + labelBytes;
  for (const value of [...mean, ...basis, ...picture]) {
    view.setFloat32(at, value, true);
    at += 4;
  }
  chosen.forEach((image, n) => bytes.set(images.subarray(16 + image * PIXELS, 16 + (image + 1) * PIXELS), at + n * PIXELS));
  mkdirSync(fileURLToPath(new URL('../../build/shop/', import.meta.url)), { recursive: true });
  // Written aside and renamed: test files running at once may build it together, and none may read
  // a half-written file.
  const partial = `${CACHE}.${process.pid}`;
  writeFileSync(partial, bytes);
  renameSync(partial, CACHE);
  return bytes;
}
