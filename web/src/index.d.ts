// Types of the public API (hand-written: emcc 3.1.6 has no --emit-tsd), one file per area.
// Checked by tsc in tests/types.
import { BanditError, ErrorCode } from './common.js';
import type { MipsClasses } from './mips.js';
import type { LinearClasses } from './linear.js';
import type { CatalogueClasses } from './catalogue.js';
import type { MatroidClasses } from './matroid.js';
import type { ClsClasses } from './cls.js';
import type { SimulationClasses } from './simulate.js';
import type { EvaluationClasses } from './evaluate.js';

export * from './common.js';
export * from './mips.js';
export * from './linear.js';
export * from './catalogue.js';
export * from './matroid.js';
export * from './cls.js';
export * from './simulate.js';
export * from './evaluate.js';

export interface InitOptions {
  /**
   * The .wasm bytes, when the host has them already: the single-thread build's
   * (sublinear_bandits_wasm.wasm), or with `threads` above 1 the threaded build's
   * (sublinear_bandits_wasm_threads.wasm). Bytes that are not this package's wasm throw
   * INVALID_ARGUMENT.
   */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /**
   * Maps the name of a build's .wasm file (sublinear_bandits_wasm.wasm, or
   * sublinear_bandits_wasm_threads.wasm) to the URL (or, in Node, the path) it is loaded from: a
   * string, or a URL object (anything with an `href`). By default the file beside the package's
   * module (where bundlers put it). The threaded build's scripts need no location.
   */
  locateFile?: (path: string, prefix: string) => string | { readonly href: string };
  /**
   * Threads for index construction. By default every core the platform gives: in Node, and in a
   * browser page (or Worker) that is cross-origin isolated (Cross-Origin-Opener-Policy: same-origin,
   * Cross-Origin-Embedder-Policy: require-corp); 1 elsewhere. 1 loads the single-thread build;
   * more is bounded by the cores. A threaded build that cannot start (its workers fail, or do not
   * start within `threadsTimeout`) falls back to the single-thread build rather than waiting; the
   * result is `threads` and `threadsReason` on the module.
   */
  threads?: number;
  /**
   * Milliseconds the threaded build's worker threads get to start once the .wasm is instantiated
   * (default 10,000); past it, init() stops them and loads the single-thread build.
   */
  threadsTimeout?: number;
  /**
   * true (the default): before it resolves, init() runs the hot paths of large arm sets on 2,000
   * arms (exact scans, lifts, ridge updates, HNSW insertion and search), a few ms a task with the
   * event loop running between the tasks, so that the engine has compiled them before the first
   * call needs them; it adds about 0.1 s to init(). false leaves that cost to the first calls.
   */
  warmUp?: boolean;
}

/** One instance of the WebAssembly module and the classes bound to it. */
export interface SublinearBandits extends MipsClasses, LinearClasses, CatalogueClasses, MatroidClasses, ClsClasses, SimulationClasses, EvaluationClasses {
  readonly version: string;
  readonly BanditError: typeof BanditError;
  readonly ErrorCode: typeof ErrorCode;
  /**
   * The threads index construction runs on (HnswIndex's build() and immediate add(), Sub-TS's and
   * Sub-Elim's buildIndex(), and the slice an incremental graph builds beside a search's scan), and
   * on which the elimination policies examine arms; 1 means the single-thread build was loaded.
   * Searches and simulations run on the calling thread either way.
   */
  readonly threads: number;
  /** Why `threads` is what it is (e.g. that the page is not cross-origin isolated). */
  readonly threadsReason: string;
  /** Size of the WebAssembly memory and the bytes malloc has handed out (for leak checks). */
  memoryUsage(): { heapBytes: number; allocatedBytes: number };
  /** Hex checksum of the first `count` (at most 2^20) rounds of the core's random transforms for a seed; identical in every build. */
  randomChecksum(seed: number, count: number): string;
  /**
   * The options a class accepts, as its C++ constructor reads them: kind 'index', 'linear-policy',
   * 'catalogue' (type 'catalogue'), 'semi-bandit-policy', 'cls-policy', 'environment' (simulate()'s environment types), 'simulation'
   * (type 'simulate') or 'nested' (an environment's nested object, type its path: 'linear.change',
   * 'ratings.change', 'matroid.matroid'), type the kebab-case class name. With no arguments, every
   * { kind, type } that has a table.
   */
  optionTable(kind: string, type: string): OptionSpec[];
  optionTable(): { kind: string; type: string }[];
  /**
   * What a saved state (`toBytes()` of any class) is, read from its head without loading it: the
   * class that restores it, its format version, its sizes and, for a catalogue or a user over one,
   * the catalogue's identity. It reads at most the first 64 KiB, whatever the state's size, and
   * allocates nothing for the sizes the bytes claim; the checksum and the payload are checked by
   * fromBytes. A state of another format version is described (fromBytes refuses it); bytes that are
   * not a state, a state of this format whose length does not match its head, or one of a type no
   * class restores throw CORRUPT_STATE; anything but a Uint8Array or ArrayBuffer, INVALID_ARGUMENT.
   * fromBytes and the command line's `evaluate --state` read states through the same reader.
   */
  inspectState(bytes: Uint8Array | ArrayBuffer): SavedStateInfo;
}

/** What `inspectState` reads from a saved state's head (docs/state-format.md). */
export interface SavedStateInfo {
  /** The class whose fromBytes restores the state: `sb[info.class].fromBytes(bytes)`. */
  class: string;
  /** The envelope's type name: the class's kebab-case type, `<type>@catalogue` for a user over a catalogue. */
  type: string;
  /** The state's format version (5 in this library, which loads no other). */
  formatVersion: number;
  /** The package version that wrote the state ("0.1.x" for format 1, which did not record it). */
  libraryVersion: string;
  sizes: {
    /** The state's byte length. */
    bytes: number;
    /** The payload's declared length (this format only). */
    payloadBytes?: number;
    /** The `dim` option, where the state's options hold one (not a user's: its catalogue's). */
    dim?: number;
    /** A MIPS index's item count. */
    items?: number;
    /** A linear policy's own arms, or a catalogue's arms. */
    arms?: number;
  };
  /**
   * A Catalogue's identity, or for a user over a catalogue the identity of the catalogue it must be
   * restored over (16 hex digits, as `catalogue.stats().identity`).
   */
  catalogueIdentity?: string;
}

/** One option of a class (optionTable). */
export interface OptionSpec {
  name: string;
  type: 'integer' | 'number' | 'boolean' | 'string' | 'object' | 'array' | 'seed';
  /** The default: a value, or a description when it is computed ('required' when there is none). */
  default: number | boolean | string;
  /** Beside a plain default: how it may differ (e.g. a noise scale estimated online). */
  defaultNote?: string;
  low?: number;
  high?: number;
  lowOpen?: boolean;
  highOpen?: boolean;
  choices?: string[];
  doc: string;
  /** Set by the package itself (a class's type), not part of the documented options. */
  internal: boolean;
}

export declare function init(options?: InitOptions): Promise<SublinearBandits>;
export default init;
