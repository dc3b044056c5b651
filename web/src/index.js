// Entry point of the npm package: `const sb = await init()` in Node >= 20 and in browsers.
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { guardProxy, requireInteger } from './convert.js';
import { createRuntime, refuseExtraArguments } from './runtime.js';
import { defineMipsClasses } from './mips.js';
import { defineClsClasses } from './cls.js';
import { defineMatroidClasses } from './matroid.js';
import { defineLinearClasses } from './linear.js';
import { defineCatalogueClasses } from './catalogue.js';
import { defineSimulationClasses } from './simulate.js';
import { defineEvaluation } from './evaluate.js';
import { defineInspectState } from './saved-state.js';
import { version } from './version.js';
import { warmUp } from './warm-up.js';
import { poolWorkerFactory } from './pool-workers.js';

export { BanditError, ErrorCode, version };

// Two builds of the same core: one thread (runs everywhere), and one with threads for index
// construction (shared memory: Node, or a page that is cross-origin isolated). Each build's .js is
// imported only when chosen. The .wasm URLs are literals so that bundlers (Vite, Rollup, webpack)
// find and emit the files.
const wasmUrls = {
  single: new URL('./sublinear_bandits_wasm.wasm', import.meta.url),
  threads: new URL('./sublinear_bandits_wasm_threads.wasm', import.meta.url),
};
const wasmNames = { single: 'sublinear_bandits_wasm.wasm', threads: 'sublinear_bandits_wasm_threads.wasm' };
const threadsGlueName = 'sublinear_bandits_wasm_threads.js';
const threadsWorkerName = 'sublinear_bandits_wasm_threads.worker.js';

const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

// A computed specifier keeps bundlers from trying to resolve a Node built-in for the browser.
async function importNode(name) {
  const specifier = `node:${name}`;
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
}

// The options init() knows. Only the object's own properties are read, each once; an unknown key is
// refused, naming it and the nearest known name (as the classes' options are).
const initOptionNames = ['wasmBinary', 'locateFile', 'threads', 'threadsTimeout', 'warmUp'];

function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

function unknownOptionMessage(key) {
  const distance = (name) => editDistance(key.toLowerCase(), name.toLowerCase());
  const nearest = initOptionNames.reduce((best, name) => (distance(name) < distance(best) ? name : best));
  const near = distance(nearest) <= Math.max(2, Math.floor(nearest.length / 3));
  return `unknown init option '${key}' (${near ? `did you mean '${nearest}'?` : `the nearest is '${nearest}'`}; known: ${initOptionNames.join(', ')})`;
}

function describeValue(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  if (typeof value === 'string') return `the string '${value.length > 40 ? `${value.slice(0, 40)}...` : value}'`;
  return `${typeof value} ${String(value)}`;
}

