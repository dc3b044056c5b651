// Where the pages to regain a switched taste go (issue 51): the drift benchmark's Fashion-MNIST
// shoppers (100 users, pages of 5, the liked kind switched after 75 of 150 pages) with one policy's
// default 'auto', grouped by the page after the switch at which each user's change was found, each
// group's clicks a page in blocks of 10 pages after the switch beside the same users' fresh models
// ('none', started at the switch).
//   node bench/experiments/click-regain-groups.mjs [--cls=LinUCB] [--forgetting='"auto"']
import init from '../../dist/index.js';
import { fashionCatalogue, fashionShoppers } from '../lib/drift-world.mjs';
import { regainedAt } from '../drift.mjs';
const args = process.argv.slice(2);
const arg = (n, f) => { const a = args.find((x) => x.startsWith(`--${n}=`)); return a ? a.slice(n.length + 3) : f; };
const sb = await init();
const data = fashionCatalogue(10000);
const catalogue = new sb.Catalogue({ dim: data.dim, seed: 1 });
catalogue.add(data.ids, data.features);
catalogue.build();
const users = 100, pages = 150, switchAt = 75;
const forgetting = JSON.parse(arg('forgetting', '"auto"'));
const cls = arg('cls', 'LinUCB');
const shoppers = fashionShoppers({ users, seed: 3, switchAt });
const rows = [];
for (let u = 0; u < users; u++) {
  const user = new sb[cls]({ catalogue, seed: u + 1, forgetting });
  const clicks = new Float64Array(pages);
  let alarmPage = Infinity; let seen = 0;
  for (let page = 0; page < pages; page++) {
    for (const arm of user.selectSlate(5)) {
      const click = shoppers.click(u, page, data.kinds[arm]) ? 1 : 0;
      clicks[page] += click;
      user.update(arm, click);
    }
    const f = user.stats().forgetting;
    if (f.changes > seen) { seen = f.changes; if (page >= switchAt && alarmPage === Infinity) alarmPage = page - switchAt; }
  }
  const fresh = new sb[cls]({ catalogue, seed: u + 1, forgetting: 'none' });
  const freshClicks = new Float64Array(pages);
  for (let page = switchAt; page < pages; page++) {
    for (const arm of fresh.selectSlate(5)) {
      const click = shoppers.click(u, page, data.kinds[arm]) ? 1 : 0;
      freshClicks[page] += click;
      fresh.update(arm, click);
    }
  }
  fresh.dispose();
  rows.push({ freshClicks, alarmPage, clicks, pre: seen, last: user.stats().forgetting.lastChange });
  user.dispose();
}
const curve = (rs) => { const c = new Float64Array(pages); for (const r of rs) for (let p = 0; p < pages; p++) c[p] += r.clicks[p] / rs.length; return c; };
const all = curve(rows);
const mean = (a, f, t) => { let s = 0; for (let i = f; i < t; i++) s += a[i]; return s / (t - f); };
const before = mean(all, switchAt - 25, switchAt);
const level = 0.25 + 0.8 * (before - 0.25);
console.log(`regained ${regainedAt(all, switchAt, level, 5)}; alarm pages: ${rows.map((r) => r.alarmPage).sort((a, b) => a - b).join(' ')}`);
for (const [name, pick] of [['<=10', (r) => r.alarmPage <= 10], ['11-30', (r) => r.alarmPage > 10 && r.alarmPage <= 30], ['>30', (r) => r.alarmPage > 30 && Number.isFinite(r.alarmPage)], ['never', (r) => !Number.isFinite(r.alarmPage)]]) {
  const g = rows.filter(pick); if (!g.length) continue;
  const c = curve(g);
  console.log(`${name}: ${g.length} users, changes ${g.map((r) => r.pre).join(',')}, clicks/page after switch in blocks of 10: ${Array.from({ length: 7 }, (_, b) => mean(c, switchAt + 10 * b, switchAt + 10 * b + 10).toFixed(2)).join(' ')}`);
  const fc = curve(g.map((r) => ({ clicks: r.freshClicks })));
  console.log(`  their fresh models: ${Array.from({ length: 7 }, (_, b) => mean(fc, switchAt + 10 * b, switchAt + 10 * b + 10).toFixed(2)).join(' ')}`);
}
catalogue.dispose();
