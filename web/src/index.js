// Entry point of the npm package: `const sb = await init()` in Node >= 20 and in browsers.
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { requireInteger } from './convert.js';
import { createRuntime } from './runtime.js';
import { defineMipsClasses } from './mips.js';
import { defineClsClasses } from './cls.js';
import { defineMatroidClasses } from './matroid.js';
import { defineLinearClasses } from './linear.js';
import { defineCatalogueClasses } from './catalogue.js';
import { defineSimulationClasses } from './simulate.js';
import { version } from './version.js';
import { warmUp } from './warm-up.js';

export { BanditError, ErrorCode, version };

// Two builds of the same core: one thread (runs everywhere), and one with threads for index
// construction (shared memory: Node, or a page that is cross-origin isolated). The URLs are written
// as literals so that bundlers (Vite, Rollup, webpack) find and emit the files; each build's .js is
// imported only when chosen.
const builds = {
  single: {
    load: () => import('./sublinear_bandits_wasm.js'),
    wasm: new URL('./sublinear_bandits_wasm.wasm', import.meta.url),
  },
  threads: {
    load: () => import('./sublinear_bandits_wasm_threads.js'),
    wasm: new URL('./sublinear_bandits_wasm_threads.wasm', import.meta.url),
    worker: new URL('./sublinear_bandits_wasm_threads.worker.js', import.meta.url),
    // What each Worker imports to run the module: the file itself, since a bundler renames and
    // moves the chunk the page imports (the worker script would look for it beside itself).
    glue: new URL('./sublinear_bandits_wasm_threads.js', import.meta.url),
  },
};

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

// A computed specifier keeps bundlers from trying to resolve a Node built-in for the browser.
async function importNode(name) {
  const specifier = `node:${name}`;
  return import(/* @vite-ignore */ specifier);
}

// The cores this host gives a program, and whether the threaded build can run here: it needs
// SharedArrayBuffer, which browsers give only to cross-origin isolated pages (COOP and COEP
// headers), and in Node the synchronous process.getBuiltinModule (20.16) that its worker script uses.
async function platformThreads() {
  if (isNode) {
    const os = await importNode('os');
    const cores = os.availableParallelism?.() ?? os.cpus().length;
    if (typeof process.getBuiltinModule !== 'function') return { cores, shared: false, why: `Node ${process.version} has no process.getBuiltinModule (20.16 or later runs the threaded build)` };
    return { cores, shared: true, why: 'Node worker threads' };
  }
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  if (typeof SharedArrayBuffer !== 'function' || globalThis.crossOriginIsolated !== true) {
    return { cores, shared: false, why: 'the page is not cross-origin isolated (serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), so there is no SharedArrayBuffer' };
  }
  return { cores, shared: true, why: 'cross-origin isolated page, Web Workers' };
}

// How many threads index construction gets, and why: every core the platform gives unless the
// caller asks for fewer (or passes a wasmBinary without `threads`: the single-thread build's bytes,
// as before there were two builds).
async function chooseThreads(options) {
  const asked = options.threads;
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1)) {
    throw new BanditError(ErrorCode.INVALID_ARGUMENT, `init option 'threads' must be a positive integer, got ${String(asked)}`);
  }
  if (asked === 1) return { threads: 1, reason: 'init({ threads: 1 }) asked for one thread' };
  if (asked === undefined && options.wasmBinary) return { threads: 1, reason: 'a wasmBinary was given without threads: the single-thread build' };
  const { cores, shared, why } = await platformThreads();
  if (!shared) return { threads: 1, reason: why };
  if (cores < 2) return { threads: 1, reason: `${why}, but one core` };
  const threads = Math.min(asked ?? cores, cores);
  const bounded = asked !== undefined && asked > cores ? ` (${asked} asked for, ${cores} cores)` : '';
  return { threads, reason: `${why}: ${threads} threads${bounded}` };
}

// Whether the threaded build's Worker script can be fetched. A pool Worker whose script fails to
// load never reports, and Emscripten 3.1.6 listens for a Worker's errors only once it has loaded, so
// the module would wait for it forever: a page checks first, and takes the single-thread build if not.
async function workerScriptProblem(url) {
  try {
    const response = await fetch(url);
    return response.ok ? null : `HTTP ${response.status}`;
  } catch (error) {
    return String(error?.message ?? error);
  }
}

