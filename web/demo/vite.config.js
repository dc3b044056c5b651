import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

// The demo imports the package by name; the alias points it at the local build in dist/, so the
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
  server: { port: 5173, strictPort: true, fs: { allow: [fileURLToPath(new URL('../..', import.meta.url))] } },
  build: { outDir: fileURLToPath(new URL('../../build/demo-site', import.meta.url)), emptyOutDir: true, target: 'es2022' },
  clearScreen: false,
});
