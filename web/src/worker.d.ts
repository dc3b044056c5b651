// `sublinear-bandits/worker`: simulate() off the main thread (browsers).
import type { BanditError, ErrorCode } from './common.js';
import type { ManySeedsConfig, ManySeedsResult, SingleSeedConfig, SimulationResult } from './simulate.js';

export { BanditError, ErrorCode };

/** What runInWorker reads of an AbortSignal (written out, so the types need no DOM lib). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface RunInWorkerOptions {
  /** Called with the fraction done, at most about 100 times. */
  onProgress?: (fraction: number) => void;
  /** Aborting terminates the worker; the promise rejects with an AbortError. */
  signal?: AbortSignalLike;
  /**
   * Where the worker fetches the single-thread build's .wasm (sublinear_bandits_wasm.wasm), when a
   * host serves it elsewhere; the worker then runs on one thread.
   */
  wasmUrl?: string;
}

export declare function runInWorker(config: ManySeedsConfig, options?: RunInWorkerOptions): Promise<ManySeedsResult>;
export declare function runInWorker(config: SingleSeedConfig, options?: RunInWorkerOptions): Promise<SimulationResult>;
