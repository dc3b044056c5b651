// A generated shop logged by its users' own models, for off-policy evaluation of a population
// (issue 54): shared by tests/js/evaluate-population.test.js and `npm run bench -- ope`.
import { seededRandom, standardNormal } from './seeded-random.mjs';

// `items` items with Gaussian features (dimension `dim`), `users` users with hidden tastes; a click is
// Bernoulli(sigmoid(-1.5 + 2 x.theta_u)), a click rate near 0.25 on average and up to about 0.8 for
// a user's best items (clicks 'logistic'), or Bernoulli(0.6 where x.theta_u > 0.5, else 0.1) (clicks
// 'threshold': not logistic in the features). With oneTaste every user has the first user's taste
// (a click depends on the item only, as a pooled reward model assumes).
export function makeShop(sb, seed, { items = 200, users = 60, dim = 8, clicks = 'logistic', oneTaste = false } = {}) {
  const random = seededRandom(seed);
  const catalogue = new sb.Catalogue({ dim, seed, index: { type: 'exact' } });
  const ids = Uint32Array.from({ length: items }, (_, i) => 1000 + i);
  // Normals rounded to float32, as the tests' first shops drew them.
  const features = Float64Array.from({ length: items * dim }, () => Math.fround(standardNormal(random)) / Math.sqrt(dim));
  catalogue.add(ids, features);
  const tastes = Array.from({ length: users }, () => Float64Array.from({ length: dim }, () => Math.fround(standardNormal(random))));
  if (oneTaste) tastes.fill(tastes[0]);
  const clickRate = (user, id) => {
    const row = (id - 1000) * dim;
    let score = 0;
    for (let j = 0; j < dim; j++) score += features[row + j] * tastes[user][j];
    if (clicks === 'threshold') return score > 0.5 ? 0.6 : 0.1;
    return 1 / (1 + Math.exp(1.5 - 2 * score));
  };
  const click = (user, id) => (random() < clickRate(user, id) ? 1 : 0);
  return { random, catalogue, ids, users, clickRate, click };
}

// `records` decisions per user, users taking turns, of each user's own LinUCB with the exploration
// mix `explore` (propensities exact: explore / items + (1 - explore) for the greedy arm), after
// `history` steps of each user that are not logged (users the shop already knows); returns the log
// and each logging user's state at the end.
export function logShop(sb, shop, records, explore, history = 0) {
  const loggers = Array.from({ length: shop.users }, (_, u) => new sb.LinUCB({ catalogue: shop.catalogue, explore, seed: 100 + u }));
  loggers.forEach((logger, u) => {
    for (let t = 0; t < history; t++) {
      const arm = logger.select();
      logger.update(arm, shop.click(u, arm));
    }
  });
  const n = records * shop.users;
  const log = { users: new Uint32Array(n), arms: new Uint32Array(n), rewards: new Float64Array(n), propensities: new Float64Array(n) };
  let i = 0;
  for (let t = 0; t < records; t++) {
    for (let u = 0; u < shop.users; u++) {
      const decision = loggers[u].decide();
      const reward = shop.click(u, decision.arm);
      loggers[u].reward(decision.eventId, reward);
      log.users[i] = u;
      log.arms[i] = decision.arm;
      log.rewards[i] = reward;
      log.propensities[i] = decision.propensity;
      i++;
    }
  }
  const states = new Map(loggers.map((logger, u) => [u, logger.toBytes()]));
  for (const logger of loggers) logger.dispose();
  return { log, states };
}

// A frozen deterministic (LinUCB) population's true value on the log's records: each user's click
// rate of the item its model selects, weighed by the user's records.
export function frozenTruth(sb, shop, states, log) {
  const value = new Map();
  for (const [u, bytes] of states) {
    const user = sb.LinUCB.fromBytes(bytes, { catalogue: shop.catalogue });
    value.set(u, shop.clickRate(u, user.select()));
    user.dispose();
  }
  let sum = 0;
  for (const u of log.users) sum += value.get(u);
  return sum / log.users.length;
}

// A learning LinUCB population run online: the mean of `step(user, u)` (what one step of user u's
// model earns; the step also teaches the model what it should) over `steps` steps of each of `users`
// users' LinUCB from scratch over `catalogue`, and over `runs` runs.
export function onlineMean(sb, catalogue, users, runs, steps, step) {
  let total = 0;
  for (let run = 0; run < runs; run++) {
    for (let u = 0; u < users; u++) {
      const user = new sb.LinUCB({ catalogue });
      for (let t = 0; t < steps; t++) total += step(user, u);
      user.dispose();
    }
  }
  return total / (runs * users * steps);
}
