// Serves the repository (dist/, bench/, node_modules/) to a Chromium page on 127.0.0.1, so that
// a benchmark can run the package in the browser beside Node. `/` is an empty page.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

export function serveRepository(title = 'bench') {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><title>${title}</title>`);
      return;
    }
    if (path.includes('..')) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(`${root}${path}`);
      response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
