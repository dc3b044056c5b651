// Reproducible demo data from a seed (mulberry32 + Box-Muller): the browser test regenerates the
// same vectors in Node to check what the page shows against an exact scan of its own.
export function gaussianVectors(count, dim, seed) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const values = new Float32Array(count * dim);
  for (let i = 0; i < values.length; i++) {
    values[i] = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  }
  return values;
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
