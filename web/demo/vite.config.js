import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

// Cross-origin isolation (README, "Threads"): with these two headers the page, its Workers and theirs
// get SharedArrayBuffer, so init() loads the threaded build. Everything the page loads is same-origin.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The dev server treats every .js file as an ES module and rewrites it: in the threaded build's
// pthread worker script, which emcc 3.1.6 starts as a classic Worker, it wraps the computed
// import() of the glue with a helper it imports at the top, and a classic script cannot parse an
// import declaration. That Worker then never starts and the module waits for it forever (init()
// never resolves). Served as it is, as `vite build` copies it.
const pthreadWorker = 'sublinear_bandits_wasm_threads.worker.js';
function servePthreadWorkerAsIs() {
  return {
    name: 'serve-pthread-worker-as-is',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use(async (request, response, next) => {
        if (!new URL(request.url, 'http://localhost').pathname.endsWith(`/${pthreadWorker}`)) return next();
        try {
          const script = await readFile(`${dist}${pthreadWorker}`);
          response.writeHead(200, { ...server.config.server.headers, 'Content-Type': 'text/javascript', 'Cache-Control': 'no-cache' });
          response.end(script);
        } catch (error) {
          next(error);
        }
      });
    },
  };
}

// The demo imports the package by name; the alias points it at the local build in dist/, so the
// page exercises exactly what npm users get (no pre-bundling: dist/ is outside node_modules).
// `base: './'` makes every URL in the build relative (the page's scripts, the worker, the .wasm next
// to the module that loads it), so the static site works from any folder of any host.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [servePthreadWorkerAsIs()],
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
    // Vite inlines files under 4 KB as data: URLs, the pthread worker script among them; a Worker
    // from a data: URL has an opaque origin, so it is not cross-origin isolated and cannot import the
    // glue: the module would wait for it forever. It stays a file next to the glue.
    assetsInlineLimit: (file) => (file.endsWith(pthreadWorker) ? false : undefined),
  },
  clearScreen: false,
});
