// node scripts/patch-threads-build.mjs dist/sublinear_bandits_wasm_threads.js
//
// Lets emcc 3.1.6's output for threads run in Node from an ES module package ("type": "module").
// Built with ENVIRONMENT node, its glue spawns pthreads as worker_threads, and both of its files use
// CommonJS's free variables: the main .js `require` and `__dirname`, the .worker.js `require` and
// `__filename` (Node loads that file as an ES module too, being a .js file in this package). This
// defines them, under Node only, before the glue runs. The main file is an ES module: its shim is
// module-scoped, so nothing leaks into the host's globals. The worker file must stay a classic script
// for browsers (no import.meta, no await): its shim sets globals of the worker thread, which runs
// nothing else, with process.getBuiltinModule (Node 20.16; init() checks for it). Idempotent.
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
patch(mainFile, `var require=${onNode}?process.getBuiltinModule("module").createRequire(import.meta.url):undefined;` +
  `var __dirname=${onNode}?require("path").dirname(require("url").fileURLToPath(import.meta.url)):undefined;`);
patch(workerFile, `if(${onNode}&&typeof require=="undefined"){globalThis.require=process.getBuiltinModule("module").createRequire(process.cwd()+"/");` +
  `globalThis.__filename=require("path").resolve(process.cwd(),"${workerFile.split('/').pop()}");}`);
