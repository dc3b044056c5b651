// Reproducible demo data from a seed (mulberry32 + Box-Muller): the browser test regenerates the
// same vectors in Node to check what the page shows against an exact scan of its own.
import { seededRandom, standardNormal } from '../../bench/lib/seeded-random.mjs';

export function gaussianVectors(count, dim, seed) {
  const random = seededRandom(seed);
  const values = new Float32Array(count * dim);
  for (let i = 0; i < values.length; i++) values[i] = standardNormal(random);
  return values;
}

// A MovieLens-format ratings file (user::movie::rating::time) from a planted low-rank model, for
// the movie experiment when no real file is chosen: each user rates a `density` share of the movies,
// rating = clamp(round(3 + <u, v> + noise), 1, 5), and movie m first appears around time 1000 m.
export function plantedRatingsText({ users = 200, movies = 300, rank = 4, density = 0.3, seed = 1 } = {}) {
  const random = seededRandom(seed);
  const normal = () => standardNormal(random);
  const userFactors = Array.from({ length: users }, () => Array.from({ length: rank }, () => 0.7 * normal()));
  const movieFactors = Array.from({ length: movies }, () => Array.from({ length: rank }, () => 0.7 * normal()));
  const lines = [];
  for (let i = 0; i < users; i++) {
    for (let m = 0; m < movies; m++) {
      if (random() >= density) continue;
      let score = 3 + 0.3 * normal();
      for (let r = 0; r < rank; r++) score += userFactors[i][r] * movieFactors[m][r];
      const rating = Math.min(5, Math.max(1, Math.round(score)));
      lines.push(`${i + 1}::${m + 1}::${rating}::${1000 * m + Math.floor(random() * 900)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// Plain JavaScript exact top-k, the oracle for the page's result.
export function bruteForceTopK(vectors, dim, query, k) {
  const count = vectors.length / dim;
  const scored = [];
  for (let row = 0; row < count; row++) {
    let score = 0;
    for (let j = 0; j < dim; j++) score += vectors[row * dim + j] * query[j];
    scored.push([score, row]);
  }
  scored.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return scored.slice(0, k).map(([, row]) => row);
}