function readInitOptions(options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new BanditError(ErrorCode.INVALID_ARGUMENT, `init options must be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!initOptionNames.includes(key)) throw new BanditError(ErrorCode.INVALID_ARGUMENT, unknownOptionMessage(key));
  }
  const read = {};
  for (const name of initOptionNames) {
    if (Object.hasOwn(options, name) && options[name] !== undefined) read[name] = options[name];
  }
  const refuse = (name, what) => new BanditError(ErrorCode.INVALID_ARGUMENT, `init option '${name}' must be ${what}, got ${describeValue(read[name])}`);
  if ('wasmBinary' in read && !(read.wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(read.wasmBinary))) throw refuse('wasmBinary', 'an ArrayBuffer or a Uint8Array');
  if ('locateFile' in read && typeof read.locateFile !== 'function') throw refuse('locateFile', 'a function');
  if ('threads' in read && !(Number.isInteger(read.threads) && read.threads >= 1)) throw refuse('threads', 'a positive integer');
  if ('threadsTimeout' in read && !(typeof read.threadsTimeout === 'number' && read.threadsTimeout > 0 && Number.isFinite(read.threadsTimeout))) {
    throw refuse('threadsTimeout', 'a positive number of milliseconds');
  }
  if ('warmUp' in read && typeof read.warmUp !== 'boolean') throw refuse('warmUp', 'a boolean');
  return read;
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
  if (typeof Worker !== 'function') return { cores, shared: false, why: 'this context cannot start Workers' };
  return { cores, shared: true, why: 'cross-origin isolated page, Web Workers' };
}

// How many threads index construction gets, and why: every core the platform gives unless the
// caller asks for fewer (or passes a wasmBinary without `threads`: the single-thread build's bytes,
// as before there were two builds).
async function chooseThreads(options) {
  const asked = options.threads;
  if (asked === 1) return { threads: 1, reason: 'init({ threads: 1 }) asked for one thread' };
  if (asked === undefined && options.wasmBinary) return { threads: 1, reason: 'a wasmBinary was given without threads: the single-thread build' };
  const { cores, shared, why } = await platformThreads();
  if (!shared) return { threads: 1, reason: why };
  if (cores < 2) return { threads: 1, reason: `${why}, but one core` };
  const threads = Math.min(asked ?? cores, cores);
  const bounded = asked !== undefined && asked > cores ? ` (${asked} asked for, ${cores} cores)` : '';
  return { threads, reason: `${why}: ${threads} threads${bounded}` };
}

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];
// randomChecksum's largest round count.
const MAX_CHECKSUM_ROUNDS = 2 ** 20;

function startsWithWasmMagic(bytes) {
  return bytes.length >= 4 && WASM_MAGIC.every((byte, i) => bytes[i] === byte);
}

function asBytes(binary) {
  return binary instanceof ArrayBuffer ? new Uint8Array(binary) : new Uint8Array(binary.buffer, binary.byteOffset, binary.byteLength);
}

// Where a browser may find one of the package's files. First beside this module (what bundlers
// rewrite). Vite's dev server serves this module pre-bundled from node_modules/.vite/deps/, where
// the .wasm files are not (a request there gets the app's index.html): the package's own folder is
// then tried too.
function browserCandidates(name, literal) {
  const candidates = [literal.href];
  const here = new URL(import.meta.url);
  const preBundled = here.pathname.match(/^(.*\/)\.vite\/deps[^/]*\/[^/]*$/);
  if (preBundled && /^https?:$/.test(here.protocol)) candidates.push(new URL(`${preBundled[1]}sublinear-bandits/dist/${name}`, here.origin).href);
  return candidates;
}

// Fetches and compiles one .wasm; null and the reason when the response is not a wasm module.
async function compileFetched(url) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (error) {
    return { problem: `${url}: ${error?.message ?? error}` };
  }
  if (!response.ok) return { problem: `${url}: HTTP ${response.status}` };
  const type = response.headers.get('Content-Type') ?? '';
  if (type.startsWith('application/wasm') && typeof WebAssembly.compileStreaming === 'function') {
    try {
      return { module: await WebAssembly.compileStreaming(response) };
    } catch (error) {
      return { problem: `${url}: not this package's wasm (${error?.message ?? error})` };
    }
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!startsWithWasmMagic(bytes)) return { problem: `${url}: not a .wasm file (${type || 'no Content-Type'}${/html/i.test(type) ? ', probably a page served in place of a missing file' : ''})` };
  try {
    return { module: await WebAssembly.compile(bytes) };
  } catch (error) {
    return { problem: `${url}: not this package's wasm (${error?.message ?? error})` };
  }
}

// The compiled WebAssembly.Module of a build: from the caller's bytes, Node's file system, or
// fetched by the browser. Bytes that are not this package's wasm are the caller's error.
async function compileBuild(kind, options) {
  const name = wasmNames[kind];
  if (options.wasmBinary) {
    const bytes = asBytes(options.wasmBinary);
    const notOurs = `init option 'wasmBinary': the bytes are not this package's wasm (${name})`;
    if (!startsWithWasmMagic(bytes)) throw new BanditError(ErrorCode.INVALID_ARGUMENT, `${notOurs}: they do not start with the wasm magic number 00 61 73 6d`);
    try {
      return await WebAssembly.compile(bytes);
    } catch (error) {
      throw new BanditError(ErrorCode.INVALID_ARGUMENT, `${notOurs}: ${error?.message ?? error}`);
    }
  }
  if (isNode && !options.locateFile) {
    const { readFile } = await importNode('fs/promises');
    return WebAssembly.compile(await readFile(wasmUrls[kind]));
  }
  let candidates = browserCandidates(name, wasmUrls[kind]);
  if (options.locateFile) {
    const located = options.locateFile(name, '');
    candidates = [typeof located === 'string' ? located : String(located?.href ?? located)];
  }
  if (isNode) {
    // A located file in Node: a path or a file: URL is read, anything else fetched.
    const where = candidates[0];
    if (!/^(https?|data|blob):/.test(where)) {
      const { readFile } = await importNode('fs/promises');
      const bytes = new Uint8Array(await readFile(where.startsWith('file:') ? new URL(where) : where));
      if (!startsWithWasmMagic(bytes)) throw new BanditError(ErrorCode.INVALID_ARGUMENT, `init option 'locateFile': ${where} is not a .wasm file`);
      return WebAssembly.compile(bytes);
    }
  }
  const problems = [];
  for (const url of candidates) {
    const { module, problem } = await compileFetched(url);
    if (module) return module;
    problems.push(problem);
  }
  throw new BanditError(ErrorCode.INVALID_ARGUMENT, `the package's ${name} could not be loaded: ${problems.join('; ')}. ` +
    'Serve the files of node_modules/sublinear-bandits/dist/ next to the script that imports the package (bundlers that do not emit ' +
    "files named by new URL(..., import.meta.url), e.g. esbuild, need them copied), or pass init({ locateFile }) or init({ wasmBinary })");
}

