// Debian's Chromium driven by playwright-core (no browser download is possible here).
import { chromium } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium() {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-sync',
      '--disable-background-networking', '--disable-component-update'],
  });
}

// Collects console errors and uncaught page errors: a page under test must produce none.
export function watchErrors(page) {
  const errors = [];
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

// The demo's Vite dev server (what `npm start` runs) on a free port, so a running demo does not
// collide, and a Chromium to drive it. close() stops both.
export async function startDemo() {
  const { createServer } = await import('vite');
  const { fileURLToPath } = await import('node:url');
  const server = await createServer({
    configFile: fileURLToPath(new URL('../../web/demo/vite.config.js', import.meta.url)),
    server: { port: 0, strictPort: false, host: '127.0.0.1' },
    logLevel: 'error',
  });
  await server.listen();
  const browser = await launchChromium();
  return {
    baseUrl: server.resolvedUrls.local[0],
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
