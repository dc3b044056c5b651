// Entry point of the npm package: `const sb = await init()` in Node >= 20 and in browsers.
import createSublinearModule from './sublinear_bandits_wasm.js';
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { requireInteger } from './convert.js';
import { createRuntime } from './runtime.js';
import { defineMipsClasses } from './mips.js';
import { defineClsClasses } from './cls.js';
import { defineMatroidClasses } from './matroid.js';
import { defineLinearClasses } from './linear.js';
import { defineSimulationClasses } from './simulate.js';
import { version } from './version.js';

export { BanditError, ErrorCode, version };

// Written as a literal so that bundlers (Vite, Rollup, webpack) find and emit the .wasm file.
const wasmUrl = new URL('./sublinear_bandits_wasm.wasm', import.meta.url);

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

async function readWasmInNode() {
  // A computed specifier keeps bundlers from trying to resolve a Node built-in for the browser.
  const fsModule = 'node:fs/promises';
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  return readFile(wasmUrl);
}

export async function init(options = {}) {
  if (options === null || typeof options !== 'object') throw new BanditError(ErrorCode.INVALID_ARGUMENT, 'init options must be an object');
  const moduleOptions = {};
  if (options.wasmBinary) {
    moduleOptions.wasmBinary = options.wasmBinary;
  } else if (isNode && !options.locateFile) {
    moduleOptions.wasmBinary = await readWasmInNode();
  }
  moduleOptions.locateFile = options.locateFile ?? ((path) => (path.endsWith('.wasm') ? wasmUrl.href : path));
  const Module = await createSublinearModule(moduleOptions);
  const runtime = createRuntime(Module);
  return Object.freeze({
    version,
    BanditError,
    ErrorCode,
    // One line per area: each defines its classes on this module instance.
    ...defineMipsClasses(runtime),
    ...defineClsClasses(runtime),
    ...defineMatroidClasses(runtime),
    ...defineLinearClasses(runtime),
    ...defineSimulationClasses(runtime),
    // Bytes of the WebAssembly memory, and how many of them malloc has handed out.
    memoryUsage() {
      // >>> 0: the count comes back as an i32, negative past 2 GiB.
      return { heapBytes: Module.HEAPU8.buffer.byteLength, allocatedBytes: Module.allocatedBytes() >>> 0 };
    },
    // Checksum of the first `count` rounds of the core's random transforms for `seed`: equal in
    // every build and browser for the same arguments (the native CLI prints the same string).
    randomChecksum: runtime.func([
      (seed) => requireInteger(seed, 'seed', 0, Number.MAX_SAFE_INTEGER),
      (count) => requireInteger(count, 'count', 0, 0xffffffff),
    ], (seed, count) => Module.randomChecksum(seed, count)),
    // The option table of one class, as the C++ constructors read it (core/option_tables.cpp):
    // [{ name, type, default, low, high, lowOpen, highOpen, choices, doc, internal }, ...]. kind is
    // 'index', 'linear-policy', 'semi-bandit-policy', 'cls-policy', 'environment' or 'simulation' (type 'simulate');
    // with no arguments, the list of every { kind, type }.
    optionTable: runtime.func([
      (kind) => (kind === undefined ? kind : requireName(kind, 'kind')),
      (type) => (type === undefined ? type : requireName(type, 'type')),
    ], (kind, type) => {
      if (kind === undefined && type === undefined) return JSON.parse(Module.optionTableList());
      if (kind === undefined || type === undefined) throw invalidArgument('optionTable(kind, type) needs both, or neither for the list');
      return JSON.parse(Module.optionTable(kind, type));
    }),
  });
}

function requireName(value, name) {
  if (typeof value !== 'string') throw invalidArgument(`${name} must be a string`);
  return value;
}

export default init;