// Browsers run the threaded build's glue and its pthread worker script from Blob URLs made from
// their text (shipped as strings in sublinear_bandits_wasm_threads.sources.js), so no bundler or
// dev server has to copy, rewrite or inline them: Vite's dev server rewrites a .js file as a module
// (the classic worker script then fails to parse), its build inlines small files as data: URLs
// (whose Workers are not cross-origin isolated), and esbuild does not emit them at all. A Blob URL
// is same-origin, so its Workers share the page's isolation. Made once per page.
let threadsBlobUrls;
async function threadsBlobs() {
  threadsBlobUrls ??= import('./sublinear_bandits_wasm_threads.sources.js').then(({ glue, worker }) => ({
    glue: URL.createObjectURL(new Blob([glue], { type: 'text/javascript' })),
    worker: URL.createObjectURL(new Blob([worker], { type: 'text/javascript' })),
  }));
  try {
    return await threadsBlobUrls;
  } catch (error) {
    threadsBlobUrls = undefined;
    throw error;
  }
}

// The threaded build's factory, and what its Workers load: files beside this module in Node
// (worker_threads), Blob URLs in browsers.
async function loadThreadsGlue() {
  if (isNode) {
    const glue = new URL(threadsGlueName, import.meta.url);
    const { default: create } = await import(/* @vite-ignore */ /* webpackIgnore: true */ glue.href);
    return { create, glue: glue.href, worker: new URL(threadsWorkerName, import.meta.url) };
  }
  const blobs = await threadsBlobs();
  const { default: create } = await import(/* @vite-ignore */ /* webpackIgnore: true */ blobs.glue);
  return { create, glue: blobs.glue, worker: blobs.worker };
}

const DEFAULT_THREADS_TIMEOUT_MS = 10_000;

// Instantiates a build from its compiled module. With threads, the module resolves only once every
// pool Worker has loaded; a Worker that fails, or that never reports (a script a host rewrote, a
// policy that blocks it), rejects within `timeout` ms of the instantiation instead of leaving the
// promise pending, and its Workers are stopped.
function instantiate(create, wasmModule, wasmName, moduleOptions, timeout) {
  return new Promise((resolve, reject) => {
    let timer;
    let settled = false;
    const stopWorkers = () => {
      const pthreads = moduleOptions.PThread;
      for (const worker of [...(pthreads?.unusedWorkers ?? []), ...(pthreads?.runningWorkers ?? [])]) worker.terminate();
    };
    const fail = (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (moduleOptions.pthreadPoolSize) stopWorkers();
      reject(error);
    };
    const notOurs = (error) => fail(new BanditError(ErrorCode.INVALID_ARGUMENT, `the bytes are not this package's wasm (${wasmName}): ${error?.message ?? error}`));
    moduleOptions.instantiateWasm = (imports, receiveInstance) => {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => {
        if (settled) return;
        if (moduleOptions.pthreadPoolSize && timeout !== undefined) {
          timer = setTimeout(() => fail(new Error(`its ${moduleOptions.pthreadPoolSize} worker thread${moduleOptions.pthreadPoolSize > 1 ? 's' : ''} did not start within ${timeout} ms`)), timeout);
        }
        // A module of other exports than the glue reads fails here (imports that differ fail above).
        try {
          receiveInstance(instance, wasmModule);
        } catch (error) {
          notOurs(error);
        }
      }, notOurs);
      return {};
    };
    let ready;
    try {
      ready = create(moduleOptions);
    } catch (error) {
      fail(error);
      return;
    }
    // The pool's Workers exist once create() returns: one that fails to load reports here.
    for (const worker of moduleOptions.PThread?.unusedWorkers ?? []) {
      const failed = (event) => fail(new Error(`a worker thread failed to load (${event?.message ?? event})`));
      if (isNode) worker.once('error', failed);
      else worker.addEventListener('error', failed);
    }
    ready.then((Module) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(Module);
    }, fail);
  });
}

