// The random engine in wasm against the native build of the same C++ (checksum rounds per second),
// a minimal example of the wasm-vs-native comparison every benchmark makes side by side.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import init from '../dist/index.js';

export default async function randomBenchmark(args, report) {
  const count = Number(args[0] ?? 200000);
  const sb = await init();
  const native = new URL('../build/native/sublinear-native', import.meta.url).pathname;
  const hasNative = existsSync(native);
  if (!hasNative) report.note('The native build is not here (an installed package): wasm only.');
  const times = { wasm: [], native: [] };
  let checksums = {};
  for (let repeat = 0; repeat < 5; repeat++) {
    let start = performance.now();
    checksums.wasm = sb.randomChecksum(7, count);
    times.wasm.push(performance.now() - start);
    if (hasNative) {
      start = performance.now();
      checksums.native = execFileSync(native, ['rng-checksum', '7', String(count)], { encoding: 'utf8' }).trim();
      times.native.push(performance.now() - start);
    }
    report.progress((repeat + 1) / 5, 'random');
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  report.table(`Random transforms, ${count} rounds of 7 draws (median of 5)`, ['build', 'ms', 'checksum'], [
    ['wasm (Node)', median(times.wasm), checksums.wasm],
    ...(hasNative ? [['native (process, includes start-up)', median(times.native), checksums.native]] : []),
  ]);
  if (hasNative) report.note(`wasm / native time ratio: ${(median(times.wasm) / median(times.native)).toFixed(2)}; checksums ${checksums.wasm === checksums.native ? 'equal' : 'DIFFER'}.`);
}
