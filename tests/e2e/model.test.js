// Saving and loading a model: the demo's model section (build an HNSW index, save it as a file, load
// a file back; a damaged or foreign file shows CORRUPT_STATE as the page's errors look), and the
// docs/saving-state.md's "Build in Node, load in the browser" page half (fetch, fromBytes, IndexedDB) in Chromium.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gaussianVectors } from '../../web/demo/data.js';
import { startDemo, watchErrors } from './chromium.js';

let demo;
let sb;

beforeAll(async () => {
  demo = await startDemo();
  const { default: init } = await import('../../dist/index.js');
  sb = await init();
});

afterAll(async () => {
  await demo?.close();
});

async function openPage() {
  const page = await demo.browser.newPage({ acceptDownloads: true });
  const errors = watchErrors(page);
  await page.goto(demo.baseUrl);
  await expect.poll(() => page.locator('#build-model').isEnabled(), { timeout: 30_000 }).toBe(true);
  return { page, errors };
}

const summary = (page) => page.locator('#model-summary').evaluate((node) => ({ ...node.dataset, text: node.textContent }));

// Builds through the page and saves through its button: the downloaded file's name and bytes.
async function buildAndSave(page) {
  await page.fill('#count', '3000');
  await page.fill('#dim', '16');
  await page.fill('#k', '5');
  await page.fill('#seed', '7');
  await page.getByRole('button', { name: 'Build HNSW index' }).click();
  await expect.poll(async () => (await summary(page)).type).toBe('hnsw');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save model' }).click()]);
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

describe('the demo saves and loads a model', () => {
  test('a saved model loads back with the same stats and answers, and is the one Node would load', async () => {
    const { page, errors } = await openPage();
    expect(await page.locator('#save-model').isEnabled()).toBe(false);
    const { name, bytes } = await buildAndSave(page);
    expect(name).toBe('hnsw-3000x16.sbst');
    const built = await summary(page);
    expect(built).toMatchObject({ type: 'hnsw', size: '3000', dim: '16' });
    expect(built.text).toContain('Built in');

    await page.setInputFiles('#model-file', { name, mimeType: 'application/octet-stream', buffer: bytes });
    await expect.poll(async () => (await summary(page)).text).toContain(`Loaded ${name} (${bytes.length} bytes)`);
    const loaded = await summary(page);
    expect(loaded).toMatchObject({ type: 'hnsw', size: '3000', dim: '16', ids: built.ids });
    expect(loaded.text).toContain('Type hnsw, 3000 items of dimension 16');
    expect(await page.locator('#model-error').isHidden()).toBe(true);

    // The downloaded file is a state any runtime reads: Node answers the page's query the same way.
    const inNode = sb.HnswIndex.fromBytes(new Uint8Array(bytes));
    expect(Array.from(inNode.search(gaussianVectors(1, 16, 8), 5).ids).join(',')).toBe(built.ids);
    inNode.dispose();
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a damaged or foreign file shows CORRUPT_STATE as an error and keeps the current model', async () => {
    const { page, errors } = await openPage();
    const { name, bytes } = await buildAndSave(page);
    const before = await summary(page);
    const error = page.locator('#model-error');

    const damaged = Buffer.from(bytes);
    damaged[Math.floor(damaged.length / 2)] ^= 1;
    await page.setInputFiles('#model-file', { name, mimeType: 'application/octet-stream', buffer: damaged });
    await expect.poll(() => error.isVisible()).toBe(true);
    expect(await error.textContent()).toMatch(/^CORRUPT_STATE: saved state is damaged/);
    expect(await error.getAttribute('class')).toBe('error');
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await summary(page)).toEqual(before);

    await page.setInputFiles('#model-file', { name: 'notes.sbst', mimeType: 'text/plain', buffer: Buffer.from('not a model\n') });
    await expect.poll(() => error.textContent()).toBe('CORRUPT_STATE: saved state is damaged: not a sublinear-bandits state');

    // Loading a good file again clears the error.
    await page.setInputFiles('#model-file', { name, mimeType: 'application/octet-stream', buffer: bytes });
    await expect.poll(() => error.isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('docs/saving-state.md: build in Node, load in the browser', () => {
  test('the page fetches the file, restores it and keeps it in IndexedDB', async () => {
    const dim = 16;
    const index = new sb.HnswIndex({ dim });
    index.add(Uint32Array.from({ length: 2000 }, (_, i) => i), gaussianVectors(2000, dim, 3));
    const query = gaussianVectors(1, dim, 4);
    const expected = Array.from(index.search(query, 10).ids);
    const bytes = Buffer.from(index.toBytes());
    index.dispose();

    const { page, errors } = await openPage();
    await page.route('**/model.sbst', (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: bytes }));
    // The guide's page snippets, as written there, with the page's module (window.sb).
    const answers = await page.evaluate(async (queryValues) => {
      const { sb } = window;
      const query = Float32Array.from(queryValues);
      const bytes = new Uint8Array(await (await fetch('model.sbst')).arrayBuffer());
      const index = sb.HnswIndex.fromBytes(bytes);
      const fetched = Array.from(index.search(query, 10).ids);

      const done = (request) => new Promise((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const opening = indexedDB.open('my-app', 1);
      opening.onupgradeneeded = () => opening.result.createObjectStore('models');
      const db = await done(opening);

      const saving = db.transaction('models', 'readwrite');
      saving.objectStore('models').put(index.toBytes(), 'index');
      await new Promise((resolve, reject) => {
        saving.oncomplete = resolve;
        saving.onerror = saving.onabort = () => reject(saving.error);
      });

      const stored = await done(db.transaction('models').objectStore('models').get('index'));
      const restored = stored ? sb.HnswIndex.fromBytes(stored) : null;
      const missing = await done(db.transaction('models').objectStore('models').get('other'));
      const result = { fetched, stored: Array.from(restored.search(query, 10).ids), missing: missing === undefined };
      index.dispose();
      restored.dispose();
      db.close();
      return result;
    }, Array.from(query));
    expect(answers).toEqual({ fetched: expected, stored: expected, missing: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