export async function init(options) {
  options = guardProxy(() => readInitOptions(options), 'init options');
  let { threads, reason } = await chooseThreads(options);
  let Module;
  if (threads > 1) {
    try {
      const [wasmModule, glue] = await Promise.all([compileBuild('threads', options), loadThreadsGlue()]);
      Module = await instantiate(glue.create, wasmModule, wasmNames.threads, {
        // Asked for the pthread worker script only (the .wasm is compiled above). Node's Worker
        // takes a file URL object.
        locateFile: () => glue.worker,
        // The calling thread builds too: threads - 1 Workers, all started before the module runs (a
        // Worker started later could not load while the calling thread waits for it).
        pthreadPoolSize: threads - 1,
        // A string: it is posted to each Worker, which imports it.
        mainScriptUrlOrBlob: glue.glue,
        // Node: the pool's Workers start with the host's flags minus those a Worker refuses.
        ...(isNode ? { createNodeWorker: poolWorkerFactory(process.execArgv) } : {}),
      }, options.threadsTimeout ?? DEFAULT_THREADS_TIMEOUT_MS);
    } catch (error) {
      // The caller's own bytes are wrong: that is theirs to know, not a reason for one thread.
      if (options.wasmBinary && error instanceof BanditError) throw error;
      threads = 1;
      reason = `the threaded build did not start here (${error?.message ?? error}), so the single-thread build`;
    }
  }
  if (threads === 1) {
    const [wasmModule, { default: create }] = await Promise.all([compileBuild('single', options), import('./sublinear_bandits_wasm.js')]);
    Module = await instantiate(create, wasmModule, wasmNames.single, { locateFile: (path) => path });
  }
  if (threads > 1 && isNode) {
    // Idle pool workers would keep a Node process alive after its work is done.
    for (const worker of Module.PThread.unusedWorkers) worker.unref();
  }
  Module.setParallelism(threads);
  const runtime = createRuntime(Module);
  const { Catalogue, CatalogueFamily } = defineCatalogueClasses(runtime);
  const linearClasses = defineLinearClasses(runtime, CatalogueFamily);
  // One line per area: each defines its classes on this module instance.
  const classes = {
    ...defineMipsClasses(runtime),
    ...defineClsClasses(runtime),
    ...defineMatroidClasses(runtime),
    Catalogue,
    ...linearClasses,
  };
  const sb = Object.freeze({
    version,
    BanditError,
    ErrorCode,
    // The threads index construction (HnswIndex's build() and immediate add(), buildIndex(), an
    // incremental graph's slices) and the elimination policies' reviews run on, and why that many.
    threads,
    threadsReason: reason,
    ...classes,
    // What a saved state is (class, format version, sizes, catalogue identity), read from its head.
    inspectState: defineInspectState(runtime, classes),
    ...defineSimulationClasses(runtime),
    ...defineEvaluation(runtime, linearClasses, CatalogueFamily),
    // Bytes of the WebAssembly memory, and how many of them malloc has handed out.
    memoryUsage(...extra) {
      refuseExtraArguments('memoryUsage()', extra, 0);
      // >>> 0: the count comes back as an i32, negative past 2 GiB.
      return { heapBytes: runtime.heapBuffer().byteLength, allocatedBytes: Module.allocatedBytes() >>> 0 };
    },
    // Checksum of the first `count` rounds of the core's random transforms for `seed`: equal in
    // every build and browser for the same arguments (the native CLI prints the same string).
    randomChecksum: runtime.func([
      (seed) => requireInteger(seed, 'seed', 0, Number.MAX_SAFE_INTEGER),
      // A call runs uninterrupted, about 1 us a round: 2^20 rounds keep it near a second.
      (count) => requireInteger(count, 'count', 0, MAX_CHECKSUM_ROUNDS),
    ], (seed, count) => Module.randomChecksum(seed, count), 'randomChecksum()'),
    // The option table of one class, as the C++ constructors read it (cpp/src/<layer>/<layer>_option_tables.cpp):
    // [{ name, type, default, low, high, lowOpen, highOpen, choices, doc, internal }, ...]. kind is
    // 'index', 'linear-policy', 'catalogue', 'semi-bandit-policy', 'cls-policy', 'environment', 'simulation' (type 'simulate')
    // or 'evaluation' (type 'evaluate');
    // with no arguments, the list of every { kind, type }.
    optionTable: runtime.func([
      (kind) => (kind === undefined ? kind : requireName(kind, 'kind')),
      (type) => (type === undefined ? type : requireName(type, 'type')),
    ], (kind, type) => {
      if (kind === undefined && type === undefined) return JSON.parse(Module.optionTableList());
      if (kind === undefined || type === undefined) throw invalidArgument('optionTable(kind, type) needs both, or neither for the list');
      return JSON.parse(Module.optionTable(kind, type));
    }, 'optionTable()'),
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
