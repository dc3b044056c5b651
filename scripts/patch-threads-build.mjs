// node scripts/patch-threads-build.mjs dist/sublinear_bandits_wasm_threads.js
//
// Lets emcc 3.1.6's output for threads run in Node from an ES module package ("type": "module").
// Built with ENVIRONMENT node, its glue spawns pthreads as worker_threads, and both of its files use
// CommonJS's free variables: the main .js `require` and `__dirname`, the .worker.js `require` and
// `__filename` (Node loads that file as an ES module too, being a .js file in this package). This
// defines them, under Node only, before the glue runs. The main file is an ES module: its shim is
// module-scoped, so nothing leaks into the host's globals. The worker file must stay a classic script
// for browsers (no import.meta, no await): its shim sets globals of the worker thread, which runs
// nothing else, with process.getBuiltinModule (Node 20.16; init() checks for it).
//
// It also writes <build>.sources.js, the text of both files as two strings: browsers run the glue
// and the worker script from Blob URLs made of them (web/src/index.js says why), so no bundler or
// dev server has to find, copy or leave untouched either file. Idempotent.
import { readFileSync, writeFileSync } from 'node:fs';

const [mainFile] = process.argv.slice(2);
if (!mainFile?.endsWith('.js')) {
  console.error('usage: node scripts/patch-threads-build.mjs <build>.js');
  process.exit(2);
}
const workerFile = mainFile.replace(/\.js$/, '.worker.js');
const marker = '/* sublinear-bandits: CommonJS names for Node */';
const onNode = 'typeof process=="object"&&typeof process.versions?.node=="string"';

function patch(file, shim) {
  const text = readFileSync(file, 'utf8');
  if (text.includes(marker)) return;
  // A leading "use strict" must stay first to keep its meaning.
  const head = text.match(/^"use strict";/)?.[0] ?? '';
  writeFileSync(file, `${head}${marker}${shim}\n${text.slice(head.length)}`);
}

// Bundlers read `new Worker(new URL('<file>', import.meta.url))` as a worker to bundle, and Vite's
// default (iife) worker format refuses this one; the glue takes that branch only without a
// locateFile, and init() always passes one: the branch goes, so bundlers just copy the file.
const workerName = workerFile.split('/').pop();
const bundledWorker = `if(!Module["locateFile"]){PThread.unusedWorkers.push(new Worker(new URL("${workerName}",import.meta.url)));return}`;
{
  const text = readFileSync(mainFile, 'utf8');
  if (text.includes(bundledWorker)) writeFileSync(mainFile, text.replace(bundledWorker, ''));
  else if (!text.includes(marker)) throw new Error(`${mainFile}: the worker branch to remove was not found (another emcc version?)`);
}
// In Node the glue makes `Worker` a global of the host's process (global.Worker = worker_threads'
// Worker) for its own `new Worker(...)`: a guest sets no globals, so the class stays in the module's
// scope. Its pool Workers would also inherit the host's execArgv: --input-type, which Node refuses
// for a worker's file (`node --input-type=module -e ...` could not start them), and V8 flags such as
// --expose-gc, which Node refuses for any Worker (ERR_WORKER_INVALID_EXEC_ARGV: the package fell back
// to one thread). init() passes Module.createNodeWorker (web/src/pool-workers.js), which starts them
// with the host's flags minus those a Worker refuses; without it they start with none.
const globalWorker = 'let nodeWorkerThreads;try{nodeWorkerThreads=require("worker_threads")}catch(e){console.error(\'The "worker_threads" module is not supported in this node.js build - perhaps a newer version is needed?\');throw e}global.Worker=nodeWorkerThreads.Worker}';
const scopedWorker = 'var nodeWorkerThreads=require("worker_threads")}';
const newWorker = 'PThread.unusedWorkers.push(new Worker(pthreadMainJs))';
const newScopedWorker = 'PThread.unusedWorkers.push(ENVIRONMENT_IS_NODE?(Module["createNodeWorker"]||function(W,u){return new W(u,{execArgv:[]})})(nodeWorkerThreads.Worker,pthreadMainJs):new Worker(pthreadMainJs))';
{
  const text = readFileSync(mainFile, 'utf8');
  if (text.includes(globalWorker) && text.includes(newWorker)) {
    writeFileSync(mainFile, text.replace(globalWorker, scopedWorker).replace(newWorker, newScopedWorker));
  } else if (!text.includes(marker)) {
    throw new Error(`${mainFile}: the glue's global Worker was not found (another emcc version?)`);
  }
}
// The glue's default .wasm location, new URL('<build>.wasm', import.meta.url), throws where the
// glue runs from a Blob URL (no base for a relative URL), as every pthread Worker of a page does.
// init() always compiles the .wasm itself (Module.instantiateWasm), so the default is never used.
const wasmName = mainFile.split('/').pop().replace(/\.js$/, '.wasm');
const defaultWasmUrl = `new URL("${wasmName}",import.meta.url).toString()`;
{
  const text = readFileSync(mainFile, 'utf8');
  if (text.includes(defaultWasmUrl)) writeFileSync(mainFile, text.replace(defaultWasmUrl, JSON.stringify(wasmName)));
}
patch(mainFile, `var require=${onNode}?process.getBuiltinModule("module").createRequire(import.meta.url):undefined;` +
  `var __dirname=${onNode}?require("path").dirname(require("url").fileURLToPath(import.meta.url)):undefined;`);
patch(workerFile, `if(${onNode}&&typeof require=="undefined"){globalThis.require=process.getBuiltinModule("module").createRequire(process.cwd()+"/");` +
  `globalThis.__filename=require("path").resolve(process.cwd(),"${workerFile.split('/').pop()}");}`);

// After the patches: the strings are exactly the files Node runs.
const sourcesFile = mainFile.replace(/\.js$/, '.sources.js');
const sources = '// Generated by scripts/patch-threads-build.mjs from the emcc output beside this file: the threaded\n' +
  "// build's glue and pthread worker script as text, for Blob URLs (web/src/index.js).\n" +
  `export const glue = ${JSON.stringify(readFileSync(mainFile, 'utf8'))};\n` +
  `export const worker = ${JSON.stringify(readFileSync(workerFile, 'utf8'))};\n`;
let previous = null;
try { previous = readFileSync(sourcesFile, 'utf8'); } catch { /* first run */ }
if (previous !== sources) writeFileSync(sourcesFile, sources);
