// Types of the public API (hand-written: emcc 3.1.6 has no --emit-tsd), one file per area.
// Checked by tsc in tests/types.
import { BanditError, ErrorCode } from './common.js';
import type { MipsClasses } from './mips.js';
import type { LinearClasses } from './linear.js';
import type { SimulationClasses } from './simulate.js';

export * from './common.js';
export * from './mips.js';
export * from './linear.js';
export * from './simulate.js';

export interface InitOptions {
  /** The .wasm bytes, when the host has them already. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Maps the module's file names (the .wasm) to URLs. */
  locateFile?: (path: string, prefix: string) => string;
}

/** One instance of the WebAssembly module and the classes bound to it. */
export interface SublinearBandits extends MipsClasses, LinearClasses, SimulationClasses {
  readonly version: string;
  readonly BanditError: typeof BanditError;
  readonly ErrorCode: typeof ErrorCode;
  /** Size of the WebAssembly memory and the bytes malloc has handed out (for leak checks). */
  memoryUsage(): { heapBytes: number; allocatedBytes: number };
  /** Hex checksum of the core's random transforms for a seed; identical in every build. */
  randomChecksum(seed: number, count: number): string;
}

export declare function init(options?: InitOptions): Promise<SublinearBandits>;
export default init;
