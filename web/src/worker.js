// `import { runInWorker } from 'sublinear-bandits/worker'`: runs simulate(config) in a Web Worker so
// the page never freezes. Progress arrives through onProgress; aborting the signal terminates the
// worker, which really stops the computation (a wasm loop cannot be interrupted any other way).
import { BanditError, ErrorCode } from './errors.js';

export { BanditError, ErrorCode };

function abortError() {
  return typeof DOMException === 'function' ? new DOMException('The simulation was aborted', 'AbortError') : Object.assign(new Error('The simulation was aborted'), { name: 'AbortError' });
}

export function runInWorker(config, { onProgress, signal, wasmUrl } = {}) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    if (config === null || typeof config !== 'object') {
      reject(new BanditError(ErrorCode.INVALID_ARGUMENT, 'config must be an object'));
      return;
    }
    const { onProgress: ignored, ...plainConfig } = config;
    const progress = onProgress ?? config.onProgress;
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
