// Deterministic data for benchmarks and tests, independent of the library's own generator
// (mulberry32: a 32-bit state, uniform numbers in [0, 1)).
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One N(0, 1) draw by Box-Muller from a uniform source in [0, 1) (1 - u keeps log's argument in (0, 1]).
export function standardNormal(random) {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

// `count` unit rows x = B z / |B z| of a low-rank embedding, B the given d x rank matrix (row-major)
// and z ~ N(0, I) drawn from `random`, one row after another.
export function lowRankRows(basis, dim, rank, count, random) {
  const rows = new Float64Array(count * dim);
  const z = new Float64Array(rank);
  for (let i = 0; i < count; i++) {
    for (let r = 0; r < rank; r++) z[r] = standardNormal(random);
    let squared = 0;
    for (let j = 0; j < dim; j++) {
      let v = 0;
      for (let r = 0; r < rank; r++) v += basis[j * rank + r] * z[r];
      rows[i * dim + j] = v;
      squared += v * v;
    }
    const norm = Math.sqrt(squared);
    for (let j = 0; j < dim; j++) rows[i * dim + j] /= norm;
  }
  return rows;
}
