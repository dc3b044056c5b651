import { existsSync, readdirSync } from 'node:fs';
import { seededRandom, standardNormal } from '../../bench/lib/seeded-random.mjs';

// SB_TOYS=1: the generic suites run against the test build with the toys (tests/toys: the index type
// `toy-norm-bound` and the linear policy `toy-greedy`, registered at the module's start), written by
// `scripts/build.sh wasm-toys` to build/dist-toys/ with the package's JavaScript: a single-thread
// module, so it is always loaded with one thread. Otherwise the package in dist/.
export const toyBuild = process.env.SB_TOYS === '1';
// The classes the toy build adds to the package's: their family and type.
export const toyClasses = {
  ToyNormBoundIndex: { kind: 'index', type: 'toy-norm-bound' },
  ToyGreedy: { kind: 'linear-policy', type: 'toy-greedy' },
};
// A file of the build this run loads (index.js, worker.js, ...).
export const buildFile = (name) => new URL(`${toyBuild ? '../../build/dist-toys/' : '../../dist/'}${name}`, import.meta.url);
const { default: init } = await import(buildFile('index.js').href);

let shared = null;
// One module instance per test file (each file runs in its own worker). With `options`, a new
// instance of the same build made with them (the toy build's with one thread).
export function loadModule(options) {
  if (options !== undefined) return init(toyBuild ? { ...options, threads: 1 } : options);
  shared ??= init(toyBuild ? { threads: 1 } : undefined);
  return shared;
}

// The folder of the golden saved states of format `format`: tests/golden/format-<N>/ for the
// package's classes, tests/golden/toys/format-<N>/ for the toys' (SB_TOYS=1 node tests/golden/write.mjs
// --missing writes them; only the toy run reads them).
export function goldenFolder(format, { toys = false } = {}) {
  return new URL(`../golden/${toys ? 'toys/' : ''}format-${format}/`, import.meta.url);
}

// Every folder of golden states this run reads, [{ name, folder, format }]: the package's
// (format-<N>), and in the toy run the toys' too (toys/format-<N>).
export function goldenFolders() {
  return [false, ...(toyBuild ? [true] : [])].flatMap((toys) => {
    const root = new URL(`../golden/${toys ? 'toys/' : ''}`, import.meta.url);
    if (!existsSync(root)) return [];
    return readdirSync(root).filter((name) => /^format-\d+$/.test(name)).map((name) => {
      const format = Number(name.slice('format-'.length));
      return { name: `${toys ? 'toys/' : ''}${name}`, folder: goldenFolder(format, { toys }), format };
    });
  });
}

export { seededRandom } from '../../bench/lib/seeded-random.mjs';

// The wasm heap each of `count` users over a catalogue costs after three steps: `make(u)` makes user
// u, `reward(arm)` rewards its arms. The users are disposed before it returns.
export function heapPerUser(sb, count, make, reward) {
  const before = sb.memoryUsage().allocatedBytes;
  const users = [];
  for (let u = 0; u < count; u++) {
    const user = make(u);
    for (let t = 0; t < 3; t++) {
      const arm = user.select();
      user.update(arm, reward(arm));
    }
    users.push(user);
  }
  const perUser = (sb.memoryUsage().allocatedBytes - before) / count;
  for (const user of users) user.dispose();
  return perUser;
}

export function gaussian(random, count) {
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = standardNormal(random);
  return values;
}

// The oracle: top-k by inner product in double precision, ties by smaller id.
export function bruteForce(items, query, k) {
  const scored = [];
  for (const [id, vector] of items) {
    let score = 0;
    for (let j = 0; j < query.length; j++) score += vector[j] * query[j];
    scored.push([score, id]);
  }
  scored.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return scored.slice(0, k);
}

// CRC-32 (IEEE 802.3, as zlib) of `bytes`: the checksum that seals a saved state's envelope, for
// tests that write or re-seal one by hand (docs/state-format.md).
export function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

export function expectBanditError(sb, action, code) {
  let caught = null;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  if (!(caught instanceof sb.BanditError)) throw new Error(`expected a BanditError ${code}, got ${caught}`);
  if (caught.code !== code) throw new Error(`expected code ${code}, got ${caught.code}: ${caught.message}`);
  return caught;
}

