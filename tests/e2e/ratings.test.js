// A ratings file as users have it: checked and summarised when chosen; MovieLens's .dat, tab-separated
// .data and CSV with a header (converted for the library's parser); the options Table 3 and Table I
// need from a small file on the page and in the link.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { plantedRatingsText } from '../../web/demo/data.js';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

async function openPage(hash) {
  const page = await demo.browser.newPage({ acceptDownloads: true });
  const errors = watchErrors(page);
  await page.goto(`${demo.baseUrl}#${hash}`);
  await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
  return { page, errors };
}

async function run(page) {
  await page.getByRole('button', { name: 'Run experiment' }).click();
  await expect.poll(() => page.locator('#progress-text').textContent(), { timeout: 120_000 }).toMatch(/^(Done|Failed|Cancelled)/);
  expect(await page.locator('#progress-text').textContent()).toMatch(/^Done/);
  return page.locator('#results-table tbody tr td:nth-child(3)').allTextContents();
}

const choose = (page, name, text) => page.setInputFiles('#ratings-file', { name, mimeType: 'text/plain', buffer: Buffer.from(text) });

function counts(text) {
  const rows = text.trim().split('\n').map((line) => line.split('::'));
  return { ratings: rows.length, users: new Set(rows.map((row) => row[0])).size, movies: new Set(rows.map((row) => row[1])).size };
}

describe('ratings files as users have them', () => {
  test('MovieLens CSV with a header: checked and summarised when chosen, converted, and Table 3 gives the same numbers as from the .dat file', async () => {
    const dat = plantedRatingsText();
    const csv = `userId,movieId,rating,timestamp\n${dat.trim().split('\n').map((line) => line.replaceAll('::', ',')).join('\n')}\n`;
    const { ratings, users, movies } = counts(dat);
    const { page, errors } = await openPage('preset=paper000-table3&seeds=1&horizon=100');
    expect(await page.locator('#ratings-options').isVisible()).toBe(true);
    await choose(page, 'ratings.csv', csv);
    await expect.poll(() => page.locator('#ratings-summary').textContent())
      .toBe(`ratings.csv: ${ratings.toLocaleString('en-US')} ratings by ${users} users of ${movies} movies (CSV with a header; converted to the user::movie::rating::time lines the library reads).`);
    expect(await page.locator('#experiment-error').isVisible()).toBe(false);
    const fromCsv = await run(page);
    expect(fromCsv.length).toBe(4);

    await choose(page, 'ratings.dat', dat);
    await expect.poll(() => page.locator('#ratings-summary').textContent()).toContain('MovieLens .dat');
    expect(await run(page)).toEqual(fromCsv);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    expect(JSON.parse(readFileSync(await download.path(), 'utf8')).configuration.ratings).toContain('ratings.dat: ');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  test('a file that is not a ratings file is refused when chosen, naming the line; a tab-separated .data file is accepted', async () => {
    const { page, errors } = await openPage('preset=paper000-table3&seeds=1&horizon=60');
    await choose(page, 'broken.dat', '1::2::5::100\n1::3::five::100\n');
    const error = page.locator('#experiment-error');
    await expect.poll(() => error.isVisible()).toBe(true);
    expect(await error.textContent()).toContain('broken.dat cannot be used: Line 2: the rating is not a number');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await page.waitForTimeout(300);
    expect(await page.locator('#progress-text').textContent()).toBe('');

    await choose(page, 'u.data', plantedRatingsText().replaceAll('::', '\t'));
    await expect.poll(() => page.locator('#ratings-summary').textContent()).toContain('u.data: ');
    expect(await page.locator('#ratings-summary').textContent()).toContain('tab-separated');
    expect(await error.isVisible()).toBe(false);
    // Held-out users need more ratings than the file's users have: said at once, with the maximum.
    await page.fill('#min-ratings', '100000');
    await expect.poll(() => error.textContent()).toContain('No user of this file rated more than 100,000 movies');
    // Other presets do not show the ratings options.
    await page.fill('#min-ratings', '50');
    await page.selectOption('#preset', 'paper000-table1');
    expect(await page.locator('#ratings-options').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  test('the custom movie environment asks for a file before it runs', async () => {
    const { page, errors } = await openPage('preset=custom&seeds=1&horizon=60');
    await page.selectOption('#custom-environment', 'ratings');
    const error = page.locator('#experiment-error');
    await expect.poll(() => error.textContent()).toContain('The movie environment needs a ratings file');
    await page.getByRole('button', { name: 'Run experiment' }).click();
    await page.waitForTimeout(300);
    expect(await page.locator('#progress-text').textContent()).toBe('');
    await choose(page, 'ratings.dat', plantedRatingsText());
    await expect.poll(() => error.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('Table I on a small file: the rater limits are on the page, checked at once, kept in the link, and the run uses them', async () => {
    const small = plantedRatingsText({ users: 600, movies: 80, density: 0.25, seed: 3 });
    const { page, errors } = await openPage('preset=paper003-table1&seeds=1&horizon=5');
    await choose(page, 'small.dat', small);
    const error = page.locator('#experiment-error');
    await expect.poll(() => error.textContent()).toContain('movies rated by 1,400 to 2,800 users, fewer than the 10 promotions');
    await page.fill('#min-raters', '50');
    await page.fill('#max-raters', '400');
    await page.locator('#max-raters').dispatchEvent('change');
    await expect.poll(() => error.isVisible()).toBe(false);
    expect(page.url()).toContain('minRaters=50');
    expect(page.url()).toContain('maxRaters=400');
    expect((await run(page)).length).toBe(7);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    const { configuration } = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(configuration.runs[0].environment).toMatchObject({ type: 'promotion', testMinRaters: 50, testMaxRaters: 400 });
    expect(configuration.ratings).toContain('small.dat: ');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
