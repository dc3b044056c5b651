// A generated shop that shows pages (issue 54, whole pages): shared by tests/js/evaluate-pages.test.js
// and `npm run bench -- ope --pages`.
import { seededRandom, standardNormal } from './seeded-random.mjs';

// `items` items with Gaussian features (dimension `dim`) and a click model by position (position-based:
// the clicks of a page add up in expectation), P(click | item at position j) = bias_j sigma(-1 + 3 x.theta*)
// with bias_j = 1 / (1 + 0.3 j). `policy(pulls, options)` is a LinUCB (or `options.Class`) over the
// items trained on `pulls` uniformly random clicks at position 0.
export function makePageShop(sb, seed, { items = 20, dim = 5 } = {}) {
  const random = seededRandom(seed);
  const thetaStar = Float64Array.from({ length: dim }, () => standardNormal(random));
  const ids = Uint32Array.from({ length: items }, (_, i) => 10 + i);
  const features = Float64Array.from({ length: items * dim }, () => standardNormal(random) / Math.sqrt(dim));
  const attraction = (id) => {
    let score = 0;
    for (let j = 0; j < dim; j++) score += features[(id - 10) * dim + j] * thetaStar[j] / Math.sqrt(dim);
    return 1 / (1 + Math.exp(1 - 3 * score));
  };
  const clickRate = (id, position) => attraction(id) / (1 + 0.3 * position);
  const click = (id, position) => (random() < clickRate(id, position) ? 1 : 0);
  // The expected clicks of a page showing `slate`: what a policy showing it earns a page online.
  const pageValue = (slate) => Array.from(slate).reduce((sum, id, j) => sum + clickRate(id, j), 0);
  const policy = (pulls, { Class = sb.LinUCB, ...options } = {}) => {
    const made = new Class({ dim, seed: seed + pulls, ...options });
    made.addArms(ids, features);
    for (let t = 0; t < pulls; t++) {
      const id = ids[Math.floor(random() * items)];
      made.update(id, click(id, 0));
    }
    return made;
  };
  // Cascade users (page-cascade): they scan a page from the top and click the first item that attracts
  // them (P = sigma(-1 + 3 x.theta*), no position bias); nothing after the click counts.
  const cascadeValue = (slate) => {
    let value = 0;
    let scanned = 1;
    for (const id of slate) {
      value += scanned * attraction(id);
      scanned *= 1 - attraction(id);
    }
    return value;
  };
  const cascadeClicks = (slate) => {
    let clicked = false;
    return Array.from(slate, (id) => {
      const now = !clicked && random() < attraction(id);
      clicked ||= now;
      return now ? 1 : 0;
    });
  };
  return { ids, random, click, pageValue, policy, cascadeValue, cascadeClicks };
}

// A uniform logger without replacement, shaped as decideSlate(): each page's items drawn uniformly
// among the ordered subsets of the shop's m items, so each position's propensity is 1 / m and the
// prefix through position j has probability 1 / (m (m - 1) ... (m - j)). Pages are numbered from 0.
export function uniformLogger(shop) {
  const shuffled = Array.from(shop.ids);
  let page = 0;
  return {
    decideSlate(size) {
      const prefixPropensities = new Float64Array(size);
      let prefix = 1;
      for (let j = 0; j < size; j++) {
        const pick = j + Math.floor(shop.random() * (shuffled.length - j));
        [shuffled[j], shuffled[pick]] = [shuffled[pick], shuffled[j]];
        prefix /= shuffled.length - j;
        prefixPropensities[j] = prefix;
      }
      const propensities = new Float64Array(size).fill(1 / shuffled.length);
      return { arms: shuffled.slice(0, size), propensities, prefixPropensities, eventId: page++ };
    },
  };
}

// `pages` pages of `size` as JSON lines (sb.formatDecision, one line per position, with its page): a
// uniform logger without replacement (each position's propensity 1 / items) or, given `logger`, its
// decideSlate() (the exploration mix's marginal propensities, and the logger's own page as each
// line's policyArm: what page-pi reads of the mix).
export function writePageLog(sb, shop, pages, size, logger = uniformLogger(shop)) {
  const lines = [];
  for (let page = 0; page < pages; page++) {
    const { arms, propensities, eventId, policyArms } = logger.decideSlate(size);
    for (let j = 0; j < size; j++) {
      const line = { arm: arms[j], reward: shop.click(arms[j], j), propensity: propensities[j], position: j, page: eventId };
      if (policyArms !== undefined) line.policyArm = policyArms[j];
      lines.push(sb.formatDecision(line));
    }
  }
  return lines.join('\n');
}

// `pages` pages of `size` decided by `logger` (decideSlate(): its exploration mix, or uniformLogger) and
// clicked by cascade users, as JSON lines with each position's prefixPropensity (what page-cascade reads).
export function writeCascadeLog(sb, shop, pages, size, logger) {
  const lines = [];
  for (let page = 0; page < pages; page++) {
    const { arms, propensities, prefixPropensities, eventId } = logger.decideSlate(size);
    const rewards = shop.cascadeClicks(arms);
    for (let j = 0; j < arms.length; j++) {
      lines.push(sb.formatDecision({ arm: arms[j], reward: rewards[j], propensity: propensities[j], prefixPropensity: prefixPropensities[j], position: j, page: eventId }));
    }
  }
  return lines.join('\n');
}
