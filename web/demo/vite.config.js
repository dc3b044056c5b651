import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { buildShopAsset, buildShopSnapshot, shopChunk, shopChunkCount } from './shop-asset.mjs';
import { parseShopAsset } from './shop-catalogue.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

// Cross-origin isolation (docs/threads-and-hosts.md, "Threads"): with these two headers the page, its Workers and theirs
// get SharedArrayBuffer, so init() loads the threaded build. Everything the page loads is same-origin.
const crossOriginIsolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The shop's files (shop-asset.mjs), made from Debian's Fashion-MNIST when first asked for and cached
// under build/shop/: served at shop/ by the dev server and written there into the static build. The
// page fetches the main asset and the catalogue's snapshot when its shop section opens, and a chunk of
// thumbnails only when it draws one of the chunk's items.
function fashionShopAsset() {
  const files = {
    'fashion-shop.bin': async () => buildShopAsset(),
    'fashion-shop.sbst': () => buildShopSnapshot(parseShopAsset),
  };
  const chunkName = (chunk) => `thumbnails-${String(chunk).padStart(3, '0')}.bin`;
  const bytesOf = async (name) => {
    if (files[name]) return files[name]();
    const chunk = /^thumbnails-(\d{3})\.bin$/.exec(name);
    return chunk && Number(chunk[1]) < shopChunkCount() ? shopChunk(Number(chunk[1])) : null;
  };
  return {
    name: 'fashion-shop-asset',
    configureServer(server) {
      server.middlewares.use('/shop/', (request, response, next) => {
        bytesOf(new URL(request.url, 'http://localhost').pathname.slice(1)).then((bytes) => {
          if (!bytes) return next();
          response.setHeader('Content-Type', 'application/octet-stream');
          response.end(bytes);
        }, next);
      });
    },
    async generateBundle() {
      const names = [...Object.keys(files), ...Array.from({ length: shopChunkCount() }, (_, c) => chunkName(c))];
      for (const name of names) this.emitFile({ type: 'asset', fileName: `shop/${name}`, source: await bytesOf(name) });
    },
  };
}

// The documentation site (scripts/build-docs.mjs), which the page links to as docs/: the static build
// gets it from build-demo.sh, written beside the page; `npm start` builds it into build/docs-site/
// first, and the dev server serves it from there.
function documentationSite() {
  const site = fileURLToPath(new URL('../../build/docs-site/', import.meta.url));
  const types = { '.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };
  return {
    name: 'documentation-site',
    configureServer(server) {
      server.middlewares.use('/docs', (request, response, next) => {
        const path = normalize(decodeURIComponent(new URL(request.url, 'http://localhost').pathname));
        let file = join(site, path);
        if (!file.startsWith(site)) return next();
        if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
        if (!existsSync(file)) return next();
        response.setHeader('Content-Type', types[extname(file)] ?? 'application/octet-stream');
        response.end(readFileSync(file));
      });
    },
  };
}

// The package itself needs none of this (docs/threads-and-hosts.md, "Hosts"): the headers are what give the demo threads,
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
  plugins: [fashionShopAsset(), documentationSite()],
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