// A MovieLens-format ratings file from a planted rank-2 model (no real data can be downloaded here):
// each user rates about half the movies, movie m first appears around time 1000 m.
export function plantedRatings({ users = 60, movies = 80, tabs = false, seed = 5 } = {}) {
  const random = seededRandom(seed);
  const normal = () => standardNormal(random);
  const u = Array.from({ length: users }, () => [normal(), normal()]);
  const v = Array.from({ length: movies }, () => [normal(), normal()]);
  const lines = [];
  for (let i = 0; i < users; i++) {
    for (let m = 0; m < movies; m++) {
      if (random() > 0.5) continue;
      const score = 3 + 0.8 * (u[i][0] * v[m][0] + u[i][1] * v[m][1]) + 0.3 * normal();
      const rating = Math.min(5, Math.max(1, Math.round(score)));
      const time = 1000 * m + Math.floor(random() * 900);
      lines.push(tabs ? `${i + 1}\t${m + 1}\t${rating}\t${time}` : `${i + 1}::${m + 1}::${rating}::${time}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

// The types of one family as the core registers them (sb.optionTable() lists every registered type
// of each kind), in registration order.
export function registeredTypes(sb, kind) {
  const types = sb.optionTable().filter((entry) => entry.kind === kind).map((entry) => entry.type);
  if (types.length === 0) throw new Error(`no registered type of kind '${kind}'`);
  return types;
}

// The registered types of one family that are the package's: in the toy run, less the toys, which
// the package's native build (its CLI, which linear.test.js compares with) does not have.
export function packageTypes(sb, kind) {
  const toys = Object.values(toyClasses).map((toy) => toy.type);
  return registeredTypes(sb, kind).filter((type) => !toys.includes(type));
}

// The classes of one family as the core registers them: [className, options] per type in
// registration order, `options` being perType[type] or else `missingRow` ({} unless the suite's rows
// have another shape). A registered type with no class in the
// package, or a perType key the family does not register (but a toy's, outside the toy run), throws: a loop over a family covers every
// type or fails. With { rowRequired: true } (a suite whose rows hold a type's own thresholds), a
// registered type without a row throws too, naming the row to write.
export function registeredClasses(sb, kind, perType = {}, { rowRequired = false, missingRow = {} } = {}) {
  const types = registeredTypes(sb, kind);
  const toyTypes = Object.values(toyClasses).map((toy) => toy.type);
  for (const type of Object.keys(perType)) {
    // A toy's row is for the toy run; against the package's module it is left unused.
    if (!toyBuild && toyTypes.includes(type)) continue;
    if (!types.includes(type)) throw new Error(`${kind}: '${type}' is not a registered type`);
  }
  const classOf = new Map(Object.entries(sb)
    .filter(([, value]) => typeof value === 'function' && typeof value.type === 'string' && typeof value.fromBytes === 'function')
    .map(([name, value]) => [value.type, name]));
  return types.map((type) => {
    const name = classOf.get(type);
    if (name === undefined) throw new Error(`${kind} type '${type}' has no class in the package`);
    if (rowRequired && !Object.hasOwn(perType, type)) throw new Error(`${kind} type '${type}' (${name}) has no row in this suite's perType table`);
    return [name, Object.hasOwn(perType, type) ? perType[type] : missingRow];
  });
}

// A generic suite's least recall@k under a filter for an index type: its row's number, or, negative
// (a type without a row), the type's own unfiltered recall@k on these queries less that much, the
// rule of the core's filtered-search test for indexes that only screen candidates.
export function recallFloor(minimumRecall, index, items, queries, k = 10) {
  if (minimumRecall >= 0) return minimumRecall;
  let hits = 0;
  let wanted = 0;
  for (const query of queries) {
    const truth = bruteForce(items, query, k).map(([, id]) => id);
    const found = new Set(index.search(query, k).ids);
    hits += truth.filter((id) => found.has(id)).length;
    wanted += truth.length;
  }
  return hits / wanted + minimumRecall;
}

// The fewest milliseconds `action` took in `runs` runs. A bound on work that should take no time
// ("refused before anything is read") is checked on the fastest run: a run slowed by a busy machine
// (another suite building beside this one) does not fail it, a run that really reads its input does.
export function fastestMs(action, runs = 3) {
  let fastest = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    action();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}
