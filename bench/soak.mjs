// Soak (issue 7): a long SubTS run on a large, continuously changing arm set, driven step by step
// from JavaScript as a web app would. Reports the wasm heap (bytes malloc'd, and the memory size)
// over time and step-time percentiles, and fails (exit code 1) if the heap in use keeps growing
// once the arm set has reached its steady size. Default options: no object keeps a history of its
// calls (saved states are snapshots of the structures), so memory is bounded without any setting.
// The size of toBytes() at the end shows that the saved state is the arm set's, not the run's.
//
//   npm run bench -- soak            scaled default: 10^5 steps on 10^4 arms (about a minute)
//   npm run bench -- soak --full     the setting: 10^6 steps on 10^5 arms (tens of minutes)
//   options: --steps N, --arms K, --dim d, --index <type> (default hnsw), --every E (arm changes every E
//            steps: E arms added and E removed, default 10)
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { spacedTextArg } from './lib/args.mjs';

// Draws from the shared benchmark generator, independent of the library's.
function gaussianSource(seed) {
  const random = seededRandom(seed);
  return (count) => Float64Array.from({ length: count }, () => standardNormal(random));
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export default async function soak(args, report) {
  const full = args.includes('--full');
  const steps = Number(spacedTextArg(args, 'steps', full ? 1e6 : 1e5));
  const arms = Number(spacedTextArg(args, 'arms', full ? 1e5 : 1e4));
  const dim = Number(spacedTextArg(args, 'dim', 16));
  const every = Number(spacedTextArg(args, 'every', 10));
  const indexType = spacedTextArg(args, 'index', 'hnsw');
  report.note(`Configuration: SubTS (default options), ${steps} steps, ${arms} arms of dimension ${dim}, index ${indexType} (shortlist 30), ` +
    `${every} arms added and ${every} removed every ${every} steps (the oldest go first), unit Gaussian noise.`);

  const sb = await init();
  const gaussian = gaussianSource(1);
  const thetaStar = gaussian(dim);
  const policy = new sb.SubTS({ dim, horizon: steps, seed: 1, shortlist: 30, index: { type: indexType } });
  const features = new Map();
  let nextId = 0;
  const addArms = (count) => {
    const ids = Uint32Array.from({ length: count }, () => nextId++);
    const x = gaussian(count * dim);
    ids.forEach((id, i) => features.set(id, x.subarray(i * dim, (i + 1) * dim)));
    policy.addArms(ids, x);
  };
  let oldest = 0;
  const removeArms = (count) => {
    const ids = Uint32Array.from({ length: count }, () => oldest++);
    policy.removeArms(ids);
    ids.forEach((id) => features.delete(id));
  };
  const mean = (id) => {
    const x = features.get(id);
    let value = 0;
    for (let j = 0; j < dim; j++) value += x[j] * thetaStar[j];
    return value;
  };

  const setupStart = performance.now();
  for (let added = 0; added < arms; added += 10000) addArms(Math.min(10000, arms - added));
  const setupSeconds = (performance.now() - setupStart) / 1000;

  const samples = [];
  const stepTimes = new Float64Array(steps);
  const sampleEvery = Math.max(1, Math.floor(steps / 20));
  const memory = () => { const usage = sb.memoryUsage(); return { allocated: usage.allocatedBytes, heap: usage.heapBytes }; };
  samples.push({ step: 0, ...memory() });
  const reward = gaussianSource(2);
  const started = performance.now();
  for (let t = 1; t <= steps; t++) {
    const before = performance.now();
    const arm = policy.select();
    policy.update(arm, mean(arm) + reward(1)[0]);
    if (t % every === 0) {
      removeArms(every);
      addArms(every);
    }
    stepTimes[t - 1] = performance.now() - before;
    if (t % sampleEvery === 0) {
      samples.push({ step: t, ...memory() });
      report.progress(t / steps, `step ${t}`);
    }
  }
  const totalSeconds = (performance.now() - started) / 1000;
  // After the last sample: toBytes() keeps a copy of the state in the wasm heap until dispose().
  const savedBytes = policy.toBytes().length;
  policy.dispose();
  const afterDispose = memory();

  const sorted = Float64Array.from(stepTimes).sort();
  report.table('Step time (select + update + arm changes), milliseconds', ['p50', 'p90', 'p99', 'p99.9', 'max', 'mean'],
    [[percentile(sorted, 0.5), percentile(sorted, 0.9), percentile(sorted, 0.99), percentile(sorted, 0.999), sorted[sorted.length - 1],
      (totalSeconds * 1000) / steps]]);
  report.table('WebAssembly heap over the run', ['step', 'bytes in use (malloc)', 'memory size (bytes)'],
    samples.map((s) => [s.step, s.allocated, s.heap]));
  // Bounded: after the first quarter (HNSW's slot reuse and the arm store have reached their steady
  // size), the bytes in use may not grow by more than 10%.
  const steady = samples.filter((s) => s.step >= steps / 4);
  const growth = steady.length > 1 ? steady[steady.length - 1].allocated / steady[0].allocated - 1 : 0;
  const bounded = growth <= 0.1;
  report.note(`Setup (initial ${arms} arms): ${setupSeconds.toFixed(2)} s; run: ${totalSeconds.toFixed(1)} s. ` +
    `Heap in use from step ${steady[0]?.step} to the end: ${(growth * 100).toFixed(2)}% ${bounded ? '(bounded)' : '(GROWING)'}; ` +
    `after dispose: ${afterDispose.allocated} bytes in use.`);
  report.note(`toBytes() at the end of the run: ${savedBytes} bytes (${(savedBytes / 2 ** 20).toFixed(1)} MiB, ` +
    `${(savedBytes / arms).toFixed(0)} bytes per arm in the set): a snapshot of the policy and its index (docs/state-format.md).`);
  report.data('soak', { steps, arms, dim, indexType, every, setupSeconds, totalSeconds, growth, bounded, savedBytes, samples });
  if (!bounded) process.exitCode = 1;
}
