// A generated shop whose users see pages (issue 54, page estimators for a population): a catalogue,
// users with hidden tastes of their own and binary clicks of a position-based model; shared by
// tests/js/evaluate-population-pages.test.js and `npm run bench -- ope --pages`.
import { onlineMean } from './logged-shop.mjs';
import { seededRandom, standardNormal } from './seeded-random.mjs';

// `items` items with Gaussian features (dimension `dim`), `users` users with tastes; a click on item a
// at position j is Bernoulli(sigma(-1 + 2 x_a.theta_u) / (1 + 0.3 j)): a page's clicks add up in expectation.
export function makePopulationPageShop(sb, seed, { items = 20, users = 40, dim = 4 } = {}) {
  const random = seededRandom(seed);
  const catalogue = new sb.Catalogue({ dim, seed, index: { type: 'exact' } });
  const ids = Uint32Array.from({ length: items }, (_, i) => 100 + i);
  const features = Float64Array.from({ length: items * dim }, () => standardNormal(random) / Math.sqrt(dim) * 1.5);
  catalogue.add(ids, features);
  const tastes = Array.from({ length: users }, () => Float64Array.from({ length: dim }, () => standardNormal(random)));
  const clickRate = (user, id, position) => {
    let score = 0;
    for (let j = 0; j < dim; j++) score += features[(id - 100) * dim + j] * tastes[user][j];
    return 1 / (1 + Math.exp(1 - 2 * score)) / (1 + 0.3 * position);
  };
  const click = (user, id, position) => (random() < clickRate(user, id, position) ? 1 : 0);
  const pageValue = (user, slate) => Array.from(slate).reduce((sum, id, j) => sum + clickRate(user, id, j), 0);
  return { random, catalogue, ids, users, clickRate, click, pageValue };
}

// Each user's LinUCB over the catalogue after `clicks` uniformly random items at position 0, saved.
export function trainedStates(sb, shop, clicks) {
  const states = new Map();
  for (let u = 0; u < shop.users; u++) {
    const user = new sb.LinUCB({ catalogue: shop.catalogue });
    for (let t = 0; t < clicks; t++) {
      const id = shop.ids[Math.floor(shop.random() * shop.ids.length)];
      user.update(id, shop.click(u, id, 0));
    }
    states.set(u, user.toBytes());
    user.dispose();
  }
  return states;
}

// `pages` pages of `size` for every user, users taking turns: shown by a uniform logger without
// replacement (explore 1: propensity 1 / m, prefix 1 / (m (m - 1) ...)) or by each user's own LinUCB
// with the exploration mix `explore` through decideSlate() (its propensities, prefixPropensities and
// policyArms; the logger learns from the page's clicks), after `history` clicks of its own. A
// population's log, with users, positions, pages and prefixes (and policyArms for the mix).
export function logPopulationPages(sb, shop, pages, size, explore, history = 20) {
  const m = shop.ids.length;
  const loggers = explore >= 1 ? [] : Array.from({ length: shop.users }, (_, u) => {
    const logger = new sb.LinUCB({ catalogue: shop.catalogue, explore, seed: 100 + u });
    for (let t = 0; t < history; t++) {
      const id = shop.ids[Math.floor(shop.random() * m)];
      logger.update(id, shop.click(u, id, 0));
    }
    return logger;
  });
  const n = pages * size * shop.users;
  const log = {
    users: new Uint32Array(n), arms: new Uint32Array(n), rewards: new Float64Array(n), propensities: new Float64Array(n),
    prefixPropensities: new Float64Array(n), positions: new Uint32Array(n), pages: new Uint32Array(n),
    ...(explore >= 1 ? {} : { policyArms: new Uint32Array(n) }),
  };
  const shuffled = Array.from(shop.ids);
  let i = 0;
  let page = 0;
  for (let t = 0; t < pages; t++) {
    for (let u = 0; u < shop.users; u++, page++) {
      let slate;
      if (explore >= 1) {
        const prefixPropensities = new Float64Array(size);
        let prefix = 1;
        for (let j = 0; j < size; j++) {
          const pick = j + Math.floor(shop.random() * (m - j));
          [shuffled[j], shuffled[pick]] = [shuffled[pick], shuffled[j]];
          prefix /= m - j;
          prefixPropensities[j] = prefix;
        }
        slate = { arms: shuffled.slice(0, size), propensities: new Float64Array(size).fill(1 / m), prefixPropensities };
      } else {
        slate = loggers[u].decideSlate(size);
      }
      const rewards = Array.from(slate.arms, (id, j) => shop.click(u, id, j));
      if (explore < 1) loggers[u].reward(slate.eventId, rewards);
      for (let j = 0; j < size; j++, i++) {
        log.users[i] = u;
        log.arms[i] = slate.arms[j];
        log.rewards[i] = rewards[j];
        log.propensities[i] = slate.propensities[j];
        log.prefixPropensities[i] = slate.prefixPropensities[j];
        if (log.policyArms) log.policyArms[i] = slate.policyArms[j];
        log.positions[i] = j;
        log.pages[i] = page;
      }
    }
  }
  for (const logger of loggers) logger.dispose();
  return log;
}

// A frozen LinUCB population's page value on these users: each user's own page (selectSlate).
export function frozenPageTruth(sb, shop, states, size) {
  let total = 0;
  for (const [u, bytes] of states) {
    const user = sb.LinUCB.fromBytes(bytes, { catalogue: shop.catalogue });
    total += shop.pageValue(u, user.selectSlate(size));
    user.dispose();
  }
  return total / states.size;
}

// A learning LinUCB population's page value run online: each user from scratch shows `pages` pages of
// its own, one after another, and learns each position's click with probability `acceptance` (what
// the replay's rejection lets through), averaged over pages, users and `runs` runs.
export function learningPageTruth(sb, shop, pages, size, acceptance, runs = 5) {
  return onlineMean(sb, shop.catalogue, shop.users, runs, pages, (user, u) => {
    const slate = user.selectSlate(size);
    slate.forEach((id, j) => {
      const click = shop.click(u, id, j);
      if (shop.random() < acceptance) user.update(id, click);
    });
    return shop.pageValue(u, slate);
  });
}
