// High-dimensional arms (issue 37): step time and wasm heap of the linear policies at d = 32 to 784
// (`--full` adds 1,536 and K = 10^5) over K = 10^4 arms of a generated low-rank embedding (rank 20,
// unit-norm rows): LinUCB over its own arms and as a user over a catalogue, with its widths kept by
// rank-one corrections (the default, O(K d) a step) and, up to d = 384, computed directly
// (`widths: 'direct'`, O(K d^2) a step, nothing per arm); Linear TS (also as a catalogue user, over
// an exact catalogue, in the catalogue's subspace by default above 64 dimensions and with subspace
// 'none') and Sub-TS (also as a catalogue user over a graph); the elimination policies with default options (search 'auto':
// lifted stage indexes at d <= 16, kept widths above), with the lifted search forced (only where
// the lift, d(d+1)/2 floats per arm, fits the heap) and as users over a catalogue (kept widths, 13
// bytes an arm), in the catalogue's subspace by default above 64 dimensions as Linear TS, and with
// subspace 'none'. A cell warms up for `--warm` steps, then times select + update until `--steps`
// steps or 10 s, whichever comes first: median ms a step. `--dims=8,16,32` and
// `--sizes=10000,100000` replace the grid (the small dimensions are where the auto rule is
// decided); `--only=Elim,Linear TS` runs only the contenders whose names contain one of those parts.
// `--cpu` times the steps in the process's CPU time (for a loaded machine).
//   npm run bench -- highd [--full] [--steps=S] [--warm=W] [--dims=...] [--sizes=...] [--only=...] [--cpu]
import init from '../dist/index.js';
import { lowRankRows, seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { numberArg, textArg } from './lib/args.mjs';

const RANK = 20;

function parseArgs(args) {
  const list = (name) => textArg(args, name, null)?.split(',').map(Number) ?? null;
  const full = args.includes('--full');
  return {
    dims: list('dims') ?? (full ? [32, 128, 384, 784, 1536] : [32, 128, 384, 784]),
    sizes: list('sizes') ?? (full ? [10000, 100000] : [10000]),
    steps: numberArg(args, 'steps', 30),
    // Substrings of the contenders' names to run (all when not given), e.g. --only=Elim,Linear TS.
    only: textArg(args, 'only', null)?.split(',') ?? null,
    warm: numberArg(args, 'warm', 10),
    // Steps timed in the process's CPU time rather than wall time: on a loaded machine a step longer
    // than a scheduler slice waits for other processes, and wall-time medians then grow with the load.
    cpu: args.includes('--cpu'),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Rows x = B z / |B z| with B a fixed d x RANK basis and z ~ N(0, I): an embedding of rank 20.
function lowRankArms(count, dim, random) {
  const basis = Float64Array.from({ length: dim * RANK }, () => standardNormal(random));
  return lowRankRows(basis, dim, RANK, count, random);
}

export default async function highd(args, report) {
  const config = parseArgs(args);
  const clock = config.cpu
    ? () => {
        const used = process.cpuUsage();
        return (used.user + used.system) / 1000;
      }
    : () => performance.now();
  // One thread: the steps are single-threaded either way, and the index builds are not measured here.
  const sb = await init({ threads: 1 });
  // Untimed steps of the kept widths' and Linear TS's code at a small size first: V8 compiles the
  // module's functions quickly and optimises the hot ones while they run, which the first timed cell
  // paid for (LinUCB over its own arms at d = 32: 0.36 ms a step first, 0.23 ms with 40 warm-up steps).
  {
    const random = seededRandom(7);
    const dim = 32;
    const features = lowRankArms(2000, dim, random);
    const ids = Uint32Array.from({ length: 2000 }, (_, i) => i);
    for (const make of [() => new sb.LinUCB({ dim, seed: 1 }), () => new sb.LinearElim({ dim, seed: 1 }), () => new sb.LinTS({ dim, seed: 1 })]) {
      const policy = make();
      policy.addArms(ids, features);
      for (let t = 0; t < 100; t++) policy.update(policy.select(), standardNormal(random));
      policy.dispose();
    }
  }
  const rows = [];
  for (const count of config.sizes) {
    for (const dim of config.dims) {
      const random = seededRandom(31 + dim);
      const features = lowRankArms(count, dim, random);
      const ids = Uint32Array.from({ length: count }, (_, i) => i);
      const theta = features.slice(0, dim);
      const mean = (arm) => {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += features[arm * dim + j] * theta[j];
        return sum;
      };
      const liftGiB = (count * dim * (dim + 1) / 2 * 4) / 2 ** 30;
      const contenders = [
        ['LinUCB (own arms, kept widths)', () => new sb.LinUCB({ dim, seed: 1 }), true],
        ['LinUCB (catalogue user, kept widths)', (catalogue) => new sb.LinUCB({ catalogue, seed: 1 }), false],
        // Before the catalogue's subspace reached LinUCB and the elimination users: V^-1 of d x d each.
        ['LinUCB (catalogue user, kept widths, subspace none)', (catalogue) => new sb.LinUCB({ catalogue, seed: 1, subspace: 'none' }), false],
        ['LinUCB (catalogue user, direct widths)', (catalogue) => new sb.LinUCB({ catalogue, seed: 1, widths: 'direct' }), false,
          false, dim > 384 ? 'O(K d^2): over 10 s a step' : null],
        ['Linear TS', () => new sb.LinTS({ dim, seed: 1 }), true],
        ['Linear TS (catalogue user)', (catalogue) => new sb.LinTS({ catalogue, seed: 1 }), false],
        // The user before the catalogue's subspace: its model in all d dimensions (3 d^2 doubles).
        // The catalogue's subspace at a policy's own default modelDim, 256 (the catalogue's is 32).
        ['Linear TS (catalogue user, catalogue modelDim 256)', (catalogue) => new sb.LinTS({ catalogue, seed: 1 }), false],
        ['Linear TS (catalogue user, subspace none)', (catalogue) => new sb.LinTS({ catalogue, seed: 1, subspace: 'none' }), false],
        ['Sub-TS (catalogue user)', (catalogue) => new sb.SubTS({ catalogue, seed: 1 }), false],
        ['Sub-TS', () => new sb.SubTS({ dim, seed: 1 }), true],
        ['Linear Elim (defaults)', () => new sb.LinearElim({ dim, seed: 1 }), true, dim <= 16],
        ['Sub-Elim (defaults)', () => new sb.SubElim({ dim, seed: 1 }), true, dim <= 16],
        ['Linear Elim (lifted)', () => new sb.LinearElim({ dim, seed: 1, search: 'lifted' }), true, true],
        ['Sub-Elim (lifted)', () => new sb.SubElim({ dim, seed: 1, search: 'lifted' }), true, true],
        ['Linear Elim (widths)', () => new sb.LinearElim({ dim, seed: 1, search: 'widths' }), true, false],
        ['Sub-Elim (widths)', () => new sb.SubElim({ dim, seed: 1, search: 'widths' }), true, false],
        ['Sub-Elim (catalogue user)', (catalogue) => new sb.SubElim({ catalogue, seed: 1 }), false, false],
        ['Sub-Elim (catalogue user, subspace none)', (catalogue) => new sb.SubElim({ catalogue, seed: 1, subspace: 'none' }), false, false],
        ['Linear Elim (catalogue user)', (catalogue) => new sb.LinearElim({ catalogue, seed: 1 }), false, false],
        ['Linear Elim (catalogue user, subspace none)', (catalogue) => new sb.LinearElim({ catalogue, seed: 1, subspace: 'none' }), false, false],
      ];
      for (const [name, make, ownArms, lifts, skipped] of contenders) {
        if (config.only && !config.only.some((part) => name.includes(part))) continue;
        if (skipped) {
          rows.push([count, dim, name, 'not run', skipped, '']);
          continue;
        }
        if (lifts && liftGiB > 1) {
          rows.push([count, dim, name, 'not run', `lift ${liftGiB.toFixed(1)} GiB`, '']);
          continue;
        }
        let before = sb.memoryUsage().allocatedBytes;
        let catalogue = null;
        let policy = null;
        try {
          const setupStart = performance.now();
          if (!ownArms) {
            catalogue = new sb.Catalogue({
              dim,
              index: { type: name.startsWith('Sub-TS') ? 'hnsw' : 'exact' },
              ...(name.includes('modelDim 256') ? { modelDim: 256 } : {}),
            });
            // In chunks, as a catalogue is streamed in: one call over 10^5 x 1,536 features would copy
            // 1.2 GB into the heap beside the catalogue's own 2.4 GB.
            for (let first = 0; first < count; first += 10000) {
              const end = Math.min(count, first + 10000);
              catalogue.add(ids.subarray(first, end), features.subarray(first * dim, end * dim));
            }
            // What a first user makes the catalogue fit and keep for every user (its subspace's
            // basis, and for LinUCB and the elimination users the projected rows B^T x) is shared:
            // made by a first user here, before a user's own memory is measured.
            if (name.includes('catalogue user') && !name.includes('subspace none') && !name.includes('direct widths')) {
              const first = make(catalogue);
              first.select();
              first.dispose();
            }
            // A user's own memory: the catalogue is shared by every user.
            if (name.includes('catalogue user')) before = sb.memoryUsage().allocatedBytes;
          }
          policy = make(catalogue);
          if (ownArms) policy.addArms(ids, features);
          const setup = performance.now() - setupStart;
          const times = [];
          const stop = performance.now() + 10000;
          for (let t = 0; t < config.warm + config.steps && performance.now() < stop; t++) {
            const started = clock();
            const arm = policy.select();
            policy.update(arm, mean(arm) + 0.1 * standardNormal(random));
            if (t >= config.warm) times.push(clock() - started);
          }
          const heap = (sb.memoryUsage().allocatedBytes - before) / 2 ** 20;
          rows.push([count, dim, name, times.length ? median(times) : 'none within 10 s', heap, setup / 1000]);
        } catch (error) {
          rows.push([count, dim, name, `${error.code ?? 'error'}`, String(error.message).slice(0, 60), '']);
        } finally {
          policy?.dispose();
          catalogue?.dispose();
        }
        report.progress(rows.length / (config.sizes.length * config.dims.length * contenders.length), `${count} x ${dim} ${name}`);
      }
    }
  }
  report.table(`Step (select + update) on a rank-${RANK} embedding, unit-norm rows (median ms${config.cpu ? ' of CPU time' : ''}, wasm in Node); heap: the policy's `
    + 'wasm heap with its arms (a catalogue user: without the shared catalogue)',
    ['K', 'd', 'policy', 'ms a step', 'heap MiB', 'setup s'], rows);
  report.data('config', config);
}