export async function init(options = {}) {
  if (options === null || typeof options !== 'object') throw new BanditError(ErrorCode.INVALID_ARGUMENT, 'init options must be an object');
  if (options.warmUp !== undefined && typeof options.warmUp !== 'boolean') {
    throw new BanditError(ErrorCode.INVALID_ARGUMENT, `init option 'warmUp' must be a boolean, got ${String(options.warmUp)}`);
  }
  let { threads, reason } = await chooseThreads(options);
  if (threads > 1 && !isNode) {
    const name = 'sublinear_bandits_wasm_threads.worker.js';
    const url = options.locateFile ? options.locateFile(name, '') : builds.threads.worker.href;
    const problem = await workerScriptProblem(url);
    if (problem !== null) {
      threads = 1;
      reason = `the threaded build's worker script ${url} did not load (${problem}), so the single-thread build`;
    }
  }
  const build = threads > 1 ? builds.threads : builds.single;
  const moduleOptions = {};
  if (options.wasmBinary) {
    moduleOptions.wasmBinary = options.wasmBinary;
  } else if (isNode && !options.locateFile) {
    // Node's fetch cannot read a file URL.
    const { readFile } = await importNode('fs/promises');
    moduleOptions.wasmBinary = await readFile(build.wasm);
  }
  // Node's Worker takes a file URL object, browsers a string.
  const located = (url) => (isNode ? url : url.href);
  moduleOptions.locateFile = options.locateFile ?? ((path) => {
    if (path.endsWith('.wasm')) return located(build.wasm);
    if (path.endsWith('.worker.js') && build.worker) return located(build.worker);
    return path;
  });
  if (threads > 1) {
    // The calling thread builds too: threads - 1 Workers, all started before the module runs (a
    // Worker started later could not load while the calling thread waits for it).
    moduleOptions.pthreadPoolSize = threads - 1;
    // A string: it is posted to each Worker, and URL objects cannot be.
    moduleOptions.mainScriptUrlOrBlob = build.glue.href;
  }
  const { default: createSublinearModule } = await build.load();
  const Module = await createSublinearModule(moduleOptions);
  if (threads > 1 && isNode) {
    // Idle pool workers would keep a Node process alive after its work is done.
    for (const worker of Module.PThread.unusedWorkers) worker.unref();
  }
  Module.setParallelism(threads);
  const runtime = createRuntime(Module);
  const { Catalogue, CatalogueFamily } = defineCatalogueClasses(runtime);
  const sb = Object.freeze({
    version,
    BanditError,
    ErrorCode,
    // The threads index construction (HnswIndex's build() and immediate add(), buildIndex(), an
    // incremental graph's slices) and the elimination policies' reviews run on, and why that many.
    threads,
    threadsReason: reason,
    // One line per area: each defines its classes on this module instance.
    ...defineMipsClasses(runtime),
    ...defineClsClasses(runtime),
    ...defineMatroidClasses(runtime),
    Catalogue,
    ...defineLinearClasses(runtime, CatalogueFamily),
    ...defineSimulationClasses(runtime),
    // Bytes of the WebAssembly memory, and how many of them malloc has handed out.
    memoryUsage() {
      // >>> 0: the count comes back as an i32, negative past 2 GiB.
      return { heapBytes: runtime.heapBuffer().byteLength, allocatedBytes: Module.allocatedBytes() >>> 0 };
    },
    // Checksum of the first `count` rounds of the core's random transforms for `seed`: equal in
    // every build and browser for the same arguments (the native CLI prints the same string).
    randomChecksum: runtime.func([
      (seed) => requireInteger(seed, 'seed', 0, Number.MAX_SAFE_INTEGER),
      (count) => requireInteger(count, 'count', 0, 0xffffffff),
    ], (seed, count) => Module.randomChecksum(seed, count)),
    // The option table of one class, as the C++ constructors read it (core/option_tables.cpp):
    // [{ name, type, default, low, high, lowOpen, highOpen, choices, doc, internal }, ...]. kind is
    // 'index', 'linear-policy', 'catalogue', 'semi-bandit-policy', 'cls-policy', 'environment' or 'simulation' (type 'simulate');
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
  // Compiles the hot paths before the first call needs them (warm-up.js); init({ warmUp: false })
  // resolves sooner and leaves that cost to the first calls.
  if (options.warmUp !== false) await warmUp(sb);
  return sb;
}

function requireName(value, name) {
  if (typeof value !== 'string') throw invalidArgument(`${name} must be a string`);
  return value;
}

export default init;
