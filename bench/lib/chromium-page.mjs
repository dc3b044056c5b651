// Benchmarks in a Chromium page beside Node: the repository (dist/, bench/, node_modules/) served on
// 127.0.0.1 and an empty page open on it. playwright-core is imported only when a page is asked
// for, so an installed package runs its Node benchmarks without it.

// The page and close(), which stops the browser and the server.
export async function openRepositoryPage(title) {
  const { launchChromium } = await import('../../tests/e2e/chromium.js');
  const { serveRepository } = await import('./repository-server.mjs');
  const server = await serveRepository(title);
  let browser = null;
  const close = async () => {
    if (browser) await browser.close();
    server.close();
  };
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    return { page, close };
  } catch (error) {
    await close();
    throw error;
  }
}

// The same runs as in Node: initialises the package in the page and calls the run function
// `exportName` of `module` (a path from the repository's root, e.g. '/bench/lib/live-run.mjs') as
// run(sb, options), so a benchmark keeps one copy of its runs for both runtimes.
export async function runInChromiumPage(title, { module, exportName, options }) {
  const { page, close } = await openRepositoryPage(title);
  try {
    return await page.evaluate(runInPage, { module, exportName, options });
  } finally {
    await close();
  }
}

// Serialised into the page by page.evaluate: it may use only its argument and the page's globals.
async function runInPage({ module, exportName, options }) {
  const { default: init } = await import('/dist/index.js');
  const run = (await import(module))[exportName];
  return run(await init(), options);
}
