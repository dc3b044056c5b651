import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

// Cross-origin isolation (README, "Threads"): with these two headers the page, its Workers and theirs
// get SharedArrayBuffer, so init() loads the threaded build. Everything the page loads is same-origin.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The package itself needs none of this (README, "Hosts"): the headers are what give the demo threads,
// the alias what makes it run the local build. The demo imports the package by name; the alias points it at the local build in dist/, so the
// page exercises exactly what npm users get (no pre-bundling: dist/ is outside node_modules).
// `base: './'` makes every URL in the build relative (the page's scripts, the worker, the .wasm next
// to the module that loads it), so the static site works from any folder of any host.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: {
    alias: [
      { find: /^sublinear-bandits\/worker$/, replacement: `${dist}worker.js` },
      { find: /^sublinear-bandits$/, replacement: `${dist}index.js` },
    ],
  },
  worker: { format: 'es' },
  server: {
    port: 5173, strictPort: true, headers: crossOriginIsolation,
    fs: { allow: [fileURLToPath(new URL('../..', import.meta.url))] },
  },
  preview: { headers: crossOriginIsolation },
  build: {
    outDir: fileURLToPath(new URL('../../build/demo-site', import.meta.url)), emptyOutDir: true, target: 'es2022',
  },
  clearScreen: false,
});
