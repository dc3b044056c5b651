// The page explains itself to a first-time visitor: what a bandit is and what sublinear buys, the
// papers by title and authors with links, per preset what to look for, both settings and a verdict,
// and one sentence per algorithm the presets run.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { algorithms, papers, presetNotes } from '../../web/demo/about.js';
import { presets } from '../../web/demo/presets.js';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

describe('the page explains itself', () => {
  test('an introduction, the papers with titles, authors and links, and a link to the repository', async () => {
    const page = await demo.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(demo.baseUrl);
    await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
    const intro = await page.locator('.intro').textContent();
    for (const words of ['bandit', 'regret', 'sublinear', 'What to look for']) expect(intro).toContain(words);
    for (const paper of Object.values(papers)) {
      const link = page.getByRole('link', { name: paper.title }).first();
      expect(await link.getAttribute('href')).toBe(paper.url);
      expect(intro).toContain(paper.authors);
    }
    expect(await page.locator('#repository-link').getAttribute('href')).toMatch(/^https?:\/\//);
    // The preset menu groups the presets under their papers' titles.
    const groups = await page.locator('#preset optgroup').evaluateAll((nodes) => nodes.map((node) => node.label));
    for (const number of new Set(Object.values(presetNotes).map((note) => note.paper))) {
      expect(groups.some((label) => label.startsWith(papers[number].title))).toBe(true);
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  test('every preset has a note: its paper, what to look for, our settings beside the paper\'s, a verdict', async () => {
    const page = await demo.browser.newPage();
    const errors = watchErrors(page);
    await page.goto(demo.baseUrl);
    await expect.poll(() => page.locator('#run-experiment').isEnabled(), { timeout: 30_000 }).toBe(true);
    for (const preset of presets) {
      await page.selectOption('#preset', preset.id);
      const note = page.locator('#preset-note');
      const text = await note.textContent();
      expect(text, preset.id).toContain('What to look for');
      expect(text, preset.id).toContain('Verdict');
      expect(text, preset.id).toContain(papers[presetNotes[preset.id].paper].title);
      expect(await note.locator('.settings-table tr').allTextContents(), preset.id).toEqual([
        `ours, laptop scale${presetNotes[preset.id].settings.laptop}`, `ours, full scale${presetNotes[preset.id].settings.full}`, `the paper${presetNotes[preset.id].settings.paper}`]);
    }
    await page.selectOption('#preset', 'custom');
    expect(await page.locator('#preset-note').textContent()).toBe('');
    expect(errors).toEqual([]);
    await page.close();
  });

  test('one sentence for every algorithm a preset runs', async () => {
    const described = new Set(algorithms.flatMap(([, types]) => types));
    const used = new Set(presets.flatMap((preset) => [...preset.runs({ full: false }), ...preset.runs({ full: true })].map((run) => run.policy.type)));
    for (const type of used) expect(described.has(type), type).toBe(true);
    const page = await demo.browser.newPage();
    await page.goto(demo.baseUrl);
    await page.locator('.algorithms summary').click();
    const terms = await page.locator('#algorithm-list dt').allTextContents();
    expect(terms).toEqual(algorithms.map(([name]) => name));
    for (const definition of await page.locator('#algorithm-list dd').allTextContents()) expect(definition.length).toBeGreaterThan(40);
    await page.close();
  });
});
