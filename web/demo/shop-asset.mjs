// The shop's catalogue asset (Node only: the demo's Vite plugin serves it in development and writes
// it into the static build). Read from Debian's dataset-fashion-mnist (MIT licence): the first
// ITEMS_PER_CLASS images of each of the 10 classes of the test set, and a basis of the BASIS main
// directions of their unit-norm pixel vectors (subspace iteration on the pixel covariance), from
// which the page computes each item's features (its coordinates and a constant, shop-catalogue.js). The page draws
// the thumbnails and the model's estimate through the same basis, so the pixels are sent once.
//
// Layout (little-endian): 'FMS1', u32 count, u32 basis size B, u32 side (28); count labels (u8),
// zero padding to a multiple of 4; the mean image (side^2 f32); the basis (B x side^2 f32, rows
// orthonormal); the thumbnails (count x side^2 u8, the dataset's grey levels).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { seededRandom } from '../../bench/lib/seeded-random.mjs';

export const DATASET = '/usr/share/datasets/fashion-mnist';
const ITEMS_PER_CLASS = 200;
const BASIS = 10;
const SIDE = 28;
const PIXELS = SIDE * SIDE;
const CACHE = fileURLToPath(new URL(`../../build/shop/fashion-shop-${ITEMS_PER_CLASS}x${BASIS}.bin`, import.meta.url));

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
  // Subspace iteration: Q <- orth(X^T X Q), 12 rounds from a random start.
  // The subspace iteration's start: a deterministic stream, centred.
  const next = seededRandom(7);
  let basis = Float64Array.from({ length: BASIS * PIXELS }, () => next() - 0.5);
  orthonormalise(basis, BASIS);
  const projected = new Float64Array(count * BASIS);
  for (let round = 0; round < 12; round++) {
    for (let n = 0; n < count; n++) {
      for (let b = 0; b < BASIS; b++) {
        let dot = 0;
        for (let p = 0; p < PIXELS; p++) dot += unit[n * PIXELS + p] * basis[b * PIXELS + p];
        projected[n * BASIS + b] = dot;
      }
    }
    const grown = new Float64Array(BASIS * PIXELS);
    for (let n = 0; n < count; n++) {
      for (let b = 0; b < BASIS; b++) {
        const weight = projected[n * BASIS + b];
        for (let p = 0; p < PIXELS; p++) grown[b * PIXELS + p] += weight * unit[n * PIXELS + p];
      }
    }
    orthonormalise(grown, BASIS);
    basis = grown;
  }
  const labelBytes = Math.ceil(count / 4) * 4;
  const bytes = new Uint8Array(16 + labelBytes + 4 * PIXELS + 4 * BASIS * PIXELS + count * PIXELS);
  const view = new DataView(bytes.buffer);
  bytes.set([0x46, 0x4d, 0x53, 0x31]);
  view.setUint32(4, count, true);
  view.setUint32(8, BASIS, true);
  view.setUint32(12, SIDE, true);
  chosen.forEach((image, n) => { bytes[16 + n] = labels[8 + image]; });
  let at = 16 + labelBytes;
  for (const value of [...mean, ...basis]) {
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
