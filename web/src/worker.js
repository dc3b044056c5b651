// `import { runInWorker } from 'sublinear-bandits/worker'`: runs simulate(config) in a Web Worker so
// the page never freezes. Progress arrives through onProgress; aborting the signal terminates the
// worker, which really stops the computation (a wasm loop cannot be interrupted any other way).
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { isArray, readOptions } from './convert.js';
import { readConfig } from './simulate.js';

export { BanditError, ErrorCode };

function abortError() {
  return typeof DOMException === 'function' ? new DOMException('The simulation was aborted', 'AbortError') : Object.assign(new Error('The simulation was aborted'), { name: 'AbortError' });
}

export function runInWorker(config, options) {
  return new Promise((resolve, reject) => {
    let plainConfig;
    let progress;
    let signal;
    let wasmUrl;
    try {
      // The checks simulate() makes, here, where a BanditError still reaches the caller as such (a
      // worker's errors come back as messages). Every argument is read once.
      ({ onProgress: progress, signal, wasmUrl } = readOptions(options, 'runInWorker options', ['onProgress', 'signal', 'wasmUrl']));
      if (config === null || typeof config !== 'object' || isArray(config, 'config')) throw invalidArgument('config must be an object');
      let configProgress;
      ({ onProgress: configProgress, ...plainConfig } = config);
      readConfig(plainConfig);
      progress ??= configProgress;
      if (progress !== undefined && typeof progress !== 'function') throw invalidArgument('onProgress must be a function');
      if (wasmUrl !== undefined && typeof wasmUrl !== 'string') throw invalidArgument('wasmUrl must be a string');
    } catch (error) {
      reject(error);
      return;
    }
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const worker = new Worker(new URL('./simulation-worker.js', import.meta.url), { type: 'module' });
    const finish = () => {
      worker.terminate();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      finish();
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress') {
        progress?.(data.fraction);
      } else if (data.type === 'result') {
        finish();
        resolve(data.result);
      } else if (data.type === 'error') {
        finish();
        reject(data.code ? new BanditError(data.code, data.message) : new Error(data.message));
      }
    };
    worker.onerror = (event) => {
      finish();
      reject(new Error(`simulation worker failed: ${event.message ?? 'unknown error'}`));
    };
    worker.postMessage({ config: plainConfig, wasmUrl });
  });
}
