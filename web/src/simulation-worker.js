// The Web Worker behind runInWorker: one module instance, one simulate() call per message.
import init from './index.js';

function transferables(value, found = []) {
  if (ArrayBuffer.isView(value)) found.push(value.buffer);
  else if (value && typeof value === 'object') for (const entry of Object.values(value)) transferables(entry, found);
  return found;
}

self.onmessage = async ({ data }) => {
  try {
    const sb = await init(data.wasmUrl ? { locateFile: () => data.wasmUrl, threads: 1 } : {});
    const result = sb.simulate({ ...data.config, onProgress: (fraction) => self.postMessage({ type: 'progress', fraction }) });
    self.postMessage({ type: 'result', result }, [...new Set(transferables(result))]);
  } catch (error) {
    self.postMessage({ type: 'error', code: error?.code, message: error?.message ?? String(error) });
  }
};
