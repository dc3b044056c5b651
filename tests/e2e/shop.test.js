// The demo's shop in Chromium: the Fashion-MNIST catalogue loads when the section opens, a simulated
// visitor's hidden taste is learned (its kind dominates the slates, regret per slate falls), the
// estimate image renders, the model survives a reload and is gone after "Forget me", and the page
// works on a phone-sized viewport by touch and by keyboard.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDemo, watchErrors } from './chromium.js';

let demo;

beforeAll(async () => {
  demo = await startDemo();
});

afterAll(async () => {
  await demo?.close();
});

async function openShop(page) {
  await page.goto(demo.baseUrl);
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('WebAssembly module loaded');
  await page.locator('#shop > summary').click();
  await expect.poll(() => page.locator('#shop').getAttribute('data-ready'), { timeout: 60_000 }).toBe('true');
}


describe('the demo shop', () => {
  test('a simulated visitor who likes sneakers is learned; the model survives a reload and is gone after Forget me', async () => {
    const context = await demo.browser.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    await openShop(page);
    expect(await page.locator('#shop-status').textContent()).toMatch(/^2,000 items \(\d+ KB\) ready in \d+ ms\.$/);
    expect(await page.locator('#shop-slate button').count()).toBe(8);
    await page.selectOption('#shop-taste', '7');
    await page.getByRole('button', { name: 'Let it click 60 slates' }).click();
    await expect.poll(() => page.locator('#shop-verdict').getAttribute('data-share'), { timeout: 60_000 }).not.toBeNull();
    const verdict = await page.locator('#shop-verdict').evaluate((node) => ({ ...node.dataset }));
    // Sneakers are a tenth of the catalogue; learned, they fill most of the last ten slates.
    expect(Number(verdict.share)).toBeGreaterThan(0.5);
    expect(Number(verdict.late)).toBeLessThan(Number(verdict.early));
    const sneakerShare = await page.locator('#shop-shares li[data-class="Sneaker"]').getAttribute('data-share');
    expect(Number(sneakerShare)).toBeGreaterThan(0.5);
    // The estimate image is drawn, and not blank.
    const spread = await page.locator('#shop-estimate').evaluate((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let low = 255;
      let high = 0;
      for (let i = 0; i < data.length; i += 4) {
        low = Math.min(low, data[i]);
        high = Math.max(high, data[i]);
      }
      return { width: canvas.width, range: high - low };
    });
    expect(spread).toEqual({ width: 28, range: 255 });
    await expect.poll(() => page.locator('#shop').getAttribute('data-saved')).not.toBeNull();
    const learned = await page.locator('#shop').getAttribute('data-theta');

    // A reload restores the model: the same estimate, and the estimate draws a sneaker's direction.
    await page.reload();
    await openShop(page);
    expect(await page.locator('#shop').getAttribute('data-restored')).toBe('true');
    expect(await page.locator('#shop-status').textContent()).toContain('restored');
    expect(await page.locator('#shop').getAttribute('data-theta')).toBe(learned);
    expect(await page.locator('#shop-state').textContent()).toContain('480 clicks and non-clicks learned');

    // Forget me: gone now and after a reload.
    await page.getByRole('button', { name: 'Forget me' }).click();
    await expect.poll(() => page.locator('#shop').getAttribute('data-forgotten')).toBe('true');
    await page.reload();
    await openShop(page);
    expect(await page.locator('#shop').getAttribute('data-restored')).toBe('false');
    expect(await page.locator('#shop-state').textContent()).toContain(' 0 clicks and non-clicks learned');
    expect(errors).toEqual([]);
    await context.close();
  });

  test('a simulated visitor whose taste turns from sneakers to bags: the page reports how the slates followed and whether the model noticed, as the run had it', async () => {
    const context = await demo.browser.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    await openShop(page);
    await page.selectOption('#shop-taste', '7');
    await page.selectOption('#shop-taste-later', '8');
    await page.getByRole('button', { name: 'Let it click 60 slates' }).click();
    await expect.poll(() => page.locator('#shop-verdict').getAttribute('data-share'), { timeout: 60_000 }).not.toBeNull();
    const verdict = await page.locator('#shop-verdict').evaluate((node) => ({ ...node.dataset, text: node.textContent }));
    // The share reported is the later taste's, Bag, over the last ten slates.
    expect(verdict.text).toContain(`${(100 * Number(verdict.share)).toFixed(0)}% of the last 10 slates were Bag`);
    expect(verdict.text).toContain(verdict.followedAfter === ''
      ? 'Bag had not yet held half of the slates 30 slates after the taste turned from Sneaker'
      : `${verdict.followedAfter} slates after the taste turned from Sneaker, Bag held half of the slates`);
    // What the page says of the model's detector is what the model reports (its stats, in slates).
    const shop = await page.locator('#shop').evaluate((node) => ({ ...node.dataset }));
    const noticedAfterTurn = Number(shop.changes) > 0 && Number(shop.lastChange) > 30 * 8;
    expect(verdict.noticedAt).toBe(noticedAfterTurn ? String(Math.ceil(Number(shop.lastChange) / 8)) : '');
    expect(verdict.text).toContain(noticedAfterTurn ? `the model noticed the change at slate ${verdict.noticedAt}` : 'the model did not notice the change as such');
    expect(await page.locator('#shop-state').textContent()).toContain(Number(shop.changes) > 0 ? 'it noticed a change of taste' : 'it has noticed no change of taste');
    expect(errors).toEqual([]);
    await context.close();
  });

  test('on a phone-sized viewport the slate is tapped and chosen by keyboard', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    const errors = watchErrors(page);
    await openShop(page);
    const first = await page.locator('#shop-slate button').first().getAttribute('data-arm');
    const box = await page.locator('#shop-slate button').first().boundingBox();
    expect(box.width).toBeGreaterThan(40);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await page.locator('#shop-slate button').first().tap();
    await expect.poll(() => page.locator('#shop-slate button').first().getAttribute('data-arm')).not.toBe(first);
    // Keyboard: focus an item and press Enter.
    const before = await page.locator('#shop-slate button').first().getAttribute('data-arm');
    await page.locator('#shop-slate button').nth(2).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#shop-slate button').first().getAttribute('data-arm')).not.toBe(before);
    expect(await page.locator('#shop-state').textContent()).toMatch(/Slate chosen in [\d.]+ ms by Sub-TS over 2000 items/);
    expect(errors).toEqual([]);
    await context.close();
  });
});
